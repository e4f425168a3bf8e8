import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { DueTally } from './lib/due-tally.js';
import { seedingBuild, THIS_BUILD, type SeedingBuild } from './lib/seed.js';
import { CLI, cpuSeconds, fmt, freePort, headline, runIfMain, spawnUntil, stop, table, tempDir } from './lib/harness.js';

/**
 * Issue 13, deliverables 2 to 4: a whole `vigil serve` process probing HTTP checks at 20 s
 * against a local target in its own process, at rising load.
 * - CPU per probe (whole process from /proc, every thread) at 25, 100 and 1,000 probes/s
 *   (500, 2,000, 20,000 checks): targets <= 1 ms at 25/s, <= 0.45 ms at 1,000/s;
 * - 40,000 checks (2,000 probes/s due): >= 99% of due probes on time (started within 1 s of
 *   their due time) with RSS <= 8 KB per check;
 * - a quiet instance costs what it did (issue 36 item 6): CPU per probe at 500 checks at most
 *   2.5× the 40,000-check figure of the same run;
 * - 60,000 checks (past two cores): probes late, none falsely failed or lost; the engine's
 *   over-capacity log line is quoted.
 * Every figure counts probes by due time: rows are matched to the due instant they served.
 */
export const INTERVAL_MS = 20_000;
const ON_TIME_MS = 1000;
/** CPU per probe at 500 checks against 40,000, same build and run: what a quiet instance may cost more per probe. */
const QUIET_RATIO = 2.5;
/** RSS per check at 40,000 checks. */
const RSS_PER_CHECK_KB = 8;
const SIZES = (process.env.BENCH_LOAD_CHECKS ?? '500,2000,20000,40000,60000').split(',').map(Number);
const WARMUP_SECONDS = Number(process.env.BENCH_LOAD_WARMUP ?? 20);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 40);
const TARGET = fileURLToPath(new URL('./fixtures/http-target.js', import.meta.url));
const THIS_TREE = fileURLToPath(new URL('../..', import.meta.url));
/**
 * A built checkout to measure beside this tree, size by size in the same run (e.g. the main
 * before a change): its figures get rows and a pair table of their own; the headlines stay this build's.
 */
const BEFORE = process.env.BENCH_LOAD_BEFORE;

function rssBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

export interface LoadRun {
  checks: number;
  due: number;
  ran: number;
  onTime: number;
  failed: number;
  lagP99: number;
  cpuMsPerProbe: number;
  cpuPct: number;
  rss: number;
  capacityLine: string | null;
  /** Which build ran (with BENCH_LOAD_BEFORE). */
  build?: string;
}

/** How a measured server is started: the arguments after `node`, and extra environment. */
export interface ServeCommand {
  args: (configFile: string) => string[];
  env?: NodeJS.ProcessEnv;
  /** Settings beside the quiet log level (both sides of a comparison get the same). */
  config?: Record<string, unknown>;
  /** Holds the server (every thread) to this core with taskset. */
  core?: string;
}

export const VIGIL_SERVE: ServeCommand = { args: (configFile) => [CLI, 'serve', '--config', configFile] };

export interface LoadWindow {
  warmupSeconds: number;
  seconds: number;
  /** After the window, before stopping: late probes of due times inside it still run. */
  tailSeconds: number;
}

/** Seeds `checks` HTTP checks at 20 s against the target into `dir`; their ids. */
export async function seedLoadChecks(dir: string, checks: number, targetPort: number, build: SeedingBuild = THIS_BUILD): Promise<string[]> {
  return (await build.seedChecks(dir, checks, (i) => ({ url: `http://127.0.0.1:${targetPort}/c/${i}`, checkFrequency: INTERVAL_MS / 60_000 }))).ids;
}

