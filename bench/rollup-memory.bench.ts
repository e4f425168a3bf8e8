import type { ProbeResult } from '../src/domain/probe-types.js';
import { hourKey, minuteKey, Rollup } from '../src/domain/rollup.js';
import { dayKey } from '../src/domain/cover.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { sqliteRollupRows } from '../src/store/sqlite/rollup-rows.js';
import { sqliteRollups } from '../src/store/sqlite/rollups.js';
import { seedChecks } from './lib/seed.js';
import { fmt, headline, runIfMain, table, tempDir } from './lib/harness.js';

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

/**
 * The hour boundary: every check's hour row built from its 60 minute rows. Spread (5 ms slices
 * between turns of the event loop, as the server runs it) against the same build at once (one
 * transaction), on the same rows; the event loop's longest stall is what probing would see.
 */
const BOUNDARY_CHECKS = Number(process.env.BENCH_ROLLUP_BOUNDARY_CHECKS ?? 10_000);

async function boundaryBuild(): Promise<string[][]> {
  const dir = tempDir('rollup-boundary');
  await seedChecks(dir.path, BOUNDARY_CHECKS, (i) => ({ url: `http://127.0.0.1:9/c/${i}`, checkFrequency: 1 }));
  const store = openSqliteStore(dir.path);
  try {
    const seqs = store.db.prepare('SELECT seq FROM checks').pluck().all() as number[];
    const hour = Date.UTC(2026, 5, 1, 12);
    let x = 7;
    const rand = () => ((x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const feeding = sqliteRollups(store.db);
    store.db.transaction(() => {
      for (let m = 0; m < 60; m++) for (const seq of seqs) feeding.add(seq, result(hour + m * 60_000 + 5_000, rand));
    })();
    feeding.close();
    const measure = async (spread: boolean): Promise<string[]> => {
      sqliteRollupRows(store.db).setOpenFrom('hour', hour);
      const rollups = sqliteRollups(store.db);
      let longest = 0;
      let last = performance.now();
      const timer = setInterval(() => {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
      }, 1);
      const started = performance.now();
      await rollups.flushOpen(hour + 3_600_000 + 60_000, spread);
      const took = performance.now() - started;
      const now = performance.now();
      longest = Math.max(longest, now - last);
      clearInterval(timer);
      const built = store.db.prepare('SELECT count(*) FROM rollup_hour WHERE at = ?').pluck().get(hour) as number;
      if (built !== seqs.length) throw new Error(`built ${built} hour rows for ${seqs.length} checks`);
      return [spread ? '5 ms slices between turns (as served)' : 'at once, one transaction (baseline)', `${fmt(took)} ms`, `${fmt(longest)} ms`];
    };
    return [await measure(false), await measure(true)];
  } finally {
    await store.close();
    dir.remove();
  }
}

export async function runRollupMemoryBench(): Promise<string> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const rows: string[][] = [];
  const headlines: string[] = [];
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
      if (samples === SAMPLES[0]) {
        headlines.push(headline({
          measure: `open rollups per check, ${samples} results a minute (20 s checks)`,
          figure: `${fmt(perCheck)} bytes`,
          baseline: `open minute, hour and day ${fmt(oldPerCheck)} bytes`,
          ratio: `${fmt(oldPerCheck / Math.max(1, perCheck), 1)}× less`,
          target: '-',
        }));
      }
      rows.push([
        `${samples} results a minute`,
        `${fmt(oldPerCheck)} bytes`,
        `${fmt(perCheck)} bytes`,
        `${fmt(oldPerCheck / Math.max(1, perCheck), 1)}× less`,
      ]);
    } finally {
      await store.close();
      dir.remove();
    }
  }
  return [
    `### Open rollups under load (${fmt(CHECKS)} checks; JS heap held per check)`,
    '',
    table(['results per check', 'open minute, hour and day in memory (before, baseline)', 'open minute only (now)', 'ratio'], rows),
    '',
    `### The hour boundary: ${fmt(BOUNDARY_CHECKS)} checks' hour rows built from 60 minute rows each`,
    '',
    table(['build', 'took', 'longest event-loop stall'], await boundaryBuild()),
    ...headlines,
  ].join('\n');
}

runIfMain(import.meta.url, runRollupMemoryBench);
