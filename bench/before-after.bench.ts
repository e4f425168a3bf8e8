import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_CHECKS, listPaths, seedApiChecks } from './api.bench.js';
import { HEARTBEAT_CHECKS, PING_BODY, seedHeartbeatChecks, storedPings } from './heartbeat.bench.js';
import { measureServe, seedLoadChecks, type LoadRun, type LoadWindow, type ServeCommand } from './load.bench.js';
import { CLI, fmt, freePort, headline, runIfMain, shuffled, spawnUntil, stop, table, tempDir } from './lib/harness.js';
import { seedingBuild, type SeedingBuild } from './lib/seed.js';
import { acknowledged, CONNECTIONS, meanCpuPerRequest, meanOf, roundCells, sideBySide, type ServeSpec } from './lib/side-by-side.js';
import { LOAD_CORE, SERVER_CORE, type AlternatingResult } from './lib/wrk.js';

/**
 * The server benches of this page run against two builds in one run, taking turns: `before` (a
 * built checkout named by BENCH_BEFORE, e.g. the last main before a change) and `after` (this
 * tree). Issue 24 item 9 asks that list, get and durable-ping rates and CPU per probe at 25 and
 * 1,000 probes/s stay within 5% of the build before the asynchronous store, or better.
 *
 * Both builds run the same `vigil serve` command on copies of one data directory seeded by the
 * build before (the build after migrates its copy when it starts, as an upgrade does), with the same settings and thread budget (one probe thread), held
 * to core SERVER_CORE with taskset; wrk, and the probe target, run on the other core. HTTP
 * measures start both servers side by side and alternate wrk rounds between them, every other
 * round starting with `after`; probe measures start one server at a time, each build on its
 * own copy, in the order before, after, after, before, …
 *
 * Without BENCH_BEFORE the bench says it skipped the pair (the report's block then keeps the
 * last pair measured). To build one: `git worktree add /tmp/vigil-before <commit>`, link or
 * install its node_modules, `npm run build` there.
 */
const BEFORE = process.env.BENCH_BEFORE;
const HTTP_ROUNDS = Number(process.env.BENCH_PAIR_ROUNDS ?? 6);
const ROUND_SECONDS = Number(process.env.BENCH_PAIR_ROUND_SECONDS ?? 4);
const WARMUP_SECONDS = 3;
const PROBE_ROUNDS = Number(process.env.BENCH_PAIR_PROBE_ROUNDS ?? 3);
const PROBE_SIZES = (process.env.BENCH_PAIR_CHECKS ?? '500,20000').split(',').map(Number).filter((n) => n > 0);
const PROBE_WINDOW: LoadWindow = { warmupSeconds: Number(process.env.BENCH_PAIR_WARMUP ?? 20), seconds: Number(process.env.BENCH_PAIR_SECONDS ?? 20), tailSeconds: 2 };
const TARGET = fileURLToPath(new URL('./fixtures/http-target.js', import.meta.url));
const THIS_TREE = fileURLToPath(new URL('../..', import.meta.url));
/** The same settings for both builds: the thread budget, no rate limit in the way. */
const SETTINGS = { probes: { threads: 1 }, rateLimits: { perKeyPerMinute: 1e9 } };
const TARGET_RATIO = 0.95;

interface Build {
  side: 'before' | 'after';
  /** The commit it was built from. */
  label: string;
  cli: string;
}

const SIDES = ['before', 'after'] as const;
type Side = (typeof SIDES)[number];