/** Starts the server on a seeded data directory, measures one window, stops it and reads its rows. */
export async function measureServe(dataDir: string, ids: string[], serve: ServeCommand, window: LoadWindow): Promise<LoadRun> {
  const configFile = join(dataDir, 'bench.json');
  writeFileSync(configFile, JSON.stringify({ ...serve.config, logLevel: 'warn' }));
  const port = await freePort();
  const vigil = await spawnUntil(serve.args(configFile), { ...serve.env, VIGIL_DATA_DIR: dataDir, VIGIL_PORT: String(port) }, /listening on/, 120_000, serve.core);
  let log = '';
  vigil.stdout!.on('data', (c: Buffer) => (log += c.toString()));
  await new Promise((r) => setTimeout(r, window.warmupSeconds * 1000));
  const t0 = Date.now();
  const cpu0 = cpuSeconds(vigil.pid!);
  let rss = 0;
  const sampler = setInterval(() => (rss = Math.max(rss, rssBytes(vigil.pid!))), 1000);
  await new Promise((r) => setTimeout(r, window.seconds * 1000));
  const t1 = Date.now();
  const cpu = cpuSeconds(vigil.pid!) - cpu0;
  clearInterval(sampler);
  await new Promise((r) => setTimeout(r, window.tailSeconds * 1000));
  await stop(vigil);

  const db = new Database(join(dataDir, 'vigil.db'), { readonly: true });
  const idOfSeq = new Map(db.prepare('SELECT seq, id FROM checks').raw().all() as Array<[number, string]>);
  const tally = new DueTally(ids, INTERVAL_MS, t0, t1, ON_TIME_MS);
  for (const [seq, at, status] of db.prepare("SELECT check_seq, at, status FROM history WHERE kind = 'probe' AND at >= ?").raw().iterate(t0) as IterableIterator<[number, number, string]>) {
    tally.add(idOfSeq.get(seq)!, at, status);
  }
  // Probes in the window (by start time) for the CPU share, whatever due time they served.
  const probes = db.prepare("SELECT count(*) FROM history WHERE kind = 'probe' AND at >= ? AND at < ?").pluck().get(t0, t1) as number;
  db.close();
  return {
    checks: ids.length, ...tally.count(),
    cpuMsPerProbe: (cpu * 1000) / Math.max(1, probes),
    cpuPct: (cpu / ((t1 - t0) / 1000)) * 100,
    rss,
    capacityLine: capacityMessage(log),
  };
}

/** A build measured: this tree, or with BENCH_LOAD_BEFORE the built checkout it is compared with. */
interface LoadBuild {
  label: string;
  serve: ServeCommand;
}

/** Seeds once (by the oldest build measured), then measures each build on its own copy, in turn. */
async function run(checks: number, targetPort: number, builds: LoadBuild[], seeding: SeedingBuild): Promise<LoadRun[]> {
  const dir = tempDir('load');
  try {
    const seed = join(dir.path, 'seed');
    mkdirSync(seed);
    const ids = await seedLoadChecks(seed, checks, targetPort, seeding);
    const runs: LoadRun[] = [];
    for (const build of builds) {
      const data = join(dir.path, `data-${runs.length}`);
      cpSync(seed, data, { recursive: true });
      // Late probes of due times inside the window still run: give them one interval.
      const r = await measureServe(data, ids, build.serve, { warmupSeconds: WARMUP_SECONDS, seconds: SECONDS, tailSeconds: INTERVAL_MS / 1000 });
      runs.push({ ...r, build: build.label });
    }
    return runs;
  } finally {
    dir.remove();
  }
}

/** The engine's over-capacity warning, from the server's JSON log lines. */
function capacityMessage(log: string): string | null {
  const line = /[^\n]*over capacity[^\n]*/.exec(log)?.[0];
  if (line === undefined) return null;
  try {
    return (JSON.parse(line) as { msg: string }).msg;
  } catch {
    return line;
  }
}

