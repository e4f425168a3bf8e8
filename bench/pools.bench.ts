import { fileURLToPath } from 'node:url';
import { ThreadDispatcher } from '../src/engine/dispatcher.js';
import { OwnThreadsDispatcher } from './baseline/own-threads-dispatcher.js';
import { TARGET, vigilCeiling } from './engine.bench.js';
import { measureServe, seedLoadChecks, type LoadRun, type ServeCommand } from './load.bench.js';
import { fmt, freePort, headline, runIfMain, spawnUntil, stop, table, tempDir } from './lib/harness.js';

/**
 * Issue 25: the probe engine on piscina against the own-threads dispatcher it replaced (kept
 * for this bench only, bench/baseline/), in one run, taking turns (rounds alternate which pool
 * goes first), so the shared machine's noise falls on both alike:
 * - CPU per probe, whole server process, at 25, 100 and 1,000 probes/s (500, 2,000 and 20,000
 *   HTTP checks at 20 s);
 * - 40,000 checks at 20 s: probes started within 1 s of their due time, RSS per check;
 * - the engine's ceiling (saturated, successful probes persisted per second).
 * Target: piscina within 5% of the baseline or better on each.
 */
const SIZES = (process.env.BENCH_POOLS_CHECKS ?? '500,2000,20000,40000').split(',').map(Number).filter((n) => n > 0);
const ROUNDS = Number(process.env.BENCH_POOLS_ROUNDS ?? 2);
const WINDOW = { warmupSeconds: Number(process.env.BENCH_POOLS_WARMUP ?? 20), seconds: Number(process.env.BENCH_POOLS_SECONDS ?? 20), tailSeconds: 2 };
const CEILING_SECONDS = Number(process.env.BENCH_POOLS_CEILING_SECONDS ?? 10);
const SERVE = fileURLToPath(new URL('./fixtures/serve.js', import.meta.url));

const POOLS = ['own-threads', 'piscina'] as const;
type Pool = (typeof POOLS)[number];
const serveOn = (pool: Pool): ServeCommand => ({ args: (configFile) => [SERVE, configFile], env: { VIGIL_BENCH_POOL: pool } });
const dispatcherFor = (pool: Pool) => (pool === 'piscina' ? new ThreadDispatcher() : new OwnThreadsDispatcher());
/** Round r runs the pools in this order: each goes first in every other round. */
const order = (round: number): Pool[] => (round % 2 === 0 ? [...POOLS] : [...POOLS].reverse());

interface PoolsReport {
  loads: Map<number, Record<Pool, LoadRun[]>>;
  ceilings: Record<Pool, number[]>;
}

async function runPools(): Promise<PoolsReport> {
  const port = await freePort();
  const target = await spawnUntil([TARGET], { PORT: String(port) }, /listening/);
  try {
    const ceilings: Record<Pool, number[]> = { 'own-threads': [], piscina: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const pool of order(round)) ceilings[pool].push((await vigilCeiling(port, dispatcherFor(pool), CEILING_SECONDS)).rate);
    }
    const loads = new Map<number, Record<Pool, LoadRun[]>>();
    for (const checks of SIZES) {
      const dir = tempDir('pools');
      try {
        // One data directory per size, shared by every round: each round reads only its own window's rows.
        const ids = await seedLoadChecks(dir.path, checks, port);
        const runs: Record<Pool, LoadRun[]> = { 'own-threads': [], piscina: [] };
        for (let round = 0; round < ROUNDS; round++) {
          for (const pool of order(round)) runs[pool].push(await measureServe(dir.path, ids, serveOn(pool), WINDOW));
        }
        loads.set(checks, runs);
      } finally {
        dir.remove();
      }
    }
    return { loads, ceilings };
  } finally {
    await stop(target);
  }
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const ratio = (candidate: number, baseline: number): string => (baseline > 0 ? `${fmt(candidate / baseline, 3)}×` : '-');

