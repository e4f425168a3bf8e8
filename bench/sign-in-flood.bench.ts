import { setMaxListeners } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { DueTally } from './lib/due-tally.js';
import { seedingBuild, THIS_BUILD, type SeedingBuild } from './lib/seed.js';
import { CLI, cpuSeconds, fmt, freePort, headline, runIfMain, spawnUntil, stop, table, tempDir } from './lib/harness.js';
import { SERVER_CORE } from './lib/wrk.js';

/**
 * Issue 34: do probes stay on time while the server takes 200 wrong sign-ins a second? A whole
 * `vigil serve` held to one core (taskset) probes HTTP checks at 20 s whose URLs name
 * `localhost`, so every probe resolves its host with getaddrinfo on libuv's thread pool, the
 * pool node's async scrypt also runs on. Measured quiet, then with a flood of wrong passwords
 * sent open-loop at 200/s, each from another client address (X-Forwarded-For behind a
 * trusted proxy) for another email: no per-person or per-address limit stops them, so every
 * one asks for a 32 MiB scrypt. With BENCH_BEFORE (a built checkout), that build takes the
 * same flood too.
 */
const INTERVAL_MS = 20_000;
const ON_TIME_MS = 1000;
const CHECKS = Number(process.env.BENCH_FLOOD_CHECKS ?? 500);
const RATE = Number(process.env.BENCH_FLOOD_RATE ?? 200);
const WARMUP_SECONDS = Number(process.env.BENCH_FLOOD_WARMUP ?? 15);
const SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 40);
const TAIL_SECONDS = 10;
/** Sign-ins the client keeps open at most; beyond, a tick's request is not sent (and counted). */
const MAX_IN_FLIGHT = 1000;
const GRACE_MS = 10_000;
const TARGET = fileURLToPath(new URL('./fixtures/http-target.js', import.meta.url));
const SETTINGS = { server: { trustProxy: true }, probes: { threads: 1 } };

interface FloodCount {
  sent: number;
  skipped: number;
  byStatus: Map<number, number>;
  latencies: number[];
}

interface FloodRun {
  name: string;
  due: number;
  ran: number;
  onTime: number;
  failed: number;
  lagP99: number;
  responseP99: number;
  dnsP99: number;
  cpuPct: number;
  flood: FloodCount | null;
}

const p99 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * 0.99) - 1)] ?? 0;
};

/** Wrong passwords at `rate`/s until `stopAt`, each for a new email from a new address. */
async function flood(url: string, rate: number, stopAt: number): Promise<FloodCount> {
  const count: FloodCount = { sent: 0, skipped: 0, byStatus: new Map(), latencies: [] };
  const pending = new Set<Promise<void>>();
  // What is still open this long after the window is given up on (counted as unanswered).
  const giveUp = new AbortController();
  setMaxListeners(0, giveUp.signal);
  const timer = setTimeout(() => giveUp.abort(), stopAt - Date.now() + GRACE_MS);
  const start = Date.now();
  let n = 0;
  while (Date.now() < stopAt) {
    const due = start + (n * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const i = n++;
    if (pending.size >= MAX_IN_FLIGHT) {
      count.skipped++;
      continue;
    }
    count.sent++;
    const t0 = Date.now();
    const req = fetch(`${url}/v1/public/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` },
      body: JSON.stringify({ email: `guess-${i}@example.com`, password: `wrong password ${i}` }),
      signal: giveUp.signal,
    }).then(
      async (res) => {
        await res.arrayBuffer();
        count.byStatus.set(res.status, (count.byStatus.get(res.status) ?? 0) + 1);
        count.latencies.push(Date.now() - t0);
      },
      () => void count.byStatus.set(0, (count.byStatus.get(0) ?? 0) + 1),
    );
    const tracked = req.finally(() => pending.delete(tracked));
    pending.add(tracked);
  }
  await Promise.all(pending);
  clearTimeout(timer);
  return count;
}