function commitOf(root: string): string {
  try {
    return execFileSync('git', ['-C', root, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim();
  } catch {
    return root;
  }
}

export async function runLoadBench(): Promise<LoadRun[]> {
  const port = await freePort();
  const target = await spawnUntil([TARGET], { PORT: String(port) }, /listening/);
  const self: LoadBuild = { label: `this build (${commitOf(THIS_TREE)})`, serve: VIGIL_SERVE };
  const before: LoadBuild | null = BEFORE
    ? { label: `before (${commitOf(BEFORE)})`, serve: { args: (configFile) => [join(resolve(BEFORE), 'dist', 'src', 'cli.js'), 'serve', '--config', configFile] } }
    : null;
  const seeding = BEFORE ? await seedingBuild(resolve(BEFORE)) : THIS_BUILD;
  try {
    const runs: LoadRun[] = [];
    for (const [i, checks] of SIZES.entries()) {
      // With a build before, the two take turns as to which runs first.
      const builds = before ? (i % 2 === 0 ? [before, self] : [self, before]) : [self];
      const measured = await run(checks, port, builds, seeding);
      runs.push(...(before ? [measured.find((r) => r.build === before.label)!, measured.find((r) => r.build === self.label)!] : measured));
    }
    return runs;
  } finally {
    await stop(target);
  }
}

export function loadMarkdown(all: LoadRun[]): string {
  const pair = all.some((r) => r.build?.startsWith('before'));
  const runs = pair ? all.filter((r) => !r.build?.startsWith('before')) : all;
  const target = (checks: number) =>
    checks === 500 ? `≤ 1 ms/probe, ≤ ${fmt(QUIET_RATIO, 1)}× the 40,000-check figure` : checks === 20_000 ? '≤ 0.45 ms/probe' : checks === 40_000 ? `≥ 99% on time, ≤ ${RSS_PER_CHECK_KB} KB/check` : checks > 40_000 ? 'late, none failed or lost' : '-';
  const pct = (a: number, b: number) => `${fmt((a / Math.max(1, b)) * 100, 2)}%`;
  const lines = [
    `### Load: \`vigil serve\` probing HTTP checks at 20 s (local target in its own process; ${WARMUP_SECONDS} s warm-up, ${SECONDS} s measured)`,
    '',
    table([...(pair ? ['build'] : []), 'checks', 'probes/s due', 'ran (by due time)', `on time (≤ ${fmt(ON_TIME_MS)} ms late)`, 'lag p99 ms', 'failed', 'CPU per probe', 'process CPU', 'RSS', 'RSS per check', 'target'],
      (pair ? all : runs).map((r) => [
        ...(pair ? [r.build ?? '-'] : []), fmt(r.checks), fmt(r.due / SECONDS), pct(r.ran, r.due), pct(r.onTime, r.due), fmt(r.lagP99), fmt(r.failed),
        `${fmt(r.cpuMsPerProbe, 3)} ms`, `${fmt(r.cpuPct)}%`, `${fmt(r.rss / 2 ** 20)} MiB`, `${fmt(r.rss / r.checks / 1024, 1)} KB`, target(r.checks),
      ])),
  ];
  for (const r of pair ? all : runs) if (r.capacityLine) lines.push('', `${pair ? `${r.build}, ` : ''}${fmt(r.checks)} checks, the engine said: \`${r.capacityLine.trim()}\``);
  if (pair) lines.push('', quietPair(all));
  // A quiet instance is held to the busiest on-time size of the same run (issue 36 item 6).
  const busy = runs.find((r) => r.checks === 40_000);
  for (const r of runs) {
    if (r.checks === 500 || r.checks === 20_000) {
      const against = r.checks === 500 ? busy : undefined;
      lines.push(headline({
        measure: `CPU per probe, whole process, ${fmt(r.checks)} HTTP checks at 20 s (${fmt(r.due / SECONDS)} probes/s)`,
        figure: `${fmt(r.cpuMsPerProbe, 3)} ms`,
        baseline: against ? `same build at 40,000 checks (2,000 probes/s): ${fmt(against.cpuMsPerProbe, 3)} ms` : '-',
        ratio: against ? `${fmt(r.cpuMsPerProbe / against.cpuMsPerProbe, 1)}×` : '-',
        target: target(r.checks),
      }));
    } else if (r.checks === 40_000) {
      lines.push(headline({
        measure: `${fmt(r.checks)} HTTP checks at 20 s: probes on time, memory`,
        figure: `${pct(r.onTime, r.due)} on time, ${fmt(r.rss / r.checks / 1024, 1)} KB RSS per check`,
        baseline: '-',
        ratio: '-',
        target: target(r.checks),
      }));
    }
  }
  return lines.join('\n');
}

/** Each build's quiet-instance figures side by side: CPU per probe at 500 and 40,000 checks, their ratio, RSS per check at 40,000. */
function quietPair(all: LoadRun[]): string {
  const builds = [...new Set(all.map((r) => r.build ?? '-'))];
  const at = (build: string, checks: number) => all.find((r) => r.build === build && r.checks === checks);
  return table(['build', 'CPU per probe, 500 checks', 'CPU per probe, 40,000 checks', 'ratio', 'RSS per check, 40,000 checks', 'target'],
    builds.map((b) => {
      const quiet = at(b, 500);
      const busy = at(b, 40_000);
      return [
        b, quiet ? `${fmt(quiet.cpuMsPerProbe, 3)} ms` : '-', busy ? `${fmt(busy.cpuMsPerProbe, 3)} ms` : '-',
        quiet && busy ? `${fmt(quiet.cpuMsPerProbe / busy.cpuMsPerProbe, 1)}×` : '-', busy ? `${fmt(busy.rss / busy.checks / 1024, 1)} KB` : '-',
        `≤ ${fmt(QUIET_RATIO, 1)}×, ≤ ${RSS_PER_CHECK_KB} KB`,
      ];
    }));
}

runIfMain(import.meta.url, async () => loadMarkdown(await runLoadBench()));
