import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WrkResult } from './wrk.js';

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
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
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

/** A wrk run with the server's CPU over it. */
export interface LoadResult extends WrkResult {
  /** Server CPU use during the run, percent of one core, whole process (when a pid was given). */
  serverCpuPct?: number;
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

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** One headline figure of a bench beside its baseline, for the README's summary (bench/docs.ts collects them). */
export interface Headline {
  measure: string;
  figure: string;
  baseline: string;
  ratio: string;
  target: string;
}

/** A headline as an HTML comment: invisible in the page, carried with its block of figures. */
export function headline(h: Headline): string {
  return `<!-- headline: ${JSON.stringify(h)} -->`;
}

/** The percentage a run reached of its baseline's rate. */
export const percentOf = (value: number, baseline: number): string => `${fmt((value / baseline) * 100, 1)}%`;

/** Server-side columns every HTTP table shares: rate, latency, share of baseline, CPU, failures. */
export function loadRow(name: string, r: LoadResult, baseline: LoadResult, target: string): Array<string | number> {
  return [
    name, fmt(r.requestsPerSec), fmt(r.p50Ms, 1), fmt(r.p99Ms, 1),
    r === baseline ? '100%' : percentOf(r.requestsPerSec, baseline.requestsPerSec), target,
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