async function measure(name: string, cli: string, seeding: SeedingBuild, targetPort: number, withFlood: boolean): Promise<FloodRun> {
  const dir = tempDir('flood');
  try {
    const { ids } = await seeding.seedChecks(dir.path, CHECKS, (i) => ({ url: `http://localhost:${targetPort}/c/${i}`, checkFrequency: INTERVAL_MS / 60_000 }));
    const configFile = join(dir.path, 'bench.json');
    writeFileSync(configFile, JSON.stringify({ ...SETTINGS, logLevel: 'warn' }));
    const port = await freePort();
    const vigil = await spawnUntil([cli, 'serve', '--config', configFile], { VIGIL_DATA_DIR: dir.path, VIGIL_PORT: String(port) }, /listening on/, 120_000, SERVER_CORE);
    try {
      await new Promise((r) => setTimeout(r, WARMUP_SECONDS * 1000));
      const t0 = Date.now();
      const cpu0 = cpuSeconds(vigil.pid!);
      const flooded = withFlood ? flood(`http://127.0.0.1:${port}`, RATE, t0 + SECONDS * 1000) : null;
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
      const t1 = Date.now();
      const cpu = cpuSeconds(vigil.pid!) - cpu0;
      const floodCount = await flooded;
      await new Promise((r) => setTimeout(r, TAIL_SECONDS * 1000));
      await stop(vigil);
      const db = new Database(join(dir.path, 'vigil.db'), { readonly: true });
      const idOfSeq = new Map(db.prepare('SELECT seq, id FROM checks').raw().all() as Array<[number, string]>);
      const tally = new DueTally(ids, INTERVAL_MS, t0, t1, ON_TIME_MS);
      const response: number[] = [];
      const dns: number[] = [];
      const rows = db.prepare("SELECT check_seq, at, status, response_time, dns FROM history WHERE kind = 'probe' AND at >= ?").raw().iterate(t0);
      for (const [seq, at, status, rt, d] of rows as IterableIterator<[number, number, string, number | null, number | null]>) {
        if (!tally.add(idOfSeq.get(seq)!, at, status)) continue;
        if (rt !== null) response.push(rt);
        if (d !== null) dns.push(d);
      }
      db.close();
      return { name, ...tally.count(), responseP99: p99(response), dnsP99: p99(dns), cpuPct: (cpu / ((t1 - t0) / 1000)) * 100, flood: floodCount };
    } finally {
      await stop(vigil);
    }
  } finally {
    dir.remove();
  }
}

function commitOf(root: string): string {
  try {
    return execFileSync('git', ['-C', root, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim();
  } catch {
    return root;
  }
}

function statuses(f: FloodCount | null): string {
  if (!f) return '-';
  const parts = [...f.byStatus].sort(([a], [b]) => a - b).map(([s, n]) => `${s === 0 ? 'unanswered' : s}: ${fmt(n)}`);
  const sorted = [...f.latencies].sort((a, b) => a - b);
  const answered = `answered p50 ${fmt(sorted[Math.floor(sorted.length / 2)] ?? 0)} ms, p99 ${fmt(p99(sorted))} ms`;
  return `${fmt(f.sent)} sent (${parts.join(', ')}; ${answered})${f.skipped ? `, ${fmt(f.skipped)} not sent (${MAX_IN_FLIGHT} open)` : ''}`;
}

export async function runSignInFloodBench(): Promise<FloodRun[]> {
  const port = await freePort();
  const target = await spawnUntil([TARGET], { PORT: String(port) }, /listening/);
  try {
    const runs = [
      await measure('this build, quiet', CLI, THIS_BUILD, port, false),
      await measure(`this build, ${RATE} wrong sign-ins/s`, CLI, THIS_BUILD, port, true),
    ];
    const before = process.env.BENCH_BEFORE;
    if (before) {
      const cli = join(before, 'dist', 'src', 'cli.js');
      if (!existsSync(cli)) throw new Error(`BENCH_BEFORE=${before}: no ${cli}`);
      runs.push(await measure(`${commitOf(before)} (before), ${RATE} wrong sign-ins/s`, cli, await seedingBuild(before), port, true));
    }
    return runs;
  } finally {
    await stop(target);
  }
}

export function report(runs: FloodRun[]): string {
  const [quiet, flooded] = runs as [FloodRun, FloodRun];
  const pct = (r: FloodRun) => `${fmt((r.onTime / Math.max(1, r.due)) * 100, 2)}%`;
  const rows = runs.map((r) => [
    r.name, fmt(r.due), fmt(r.ran), pct(r), fmt(r.lagP99), fmt(r.failed), fmt(r.responseP99, 1), fmt(r.dnsP99, 1), `${fmt(r.cpuPct)}%`, statuses(r.flood),
  ]);
  return [
    `### Probes during a sign-in flood (${fmt(CHECKS)} HTTP checks at 20 s on \`localhost\`, server on core ${SERVER_CORE}, ${SECONDS} s each)`,
    '',
    table(['run', 'due', 'ran', 'on time (≤ 1 s)', 'lag p99 ms', 'failed', 'response p99 ms', 'dns p99 ms', 'server CPU', 'sign-ins'], rows),
    '',
    headline({
      measure: `Probes on time while the server takes ${RATE} wrong sign-ins/s (${fmt(CHECKS)} checks on \`localhost\`, one core)`,
      figure: `${pct(flooded)} on time, lag p99 ${fmt(flooded.lagP99)} ms, ${fmt(flooded.failed)} failed`,
      baseline: `quiet ${pct(quiet)}, lag p99 ${fmt(quiet.lagP99)} ms`,
      ratio: `${fmt(flooded.lagP99 - quiet.lagP99)} ms more lag p99`,
      target: '≥ 99% on time, 0 failed',
    }),
  ].join('\n');
}

runIfMain(import.meta.url, async () => report(await runSignInFloodBench()));