function poolsMarkdown({ loads, ceilings }: PoolsReport): string {
  const rows: Array<Array<string | number>> = [];
  const cpuRows: Array<{ checks: number; own: number; piscina: number }> = [];
  for (const [checks, runs] of loads) {
    const perSecond = mean(runs.piscina.map((r) => r.due)) / WINDOW.seconds;
    const own = mean(runs['own-threads'].map((r) => r.cpuMsPerProbe));
    const pis = mean(runs.piscina.map((r) => r.cpuMsPerProbe));
    cpuRows.push({ checks, own, piscina: pis });
    rows.push([`CPU per probe, ${fmt(checks)} checks (${fmt(perSecond)} probes/s)`, `${fmt(own, 3)} ms`, `${fmt(pis, 3)} ms`, ratio(pis, own), '≤ 1.05×']);
    if (checks >= 40_000) {
      const onTime = (r: LoadRun) => (r.onTime / Math.max(1, r.due)) * 100;
      const ownOn = mean(runs['own-threads'].map(onTime));
      const pisOn = mean(runs.piscina.map(onTime));
      rows.push([`${fmt(checks)} checks: probes on time (≤ 1 s late)`, `${fmt(ownOn, 2)}%`, `${fmt(pisOn, 2)}%`, ratio(pisOn, ownOn), '≥ 0.95×']);
      const ownRss = mean(runs['own-threads'].map((r) => r.rss)) / checks / 1024;
      const pisRss = mean(runs.piscina.map((r) => r.rss)) / checks / 1024;
      rows.push([`${fmt(checks)} checks: RSS per check (peak)`, `${fmt(ownRss, 2)} KB`, `${fmt(pisRss, 2)} KB`, ratio(pisRss, ownRss), '≤ 1.05×']);
    }
  }
  const ownCeiling = mean(ceilings['own-threads']);
  const pisCeiling = mean(ceilings.piscina);
  rows.push(['engine ceiling: successful probes persisted per second, saturated', fmt(ownCeiling), fmt(pisCeiling), ratio(pisCeiling, ownCeiling), '≥ 0.95×']);

  const perRound: Array<Array<string | number>> = [];
  for (const [checks, runs] of loads) {
    for (const pool of POOLS) {
      perRound.push([fmt(checks), pool, ...runs[pool].map((r) => `${fmt(r.cpuMsPerProbe, 3)} ms, ${fmt((r.onTime / Math.max(1, r.due)) * 100, 1)}% on time, ${fmt(r.rss / 2 ** 20)} MiB`)]);
    }
  }
  for (const pool of POOLS) perRound.push(['ceiling', pool, ...ceilings[pool].map((rate) => `${fmt(rate)} probes/s`)]);

  const quiet = cpuRows[0];
  return [
    `### Probe pools side by side: piscina against the own threads it replaced (HTTP checks at 20 s, local target in its own process; ${ROUNDS} rounds taking turns, each ${WINDOW.warmupSeconds} s warm-up and ${WINDOW.seconds} s measured; ceiling ${CEILING_SECONDS} s a round)`,
    '',
    table(['measure (mean of the rounds)', 'own threads (baseline)', 'piscina', 'piscina / baseline', 'target'], rows),
    '',
    'Each round, as measured (CPU per probe, on time, peak RSS; ceiling):',
    '',
    table(['checks', 'pool', ...Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1}`)], perRound),
    ...(quiet
      ? [headline({
          measure: `Probe pool on piscina: CPU per probe at ${fmt(quiet.checks)} checks, whole process`,
          figure: `${fmt(quiet.piscina, 3)} ms`,
          baseline: `own-threads dispatcher ${fmt(quiet.own, 3)} ms`,
          ratio: ratio(quiet.piscina, quiet.own),
          target: '≤ 1.05×',
        })]
      : []),
  ].join('\n');
}

runIfMain(import.meta.url, async () => poolsMarkdown(await runPools()));
