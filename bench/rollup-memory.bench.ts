import type { ProbeResult } from '../src/domain/probe-types.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { sqliteRollups } from '../src/store/sqlite/rollups.js';
import { fmt, runIfMain, table, tempDir } from './lib/harness.js';

/**
 * Issue 13, deliverable 3: what the open rollups (the current minute, hour and day of every
 * check, each with response-time and four phase histograms) hold per check under load. The
 * heap profile of a loaded instance found them the largest per-check holding. Each check gets
 * 20 results of a local target's spread (1 to 5 ms) through the real aggregator; measured in a
 * fresh process with --expose-gc.
 */
const CHECKS = Number(process.env.BENCH_ROLLUP_CHECKS ?? 20_000);
const SAMPLES = 20;

function result(at: number, rand: () => number): ProbeResult {
  const rt = 1 + rand() * 4;
  const connect = rand() * 0.5;
  return {
    ok: true, statusCode: 200, responseTime: rt, timing: { dns: 0, connect, tls: 0, ttfb: rt - connect, total: rt },
    error: null, snippet: null, ssl: null, location: null, startedAt: at,
  };
}

export async function runRollupMemoryBench(): Promise<string> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const dir = tempDir('rollup-memory');
  const store = openSqliteStore(dir.path);
  try {
    const rollups = sqliteRollups(store.db);
    let x = 12345;
    const rand = () => ((x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const at = Date.UTC(2026, 5, 1, 12, 0, 10);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let s = 0; s < SAMPLES; s++) for (let seq = 1; seq <= CHECKS; seq++) rollups.add(seq, result(at + s, rand));
    gc();
    const perCheck = (process.memoryUsage().heapUsed - before) / CHECKS;
    rollups.flushOpen(at + 3 * 86_400_000); // keeps the rollups alive until measured (and checks they flush)
    return [
      `### Open rollups under load (${fmt(CHECKS)} checks, ${SAMPLES} results each, minute, hour and day open)`,
      '',
      table(['measure', 'per check'], [['JS heap held by the open rollups', `${fmt(perCheck)} bytes`]]),
    ].join('\n');
  } finally {
    store.close();
    dir.remove();
  }
}

runIfMain(import.meta.url, runRollupMemoryBench);
