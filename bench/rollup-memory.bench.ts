import type { ProbeResult } from '../src/domain/probe-types.js';
import { hourKey, minuteKey, Rollup } from '../src/domain/rollup.js';
import { dayKey } from '../src/domain/cover.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { sqliteRollups } from '../src/store/sqlite/rollups.js';
import { fmt, runIfMain, table, tempDir } from './lib/harness.js';

/**
 * Issue 13, deliverable 3: what the open rollups hold per check under load. The heap profile
 * of a loaded instance found them the largest per-check holding. Each check gets a minute's
 * results at 20 s (3) of a local target's spread (1 to 5 ms), and, as a second row, 20 results
 * (a check every 3 s). The aggregator (only the open minute in memory, hours and days built
 * from written rows) is measured against the structure it replaced, built in the same process
 * from the same results: each check's open minute, hour and day, a Rollup of five histograms
 * each, in a list node per check and level. Measured with --expose-gc.
 */
const CHECKS = Number(process.env.BENCH_ROLLUP_CHECKS ?? 20_000);
const SAMPLES = [3, 20];

function result(at: number, rand: () => number): ProbeResult {
  const rt = 1 + rand() * 4;
  const connect = rand() * 0.5;
  return {
    ok: true, statusCode: 200, responseTime: rt, timing: { dns: 0, connect, tls: 0, ttfb: rt - connect, total: rt },
    error: null, snippet: null, ssl: null, location: null, startedAt: at,
  };
}

interface OldBucket {
  key: number;
  rollup: Rollup;
  next: OldBucket | null;
}

/** The replaced structure: three levels of open buckets, every result aggregated into each. */
function oldStructure(): { add(seq: number, r: ProbeResult): void; held: unknown } {
  const levels = [minuteKey, hourKey, dayKey].map((keyOf) => ({ keyOf, open: new Map<number, OldBucket>() }));
  return {
    held: levels,
    add(seq, r) {
      for (const { keyOf, open } of levels) {
        let b = open.get(seq);
        if (b === undefined) open.set(seq, (b = { key: keyOf(r.startedAt), rollup: new Rollup(), next: null }));
        b.rollup.add(r);
      }
    },
  };
}

export async function runRollupMemoryBench(): Promise<string> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const rows: string[][] = [];
  for (const samples of SAMPLES) {
    const dir = tempDir('rollup-memory');
    const store = openSqliteStore(dir.path);
    try {
      const at = Date.UTC(2026, 5, 1, 12, 0, 10);
      const heldBy = (feed: (seq: number, r: ProbeResult) => void): number => {
        let x = 12345;
        const rand = () => ((x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
        gc();
        const before = process.memoryUsage().heapUsed;
        for (let s = 0; s < samples; s++) for (let seq = 1; seq <= CHECKS; seq++) feed(seq, result(at + s * (40_000 / samples), rand));
        gc();
        return (process.memoryUsage().heapUsed - before) / CHECKS;
      };
      const old = oldStructure();
      const oldPerCheck = heldBy((seq, r) => old.add(seq, r));
      const rollups = sqliteRollups(store.db);
      const perCheck = heldBy((seq, r) => rollups.add(seq, r));
      // Both stay reachable until measured (and the new one must flush).
      void rollups.flushOpen(at + 3 * 86_400_000, false);
      if (old.held === null) throw new Error('unreachable');
      rows.push([
        `${samples} results a minute`,
        `${fmt(oldPerCheck)} bytes`,
        `${fmt(perCheck)} bytes`,
        `${fmt(oldPerCheck / Math.max(1, perCheck), 1)}× less`,
      ]);
    } finally {
      store.close();
      dir.remove();
    }
  }
  return [
    `### Open rollups under load (${fmt(CHECKS)} checks; JS heap held per check)`,
    '',
    table(['results per check', 'open minute, hour and day in memory (before, baseline)', 'open minute only (now)', 'ratio'], rows),
  ].join('\n');
}

runIfMain(import.meta.url, runRollupMemoryBench);
