import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { NodeRegistry } from '../src/nodes/node-registry.js';
import { nextDue } from '../src/engine/timing-wheel.js';
import { systemClock } from '../src/domain/clock.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { seedChecks } from './lib/seed.js';
import { CLI, cpuSeconds, fmt, freePort, headline, runIfMain, spawnUntil, stop, table, tempDir } from './lib/harness.js';

/**
 * Issue 14 targets, node and central on this machine against a local target:
 * - 20,000 checks at 20 s pinned to a node's region: >= 99% of due probes delivered to the
 *   central, and the central's CPU per result <= 30% of its CPU per probe when it probes the
 *   same checks itself (the baseline, measured in the same run);
 * - the outbox's replay rate after the central was away for 60 s.
 * Small scale: BENCH_NODE_CHECKS=500 BENCH_NODE_SECONDS=10 BENCH_NODE_AWAY_SECONDS=10.
 */
const CHECKS = Number(process.env.BENCH_NODE_CHECKS ?? 20_000);
const SECONDS = Number(process.env.BENCH_NODE_SECONDS ?? 60);
const AWAY_SECONDS = Number(process.env.BENCH_NODE_AWAY_SECONDS ?? 60);
const INTERVAL_MS = 20_000;
const CENTRAL = 'vps-eu-1';
const EDGE = 'vps-us-1';
const TARGET = fileURLToPath(new URL('./fixtures/http-target.js', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface World {
  dir: string;
  port: number;
  config: string;
  ids: string[];
  token: string | null;
}

async function world(tag: string, targetPort: number, pinned: boolean, port: number): Promise<World & { remove(): void }> {
  const dir = tempDir(tag);
  const config = join(dir.path, 'config.json');
  writeFileSync(config, JSON.stringify({
    server: { host: '127.0.0.1', port }, dataDir: join(dir.path, 'central'), region: CENTRAL, logLevel: 'warn',
    plans: { pro: { maxChecks: 1e7, minCheckIntervalMinutes: 0.05 } }, nodes: { failoverMs: 600_000, reconnectMaxMs: 1000 },
  }));
  let token: string | null = null;
  if (pinned) {
    const store = openSqliteStore(join(dir.path, 'central'));
    token = (await new NodeRegistry(store.nodes, CENTRAL, systemClock).create({ region: EDGE })).token;
    await store.close();
  }
  const { ids } = await seedChecks(join(dir.path, 'central'), CHECKS, (i) => ({
    url: `http://127.0.0.1:${targetPort}/c/${i}`, checkFrequency: INTERVAL_MS / 60_000, ...(pinned ? { checkRegionOverride: EDGE } : {}),
  }));
  return { dir: dir.path, port, config, ids, token, remove: dir.remove };
}

const serve = (w: World) => spawnUntil([CLI, 'serve', '--config', w.config], { VIGIL_CONFIG: '' }, /Vigil listening on/);

function prober(w: World): Promise<ChildProcess> {
  const config = join(w.dir, 'node.json');
  writeFileSync(config, JSON.stringify({ dataDir: join(w.dir, 'node'), logLevel: 'info', nodes: { reconnectMaxMs: 1000 } }));
  return spawnUntil([CLI, 'prober', '--server', `http://127.0.0.1:${w.port}`, '--token', w.token!, '--config', config], { VIGIL_CONFIG: '' }, /connected to the central/);
}

function rows(w: World, region: string, from: number, to: number): number {
  const db = new Database(join(w.dir, 'central', 'vigil.db'), { readonly: true });
  try {
    return db.prepare("SELECT count(*) FROM history WHERE kind = 'probe' AND region = ? AND at >= ? AND at < ?").pluck().get(region, from, to) as number;
  } finally {
    db.close();
  }
}

function due(ids: string[], from: number, to: number): number {
  let n = 0;
  for (const id of ids) for (let t = nextDue(id, INTERVAL_MS, from); t < to; t += INTERVAL_MS) n++;
  return n;
}

/** Runs for SECONDS after one full interval of warm-up; counts the window's results once they have all arrived. */
async function measure(w: World, central: ChildProcess, region: string) {
  await sleep(INTERVAL_MS);
  const cpu0 = cpuSeconds(central.pid!);
  const t0 = Date.now();
  await sleep(SECONDS * 1000);
  const t1 = Date.now();
  const cpu = cpuSeconds(central.pid!) - cpu0;
  await sleep(3000); // results of the window's last probes are still on their way
  const recorded = rows(w, region, t0, t1);
  return { cpu, recorded, due: due(w.ids, t0, t1), cpuPerResultMs: (cpu * 1000) / Math.max(1, recorded) };
}

async function baseline(targetPort: number) {
  const w = await world('node-base', targetPort, false, await freePort());
  const central = await serve(w);
  try {
    return await measure(w, central, CENTRAL);
  } finally {
    await stop(central);
    w.remove();
  }
}

async function withNode(targetPort: number) {
  const w = await world('node-edge', targetPort, true, await freePort());
  let central = await serve(w);
  const node = await prober(w);
  let out = '';
  node.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  try {
    const steady = await measure(w, central, EDGE);
    // The central goes away; the node probes on into its outbox, then replays it.
    await stop(central);
    await sleep(AWAY_SECONDS * 1000);
    central = await serve(w);
    let replay: { replayed: number; ms: number; perSecond: number } | null = null;
    for (let i = 0; i < 600 && !replay; i++) {
      const line = out.split('\n').find((l) => l.includes('backlog replayed'));
      if (line) replay = JSON.parse(line) as { replayed: number; ms: number; perSecond: number };
      else await sleep(100);
    }
    return { steady, replay };
  } finally {
    await stop(node);
    await stop(central);
    w.remove();
  }
}

export async function runProberNodesBench(): Promise<string> {
  const targetPort = await freePort();
  const target = await spawnUntil([TARGET], { PORT: String(targetPort) }, /listening/);
  try {
    const base = await baseline(targetPort);
    const { steady, replay } = await withNode(targetPort);
    const ratio = steady.cpuPerResultMs / base.cpuPerResultMs;
    return [
      `### Regional prober nodes (central and one node on this machine, local HTTP target)`,
      '',
      table(['measure', 'figure', 'target'], [
        [`baseline: the central probes ${fmt(CHECKS)} checks at 20 s itself, ${SECONDS} s`, `${fmt(base.recorded)} results, ${fmt(base.cpuPerResultMs, 3)} ms central CPU per probe`, '-'],
        [`node: the same checks pinned to the node's region, due probes delivered`, `${fmt((steady.recorded / steady.due) * 100, 2)}% (${fmt(steady.recorded)} of ${fmt(steady.due)})`, '>= 99%'],
        ['node: central CPU per result received', `${fmt(steady.cpuPerResultMs, 3)} ms = ${fmt(ratio * 100, 1)}% of the baseline's CPU per probe`, '<= 30%'],
        [`outbox replay after the central was away ${AWAY_SECONDS} s`, replay ? `${fmt(replay.replayed)} results in ${fmt(replay.ms)} ms = ${fmt(replay.perSecond)} results/s` : 'not seen', '-'],
      ]),
      headline({
        measure: `Central CPU per result from a prober node, ${fmt(CHECKS)} checks at 20 s`,
        figure: `${fmt(steady.cpuPerResultMs, 3)} ms`,
        baseline: `probing itself ${fmt(base.cpuPerResultMs, 3)} ms`,
        ratio: `${fmt(ratio * 100, 1)}%`,
        target: '≤ 30%',
      }),
    ].join('\n');
  } finally {
    await stop(target);
  }
}

runIfMain(import.meta.url, runProberNodesBench);
