import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { fmt, freePort, spawnUntil, stop, type LoadResult } from './harness.js';
import { SERVER_CORE, wrkAlternating, type AlternatingResult, type WrkOptions } from './wrk.js';

/**
 * Two `vigil serve` processes measured side by side (two builds, or two stores): both up at
 * once on the server core, wrk rounds taking turns between them, every other round starting
 * with the second, so the shared machine's drift falls on both alike.
 */
export interface ServeSpec {
  /** The CLI to run (`dist/src/cli.js` of some build). */
  cli: string;
  dataDir: string;
  /** The config file's settings (both sides of a comparison get the same, but what they compare). */
  config: Record<string, unknown>;
}

export interface Serving {
  url: string;
  pid: number;
  child: ChildProcess;
}

export const CONNECTIONS = 200;

async function serve(spec: ServeSpec): Promise<Serving> {
  const configFile = join(spec.dataDir, 'bench.json');
  writeFileSync(configFile, JSON.stringify({ ...spec.config, logLevel: 'info' }));
  const port = await freePort();
  const child = await spawnUntil([spec.cli, 'serve', '--config', configFile], { VIGIL_DATA_DIR: spec.dataDir, VIGIL_PORT: String(port) }, /listening on/, 60_000, SERVER_CORE);
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, child };
}

export interface RoundsOptions {
  rounds: number;
  roundSeconds: number;
  warmupSeconds: number;
  /** Where wrk's path file goes. */
  dir: string;
}

/** Starts both, measures `load` on each in turns (`baseline` is the first), stops both. */
export async function sideBySide(
  first: ServeSpec, second: ServeSpec, load: Pick<WrkOptions, 'paths' | 'method' | 'body' | 'headers'>, opts: RoundsOptions,
): Promise<AlternatingResult> {
  const started: Serving[] = [];
  try {
    for (const spec of [first, second]) started.push(await serve(spec));
    return await wrkAlternating(started[0]!, started[1]!, { ...load, ...opts, connections: CONNECTIONS, swapFirst: true });
  } finally {
    for (const s of started) await stop(s.child);
  }
}

/** Server CPU per answered request, µs (whole process, from /proc). */
export const cpuPerRequest = (r: LoadResult): number => ((r.serverCpuPct ?? 0) / 100 / Math.max(1, r.requestsPerSec)) * 1e6;

export const meanOf = (xs: number[]): number => xs.reduce((a, c) => a + c, 0) / Math.max(1, xs.length);

/** Mean server CPU per request over the rounds. */
export const meanCpuPerRequest = (rounds: LoadResult[]): number => meanOf(rounds.map(cpuPerRequest));

/** One table cell per round: its rate and server CPU per request. */
export const roundCells = (rounds: LoadResult[]): string[] => rounds.map((x) => `${fmt(x.requestsPerSec)} req/s, ${fmt(cpuPerRequest(x), 1)} µs`);

/** 2xx answers over the warm-up and the rounds (acknowledged pings). */
export const acknowledged = (runs: LoadResult[]): number => runs.reduce((n, r) => n + r.total - r.non2xx, 0);
