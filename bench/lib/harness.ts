import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export function tempDir(tag: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `vigil-bench-${tag}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * The two-core split of the HTTP benches: the server under test on one core, the load generator
 * on the other, so neither steals the other's CPU and a saturated server is really saturated.
 */
export const SERVER_CPU = '0';
export const LOADGEN_CPU = '1';

/** Spawns a server process (pinned to one core if asked) and resolves once its output matches `ready`. */
export function spawnUntil(args: string[], env: NodeJS.ProcessEnv, ready: RegExp, timeoutMs = 30_000, pinToCore?: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const options = { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'] };
    const child =
      pinToCore === undefined ? spawn(process.execPath, args, options) : spawn('taskset', ['-c', pinToCore, process.execPath, ...args], options);
    let seen = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start: ${seen.slice(-2000)}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (ready.test(seen)) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        child.stderr!.resume();
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (seen += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${seen.slice(-2000)}`));
    });
  });
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** CPU seconds a process has used (Linux /proc), to tell a saturated server from a saturated client. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export interface LoadResult {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  total: number;
  /** Server CPU use during the run, percent of one core (when a pid was given). */
  serverCpuPct?: number;
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

const WRK_SCRIPT = fileURLToPath(new URL('../../../bench/fixtures/requests.lua', import.meta.url));

/**
 * One wrk run (HTTP/1.1 keep-alive, one thread) pinned to the load generator's core, cycling
 * through `paths`. wrk is C: unlike a Node load generator it does not saturate before the server.
 */
export async function wrk(url: string, opts: WrkOptions): Promise<LoadResult> {
  const file = join(opts.dir, `wrk-paths-${process.pid}-${Date.now()}.txt`);
  writeFileSync(file, `${opts.paths.join('\n')}\n`);
  const headerArgs = Object.entries(opts.headers ?? {}).map(([k, v]) => `${k}: ${v}`);
  const args = ['-c', LOADGEN_CPU, 'wrk', '-t1', `-c${opts.connections}`, `-d${opts.seconds}s`, '--latency', '-s', WRK_SCRIPT, url,
    '--', file, opts.method ?? 'GET', opts.body ?? '', ...headerArgs];
  const cpuBefore = opts.serverPid ? cpuSeconds(opts.serverPid) : 0;
  const started = Date.now();
  const out = await new Promise<string>((resolve, reject) =>
    execFile('taskset', args, { encoding: 'utf8' }, (err, stdout, stderr) => (err ? reject(new Error(`wrk failed: ${stderr || err.message}`)) : resolve(stdout))),
  );
  const wall = (Date.now() - started) / 1000;
  return { ...parseWrk(out), serverCpuPct: opts.serverPid ? ((cpuSeconds(opts.serverPid) - cpuBefore) / wall) * 100 : undefined };
}

const MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

/** Reads wrk's text report (its only output format). */
export function parseWrk(out: string): LoadResult {
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? 0);
  const latency = (pct: string) => {
    const m = new RegExp(`^\\s+${pct}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(out);
    return m ? Number(m[1]) * MS[m[2]!]! : NaN;
  };
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const rps = num(/Requests\/sec:\s+([\d.]+)/);
  if (!rps && !/Requests\/sec/.test(out)) throw new Error(`unreadable wrk output: ${out}`);
  return {
    requestsPerSec: rps,
    p50Ms: latency('50'),
    p99Ms: latency('99'),
    // wrk counts "non-2xx or 3xx"; no Vigil route under test answers 3xx.
    non2xx: num(/Non-2xx or 3xx responses:\s+(\d+)/),
    errors: sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
    total: num(/(\d+) requests in/),
  };
}

/** A seeded shuffle, so every run sends the same varied sequence. */
export function shuffled<T>(items: T[], seed = 1): T[] {
  const out = items.slice();
  let x = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const j = (x >>> 0) % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** One autocannon run (HTTP/1.1 keep-alive, no pipelining). */
export async function load(
  url: string,
  opts: { connections: number; seconds: number; headers?: Record<string, string>; method?: string; body?: string; serverPid?: number },
): Promise<LoadResult> {
  const cpuBefore = opts.serverPid ? cpuSeconds(opts.serverPid) : 0;
  const r = await autocannon({
    url,
    connections: opts.connections,
    duration: opts.seconds,
    headers: opts.headers,
    method: (opts.method ?? 'GET') as 'GET',
    body: opts.body,
  });
  return {
    requestsPerSec: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    total: r.requests.total,
    serverCpuPct: opts.serverPid ? ((cpuSeconds(opts.serverPid) - cpuBefore) / opts.seconds) * 100 : undefined,
  };
}

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Server-side columns every HTTP table shares: rate, latency, share of baseline, CPU, failures. */
export function loadRow(name: string, r: LoadResult, baseline: LoadResult, target: string): Array<string | number> {
  return [
    name, fmt(r.requestsPerSec), fmt(r.p50Ms, 1), fmt(r.p99Ms, 1),
    r === baseline ? '100%' : `${fmt((r.requestsPerSec / baseline.requestsPerSec) * 100, 1)}%`, target,
    `${fmt(r.serverCpuPct ?? 0)}%`, fmt(r.non2xx), fmt(r.errors),
  ];
}

export const LOAD_COLUMNS = ['run', 'req/s', 'p50 ms', 'p99 ms', 'of baseline', 'target', 'server CPU', 'non-2xx', 'socket errors'];

export function table(header: string[], rows: Array<Array<string | number>>): string {
  const line = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Runs main() when the file is executed directly (node dist/bench/x.bench.js). */
export function runIfMain(metaUrl: string, main: () => Promise<string>): void {
  if (process.argv[1] && fileURLToPath(metaUrl) === process.argv[1]) {
    main().then(
      (report) => {
        process.stdout.write(`${report}\n`);
        process.exit(0);
      },
      (err: unknown) => {
        process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
        process.exit(1);
      },
    );
  }
}
