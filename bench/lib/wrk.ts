import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, spawnUntil, type LoadResult } from './harness.js';

/**
 * Server benchmarks on a 2-core machine: the server pinned to core 0, wrk to core 1, so the
 * load generator never takes the server's CPU (autocannon in the same process would).
 */
export const SERVER_CORE = '0';
export const LOAD_CORE = '1';

export interface WrkResult {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** Responses received. */
  total: number;
}

/** Spawns `node args` pinned to the server core; resolves once its output matches `ready`. */
export function spawnPinned(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<ChildProcess> {
  return spawnUntil(args, env, ready, 30_000, SERVER_CORE);
}

function millis(text: string): number {
  const m = /([\d.]+)(us|ms|s)/.exec(text);
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 's' ? n * 1000 : n;
}

/** Parses wrk's --latency report. */
export function parseWrk(out: string): WrkResult {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (!rps) throw new Error(`wrk said: ${out}`);
  const percentile = (p: string) => millis(new RegExp(`\\s${p}%\\s+(\\S+)`).exec(out)?.[1] ?? '');
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const errs = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = errs ? errs.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  const total = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  return { requestsPerSec: Number(rps[1]), p50Ms: percentile('50'), p99Ms: percentile('99'), non2xx, errors, total };
}

function wrkArgs(opts: { connections: number; seconds: number; headers?: Record<string, string> }): string[] {
  const args = ['-c', LOAD_CORE, 'wrk', '-t1', `-c${opts.connections}`, `-d${opts.seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}: ${v}`);
  return args;
}

/** One wrk run from the load core (one thread, keep-alive). */
export function wrk(url: string, opts: { connections: number; seconds: number; headers?: Record<string, string> }): WrkResult {
  const r = spawnSync('taskset', [...wrkArgs(opts), url], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`wrk failed: ${r.stderr}`);
  return parseWrk(r.stdout);
}

/** The same, in the background, while something else is measured. */
export function wrkInBackground(url: string, opts: { connections: number; seconds: number; headers?: Record<string, string> }): Promise<WrkResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('taskset', [...wrkArgs(opts), url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', () => {
      try {
        resolve(parseWrk(out));
      } catch (err) {
        reject(err);
      }
    });
  });
}

export interface WrkOptions {
  connections: number;
  seconds: number;
  /** Request paths, cycled in order (shuffle them for variety); written to a file for the script. */
  paths: string[];
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  /** The server's pid: its whole-process CPU over the run is reported. */
  serverPid?: number;
  /** Where the path file goes. */
  dir: string;
}

const REQUESTS_SCRIPT = fileURLToPath(new URL('../../../bench/fixtures/requests.lua', import.meta.url));

/**
 * One wrk run (HTTP/1.1 keep-alive, one thread) pinned to the load generator's core, cycling
 * through `paths`. wrk is C: unlike a Node load generator it does not saturate before the server.
 */
export async function wrkRequests(url: string, opts: WrkOptions): Promise<LoadResult> {
  const file = join(opts.dir, `wrk-paths-${process.pid}-${Date.now()}.txt`);
  writeFileSync(file, `${opts.paths.join('\n')}\n`);
  const headerArgs = Object.entries(opts.headers ?? {}).map(([k, v]) => `${k}: ${v}`);
  const args = ['-c', LOAD_CORE, 'wrk', '-t1', `-c${opts.connections}`, `-d${opts.seconds}s`, '--latency', '-s', REQUESTS_SCRIPT, url,
    '--', file, opts.method ?? 'GET', opts.body ?? '', ...headerArgs];
  const cpuBefore = opts.serverPid ? cpuSeconds(opts.serverPid) : 0;
  const started = Date.now();
  const out = await new Promise<string>((resolve, reject) =>
    execFile('taskset', args, { encoding: 'utf8' }, (err, stdout, stderr) => (err ? reject(new Error(`wrk failed: ${stderr || err.message}`)) : resolve(stdout))),
  );
  const wall = (Date.now() - started) / 1000;
  return { ...parseWrk(out), serverCpuPct: opts.serverPid ? ((cpuSeconds(opts.serverPid) - cpuBefore) / wall) * 100 : undefined };
}

/** A server under test: its address and pid (for its CPU). */
export interface WrkTarget {
  url: string;
  pid: number;
}

export interface AlternatingResult {
  baseline: LoadResult;
  subject: LoadResult;
  /** The warm-up runs (their requests count as acknowledged too). */
  baselineWarmup: LoadResult;
  subjectWarmup: LoadResult;
  rounds: number;
  /** Every round as measured, in order. */
  baselineRounds: LoadResult[];
  subjectRounds: LoadResult[];
}

/**
 * Baseline and subject measured in turns on the same core, after a warm-up of each (V8's tiers,
 * SQLite's page cache): this machine's speed drifts by a fifth between runs a few seconds apart,
 * and alternating short rounds lets the drift hit both alike instead of one. With `swapFirst`,
 * every other round starts with the subject (baseline, subject, subject, baseline, …), so a
 * steady drift favours neither.
 */
export async function wrkAlternating(
  baseline: WrkTarget,
  subject: WrkTarget,
  opts: Omit<WrkOptions, 'serverPid' | 'seconds'> & { rounds: number; roundSeconds: number; warmupSeconds: number; swapFirst?: boolean },
): Promise<AlternatingResult> {
  const run = (t: WrkTarget, seconds: number) => wrkRequests(t.url, { ...opts, seconds, serverPid: t.pid });
  const baselineWarmup = await run(baseline, opts.warmupSeconds);
  const subjectWarmup = await run(subject, opts.warmupSeconds);
  const base: LoadResult[] = [];
  const sub: LoadResult[] = [];
  for (let i = 0; i < opts.rounds; i++) {
    if (opts.swapFirst && i % 2 === 1) {
      sub.push(await run(subject, opts.roundSeconds));
      base.push(await run(baseline, opts.roundSeconds));
    } else {
      base.push(await run(baseline, opts.roundSeconds));
      sub.push(await run(subject, opts.roundSeconds));
    }
  }
  return { baseline: combined(base), subject: combined(sub), baselineWarmup, subjectWarmup, rounds: opts.rounds, baselineRounds: base, subjectRounds: sub };
}

/** Rounds of equal length as one run: rates and CPU averaged, counts summed, the median p50, the worst p99. */
function combined(rounds: LoadResult[]): LoadResult {
  const mean = (f: (r: LoadResult) => number) => rounds.reduce((sum, r) => sum + f(r), 0) / rounds.length;
  const sum = (f: (r: LoadResult) => number) => rounds.reduce((s, r) => s + f(r), 0);
  const p50s = rounds.map((r) => r.p50Ms).sort((a, b) => a - b);
  return {
    requestsPerSec: mean((r) => r.requestsPerSec),
    p50Ms: p50s[Math.floor(p50s.length / 2)]!,
    p99Ms: Math.max(...rounds.map((r) => r.p99Ms)),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    total: sum((r) => r.total),
    serverCpuPct: rounds.every((r) => r.serverCpuPct !== undefined) ? mean((r) => r.serverCpuPct!) : undefined,
  };
}