function commitOf(root: string): string {
  try {
    return execFileSync('git', ['-C', root, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim();
  } catch {
    return basename(root);
  }
}

function builds(beforeRoot: string): Record<Side, Build> {
  const cli = join(beforeRoot, 'dist', 'src', 'cli.js');
  if (!existsSync(cli)) throw new Error(`BENCH_BEFORE=${beforeRoot}: no ${cli} (run npm run build there first)`);
  return { before: { side: 'before', label: commitOf(beforeRoot), cli }, after: { side: 'after', label: commitOf(THIS_TREE), cli: CLI } };
}

interface HttpMeasure {
  name: string;
  short: string;
  pair: AlternatingResult;
}

interface PingMeasure extends HttpMeasure {
  acknowledged: Record<Side, number>;
  stored: Record<Side, number>;
}

interface ProbeMeasure {
  checks: number;
  runs: Record<Side, LoadRun[]>;
}

interface PairReport {
  builds: Record<Side, Build>;
  list: HttpMeasure;
  get: HttpMeasure;
  ping: PingMeasure;
  probes: ProbeMeasure[];
}

const progress = (line: string) => process.stderr.write(`before-after: ${line}\n`);

/** Both builds on their own copy of `seeded`, measured in turns. */
async function httpPair(
  b: Record<Side, Build>, seeded: string, scratch: string, tag: string, load: Parameters<typeof sideBySide>[2],
): Promise<{ pair: AlternatingResult; dataDirs: Record<Side, string> }> {
  progress(`${tag}: ${HTTP_ROUNDS} rounds of each build`);
  const spec = (side: Side): ServeSpec => {
    const dataDir = join(scratch, `${tag}-${side}`);
    cpSync(seeded, dataDir, { recursive: true });
    return { cli: b[side].cli, dataDir, config: SETTINGS };
  };
  const before = spec('before');
  const after = spec('after');
  const pair = await sideBySide(before, after, load, { rounds: HTTP_ROUNDS, roundSeconds: ROUND_SECONDS, warmupSeconds: WARMUP_SECONDS, dir: scratch });
  return { pair, dataDirs: { before: before.dataDir, after: after.dataDir } };
}

async function probePairs(b: Record<Side, Build>, seeding: SeedingBuild): Promise<ProbeMeasure[]> {
  const port = await freePort();
  const target = await spawnUntil([TARGET], { PORT: String(port) }, /listening/, 30_000, LOAD_CORE);
  try {
    const out: ProbeMeasure[] = [];
    for (const checks of PROBE_SIZES) {
      const dir = tempDir('pair-load');
      try {
        // Each build's own copy of one seed (the build after migrates its copy), used by one
        // server at a time: each run reads only its own window's rows.
        const seed = join(dir.path, 'seed');
        mkdirSync(seed);
        const ids = await seedLoadChecks(seed, checks, port, seeding);
        const dataDirs = { before: join(dir.path, 'before'), after: join(dir.path, 'after') };
        for (const side of SIDES) cpSync(seed, dataDirs[side], { recursive: true });
        const runs: Record<Side, LoadRun[]> = { before: [], after: [] };
        for (let round = 0; round < PROBE_ROUNDS; round++) {
          for (const side of round % 2 === 0 ? SIDES : [...SIDES].reverse()) {
            const serve: ServeCommand = { args: (configFile) => [b[side].cli, 'serve', '--config', configFile], config: SETTINGS, core: SERVER_CORE };
            progress(`probes, ${checks} checks: round ${round + 1}, ${side}`);
            runs[side].push(await measureServe(dataDirs[side], ids, serve, PROBE_WINDOW));
          }
        }
        out.push({ checks, runs });
      } finally {
        dir.remove();
      }
    }
    return out;
  } finally {
    await stop(target);
  }
}

export async function runBeforeAfter(beforeRoot: string): Promise<PairReport> {
  const root = resolve(beforeRoot);
  const b = builds(root);
  // Seeded by the build before: its schema is the older one, which the build after migrates.
  const seeding = await seedingBuild(root);
  const scratch = tempDir('pair');
  try {
    const api = join(scratch.path, 'api-seed');
    mkdirSync(api);
    const { key, ids } = await seedApiChecks(api, seeding);
    const headers = { 'x-api-key': key };
    const list = { name: 'GET /v1/public/checks (pages, sizes, filters)', short: 'list', pair: (await httpPair(b, api, scratch.path, 'list', { paths: listPaths(), headers })).pair };
    const idPaths = shuffled(ids.map((id) => `/v1/public/checks/${id}`), 11);
    const get = { name: 'GET /v1/public/checks/{id} (every id)', short: 'get', pair: (await httpPair(b, api, scratch.path, 'get', { paths: idPaths, headers })).pair };

    const beats = join(scratch.path, 'heartbeat-seed');
    mkdirSync(beats);
    const pingPaths = await seedHeartbeatChecks(beats, seeding);
    const pinged = await httpPair(b, beats, scratch.path, 'ping', { paths: pingPaths, method: 'POST', body: PING_BODY });
    const { pair } = pinged;
    const ping: PingMeasure = {
      name: 'durable heartbeat ping (answered after its group commit)',
      short: 'durable ping',
      pair,
      acknowledged: { before: acknowledged([pair.baselineWarmup, ...pair.baselineRounds]), after: acknowledged([pair.subjectWarmup, ...pair.subjectRounds]) },
      stored: { before: await storedPings(pinged.dataDirs.before), after: await storedPings(pinged.dataDirs.after) },
    };
    return { builds: b, list, get, ping, probes: await probePairs(b, seeding) };
  } finally {
    scratch.remove();
  }
}

const mean = meanOf;

interface Row {
  measure: string;
  /** For the headline. */
  short: string;
  before: string;
  after: string;
  /** Above 1: after is faster (rates: after ÷ before; CPU: before ÷ after). */
  ratio: number;
}

function rows(r: PairReport): Row[] {
  const out: Row[] = [];
  for (const m of [r.list, r.get, r.ping]) {
    const before = m.pair.baseline.requestsPerSec;
    const after = m.pair.subject.requestsPerSec;
    out.push({ measure: `${m.name}, req/s`, short: m.short, before: fmt(before), after: fmt(after), ratio: after / before });
    const cpuBefore = meanCpuPerRequest(m.pair.baselineRounds);
    const cpuAfter = meanCpuPerRequest(m.pair.subjectRounds);
    out.push({ measure: `… its server CPU per request`, short: `${m.short} CPU`, before: `${fmt(cpuBefore, 1)} µs`, after: `${fmt(cpuAfter, 1)} µs`, ratio: cpuBefore / cpuAfter });
  }
  for (const p of r.probes) {
    const before = mean(p.runs.before.map((x) => x.cpuMsPerProbe));
    const after = mean(p.runs.after.map((x) => x.cpuMsPerProbe));
    const perSecond = mean([...p.runs.before, ...p.runs.after].map((x) => x.due)) / PROBE_WINDOW.seconds;
    out.push({ measure: `CPU per probe, ${fmt(p.checks)} HTTP checks at 20 s (${fmt(perSecond)} probes/s), whole process`, short: `CPU per probe at ${fmt(perSecond)}/s`, before: `${fmt(before, 3)} ms`, after: `${fmt(after, 3)} ms`, ratio: before / after });
  }
  return out;
}

/** The rows the issue holds to the target: the rates and CPU per probe (the CPU per request rows explain them). */
const held = (row: Row): boolean => !row.measure.startsWith('…');

export function beforeAfterMarkdown(r: PairReport): string {
  const { before, after } = r.builds;
  const all = rows(r);
  const lost = (side: Side) => Math.max(0, r.ping.acknowledged[side] - r.ping.stored[side]);
  const perRound: Array<Array<string | number>> = [];
  for (const m of [r.list, r.get, r.ping]) {
    perRound.push([m.name, 'before', ...roundCells(m.pair.baselineRounds)]);
    perRound.push([m.name, 'after', ...roundCells(m.pair.subjectRounds)]);
  }
  const probeRounds: Array<Array<string | number>> = [];
  for (const p of r.probes) {
    for (const side of SIDES) {
      probeRounds.push([fmt(p.checks), side, ...p.runs[side].map((x) => `${fmt(x.cpuMsPerProbe, 3)} ms, ${fmt((x.onTime / Math.max(1, x.due)) * 100, 1)}% on time`)]);
    }
  }
  const measured = all.filter(held);
  const worst = measured.reduce((w, row) => (row.ratio < w.ratio ? row : w));
  const nonTwo = (side: 'baseline' | 'subject') => [r.list, r.get, r.ping].reduce((n, m) => n + m.pair[side].non2xx + m.pair[side].errors, 0);
  return [
    `### Before and after in one run: ${before.label} (before) against ${after.label} (after)`,
    '',
    `Server on core ${SERVER_CORE} (every thread), wrk (one thread, ${CONNECTIONS} connections) or the probe target on the other; one probe thread each. ` +
      `HTTP: ${fmt(API_CHECKS)} checks for list and get, ${fmt(HEARTBEAT_CHECKS)} heartbeat checks for pings; both servers up side by side, a ${WARMUP_SECONDS} s warm-up of each, ` +
      `then ${HTTP_ROUNDS} rounds of ${fmt(ROUND_SECONDS)} s taking turns (every other round starting with after). ` +
      `Probes: one server at a time, ${PROBE_ROUNDS} rounds (before, after, after, before, …), each ${PROBE_WINDOW.warmupSeconds} s warm-up and ${PROBE_WINDOW.seconds} s measured.`,
    '',
    table(['measure (mean of the rounds)', `before (${before.label})`, `after (${after.label})`, 'ratio (above 1: after faster)', 'target'],
      all.map((row) => [row.measure, row.before, row.after, `${fmt(row.ratio, 3)}`, held(row) ? `≥ ${TARGET_RATIO}` : '-'])),
    '',
    `Durable pings acknowledged (2xx, warm-up included) and stored: before ${fmt(r.ping.acknowledged.before)} and ${fmt(r.ping.stored.before)} (lost ${fmt(lost('before'))}); ` +
      `after ${fmt(r.ping.acknowledged.after)} and ${fmt(r.ping.stored.after)} (lost ${fmt(lost('after'))}). ` +
      `Non-2xx answers and socket errors over the HTTP rounds: before ${fmt(nonTwo('baseline'))}, after ${fmt(nonTwo('subject'))}.`,
    '',
    'Each round, as measured (rate and server CPU per request):',
    '',
    table(['measure', 'build', ...Array.from({ length: HTTP_ROUNDS }, (_, i) => `round ${i + 1}`)], perRound),
    ...(probeRounds.length ? ['', table(['checks', 'build', ...Array.from({ length: PROBE_ROUNDS }, (_, i) => `round ${i + 1}`)], probeRounds)] : []),
    headline({
      measure: `This build against ${before.label} in one run: list, get, durable pings${r.probes.length ? `, CPU per probe at ${r.probes.map((p) => fmt(p.checks / 20)).join(' and ')} probes/s` : ''}`,
      figure: `lowest ratio ${fmt(worst.ratio, 3)} (${worst.short})`,
      baseline: `${before.label}, same machine, in turns`,
      ratio: measured.map((row) => fmt(row.ratio, 2)).join(' / '),
      target: `each ≥ ${TARGET_RATIO}`,
    }),
  ].join('\n');
}

/** What the report says when there is no build to compare with; bench/docs.ts then keeps the page's last pair. */
export const SKIPPED = 'SKIPPED: no build to compare with (BENCH_BEFORE unset). `BENCH_BEFORE=/path/to/a/built/checkout npm run bench -- before-after` runs the pair.';

runIfMain(import.meta.url, async () => (BEFORE ? beforeAfterMarkdown(await runBeforeAfter(BEFORE)) : SKIPPED));
