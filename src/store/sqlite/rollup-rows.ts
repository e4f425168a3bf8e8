import { Histogram } from '../../domain/histogram.js';
import type { Interval } from '../../domain/ranges.js';
import { PHASES, Rollup, type RollupRow, type RollupSample } from '../../domain/rollup.js';
import type { Db } from '../db.js';
import { BUCKET_MS, HISTOGRAM_COLUMNS, ROLLUP_COLUMNS, ROLLUP_TABLE, sampleOf } from '../rows/rollups.js';
import { timingOf } from '../rows/history.js';
import { sumTotals, type BucketSums, type Horizons, type OpenBuckets, type RollupLevel, type RollupTotals } from '../rollup-store.js';

/** SQLite rows of the rollup tables (migrations-rollups.ts), and raw history read as samples. */

const SELECT_ROW = ROLLUP_COLUMNS.map(([column, field]) => `${column} AS ${field}`).join(', ');
// Numbers are summed by SQLite and only the histogram blobs cross into JavaScript: reading a
// row as an object costs more than merging its histograms.
const SELECT_SUMS = `coalesce(sum(total), 0), coalesce(sum(success), 0), coalesce(sum(failure), 0),
  coalesce(sum(rt_count), 0), coalesce(sum(rt_sum), 0), min(rt_min), max(rt_max),
  ${PHASES.map((p) => `coalesce(sum(${p}_count), 0), coalesce(sum(${p}_sum), 0)`).join(', ')}`;
const SELECT_HISTS = HISTOGRAM_COLUMNS.join(', ');
const SELECT_TOTALS = `coalesce(sum(total), 0) AS total, coalesce(sum(success), 0) AS success,
  coalesce(sum(failure), 0) AS failure, coalesce(sum(rt_count), 0) AS rtCount,
  coalesce(sum(rt_sum), 0) AS rtSum, min(rt_min) AS rtMin, max(rt_max) AS rtMax`;

const SELECT_GROUPED = `sum(total) AS total, sum(success) AS success, sum(failure) AS failure,
  sum(rt_count) AS rtCount, sum(rt_sum) AS rtSum, min(rt_min) AS rtMin, max(rt_max) AS rtMax,
  ${PHASES.map((p) => `sum(${p}_count) AS ${p}Count, sum(${p}_sum) AS ${p}Sum`).join(', ')}`;

/** SELECT_GROUPED's columns of one row, for buckets of the level's own size. */
const SELECT_EACH = `total, success, failure, rt_count, rt_sum, rt_min, rt_max,
  ${PHASES.map((p) => `${p}_count, ${p}_sum`).join(', ')}`;

/** One bucket's sums (counts, response-time totals and phase sums), without histograms. */
export type GroupedSums = BucketSums & Pick<RollupTotals, 'failure' | 'rtMin' | 'rtMax'>;

/**
 * A row of SELECT_GROUPED, read as an array: better-sqlite3 builds a 16-key object per row on a
 * slow path, and a status page of 100 checks reads 9,000 of them (51 ms a render, 12 ms so).
 */
function groupedSumsOf(v: unknown[]): GroupedSums {
  const n = v as number[];
  return {
    at: n[0]!, total: n[1]!, success: n[2]!, failure: n[3]!, rtCount: n[4]!, rtSum: n[5]!, rtMin: n[6]!, rtMax: n[7]!,
    dnsCount: n[8]!, dnsSum: n[9]!, connectCount: n[10]!, connectSum: n[11]!, tlsCount: n[12]!, tlsSum: n[13]!, ttfbCount: n[14]!, ttfbSum: n[15]!,
  };
}

const OPEN_KEY: Record<RollupLevel, string> = {
  minute: 'rollups.openMinuteFrom',
  hour: 'rollups.openHourFrom',
  day: 'rollups.openDayFrom',
};

export interface RollupRows {
  get(level: RollupLevel, checkSeq: number, at: number): RollupRow | undefined;
  /** Writes the row unless the check no longer exists (a bucket buffered across its deletion). */
  put(level: RollupLevel, checkSeq: number, at: number, row: RollupRow): void;
  rows(checkSeq: number, level: RollupLevel, intervals: readonly Interval[]): RollupRow[];
  rollup(checkSeq: number, level: RollupLevel, intervals: readonly Interval[]): Rollup;
  totals(checkSeq: number, level: RollupLevel, intervals: readonly Interval[]): RollupTotals;
  /**
   * The level's rows in [from, to) summed per bucket of `size` ms (a coarser level's bucket, or
   * the level's own for one row each), in time order, without histograms.
   */
  grouped(level: RollupLevel, checkSeq: number, from: number, to: number, size: number): GroupedSums[];
  deleteFrom(level: RollupLevel, at: number): void;
  rawSamples(checkSeq: number, intervals: readonly Interval[]): RollupSample[];
  /** [at, sample] of every result at or after `from`, in time order. */
  rawSamplesSince(checkSeq: number, from: number): Array<[number, RollupSample]>;
  /**
   * The level's rows in [from, to) summed per bucket of `size` ms into whole rows, histograms
   * merged (a coarser level's rows built from this one's). SQLite sums the numbers; only the
   * histogram blobs cross into JavaScript.
   */
  summedRows(level: RollupLevel, checkSeq: number, from: number, to: number, size: number): Array<[number, RollupRow]>;
  horizons(checkSeq: number): Horizons;
  checkSeqs(): number[];
  openBuckets(): OpenBuckets;
  setOpenFrom(level: RollupLevel, at: number | null): void;
}

export function sqliteRollupRows(db: Db): RollupRows {
  const perLevel = (level: RollupLevel) => {
    const table = ROLLUP_TABLE[level];
    const names = ROLLUP_COLUMNS.map(([column]) => column);
    return {
      get: db.prepare(`SELECT ${SELECT_ROW} FROM ${table} WHERE check_seq = ? AND at = ?`),
      put: db.prepare(
        `INSERT OR REPLACE INTO ${table} (check_seq, at, ${names.join(', ')})
         SELECT ?, ?, ${names.map(() => '?').join(', ')} WHERE EXISTS (SELECT 1 FROM checks WHERE seq = ?)`,
      ),
      rows: db.prepare(`SELECT ${SELECT_ROW} FROM ${table} WHERE check_seq = ? AND at >= ? AND at < ?`),
      histsBetween: db.prepare(`SELECT at, ${SELECT_HISTS} FROM ${table} WHERE check_seq = ? AND at >= ? AND at < ? ORDER BY at`).raw(),
      sums: db.prepare(`SELECT ${SELECT_SUMS} FROM ${table} WHERE check_seq = ? AND at >= ? AND at < ?`).raw(),
      hists: db.prepare(`SELECT ${SELECT_HISTS} FROM ${table} WHERE check_seq = ? AND at >= ? AND at < ?`).raw(),
      totals: db.prepare(`SELECT ${SELECT_TOTALS} FROM ${table} WHERE check_seq = ? AND at >= ? AND at < ?`),
      grouped: db
        .prepare(`SELECT at - at % ? AS at, ${SELECT_GROUPED} FROM ${table} WHERE check_seq = ? AND ${table}.at >= ? AND ${table}.at < ? GROUP BY 1 ORDER BY 1`)
        .raw(),
      // A bucket of the level's own size is one row: no GROUP BY, whose temporary b-tree made a
      // status page's 90 day rows per check take twice as long.
      each: db.prepare(`SELECT at, ${SELECT_EACH} FROM ${table} WHERE check_seq = ? AND at >= ? AND at < ? ORDER BY at`).raw(),
      deleteFrom: db.prepare(`DELETE FROM ${table} WHERE at >= ?`),
    };
  };
  const stmts = { minute: perLevel('minute'), hour: perLevel('hour'), day: perLevel('day') };
  const raw = db
    .prepare(
      `SELECT status, response_time, total, dns, connect, tls, ttfb FROM history
       WHERE check_seq = ? AND at >= ? AND at < ? AND kind != 'event' AND status IN ('up', 'down')`,
    )
    .raw();
  const rawSince = db
    .prepare(
      `SELECT status, response_time, total, dns, connect, tls, ttfb, at FROM history
       WHERE check_seq = ? AND at >= ? AND kind != 'event' AND status IN ('up', 'down') ORDER BY at, id`,
    )
    .raw();
  const horizons = db.prepare('SELECT raw_from AS rawFrom, minutes_from AS minutesFrom FROM retention_horizons WHERE check_seq = ?');
  const checkSeqs = db.prepare('SELECT seq FROM checks').pluck();
  const getOpen = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
  const setOpen = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  const clearOpen = db.prepare('DELETE FROM meta WHERE key = ?');
  const readOpen = (level: RollupLevel): number | null => {
    const value = getOpen.get(OPEN_KEY[level]) as string | undefined;
    return value === undefined ? null : Number(value);
  };

  return {
    get: (level, seq, at) => stmts[level].get.get(seq, at) as RollupRow | undefined,
    put(level, seq, at, row) {
      stmts[level].put.run(seq, at, ...ROLLUP_COLUMNS.map(([, field]) => row[field]), seq);
    },
    rows(seq, level, intervals) {
      const out: RollupRow[] = [];
      for (const [start, end] of intervals) out.push(...(stmts[level].rows.all(seq, start, end) as RollupRow[]));
      return out;
    },
    rollup(seq, level, intervals) {
      const r = new Rollup();
      const blobs: Uint8Array[][] = [[], ...PHASES.map(() => [])];
      for (const [start, end] of intervals) {
        addSums(r, stmts[level].sums.get(seq, start, end) as number[]);
        for (const row of stmts[level].hists.iterate(seq, start, end) as Iterable<Uint8Array[]>) {
          for (let k = 0; k < blobs.length; k++) (blobs[k] as Uint8Array[]).push(row[k] as Uint8Array);
        }
      }
      r.rt = Histogram.mergeSerialized(blobs[0] as Uint8Array[]);
      PHASES.forEach((p, k) => (r.phases[p].hist = Histogram.mergeSerialized(blobs[k + 1] as Uint8Array[])));
      return r;
    },
    totals(seq, level, intervals) {
      return sumTotals(intervals.map(([start, end]) => stmts[level].totals.get(seq, start, end) as RollupTotals));
    },
    grouped(level, seq, from, to, size) {
      if (from >= to) return [];
      const rows = size === BUCKET_MS[level] ? stmts[level].each.all(seq, from, to) : stmts[level].grouped.all(size, seq, from, to);
      return (rows as unknown[][]).map(groupedSumsOf);
    },
    deleteFrom: (level, at) => void stmts[level].deleteFrom.run(at),
    rawSamples(seq, intervals) {
      const out: RollupSample[] = [];
      for (const [start, end] of intervals) {
        for (const r of raw.all(seq, start, end) as RawRow[]) out.push(sampleOfRaw(r));
      }
      return out;
    },
    summedRows(level, seq, from, to, size) {
      const sums = from < to ? (stmts[level].grouped.all(size, seq, from, to) as unknown[][]).map(groupedSumsOf) : [];
      if (sums.length === 0) return [];
      const blobs = new Map<number, Uint8Array[][]>(sums.map((s) => [s.at, HISTOGRAM_COLUMNS.map(() => [])]));
      for (const [at, ...hists] of stmts[level].histsBetween.iterate(seq, from, to) as Iterable<[number, ...Uint8Array[]]>) {
        const columns = blobs.get(at - (at % size)) as Uint8Array[][];
        hists.forEach((blob, k) => (columns[k] as Uint8Array[]).push(blob));
      }
      return sums.map((s): [number, RollupRow] => {
        const [rt, dns, connect, tls, ttfb] = (blobs.get(s.at) as Uint8Array[][]).map((column) => Histogram.mergeSerialized(column).serialize());
        return [s.at, {
          total: s.total, success: s.success, failure: s.failure, rtCount: s.rtCount, rtSum: s.rtSum, rtMin: s.rtMin, rtMax: s.rtMax, rtHist: rt as Uint8Array,
          dnsCount: s.dnsCount, dnsSum: s.dnsSum, dnsHist: dns as Uint8Array, connectCount: s.connectCount, connectSum: s.connectSum, connectHist: connect as Uint8Array,
          tlsCount: s.tlsCount, tlsSum: s.tlsSum, tlsHist: tls as Uint8Array, ttfbCount: s.ttfbCount, ttfbSum: s.ttfbSum, ttfbHist: ttfb as Uint8Array,
        }];
      });
    },
    rawSamplesSince(seq, from) {
      return (rawSince.all(seq, from) as Array<[...RawRow, number]>).map((r) => [r[7], sampleOfRaw(r)]);
    },
    horizons: (seq) => (horizons.get(seq) as Horizons | undefined) ?? { rawFrom: null, minutesFrom: null },
    checkSeqs: () => checkSeqs.all() as number[],
    openBuckets: () => ({ minuteFrom: readOpen('minute'), hourFrom: readOpen('hour'), dayFrom: readOpen('day') }),
    setOpenFrom(level, at) {
      if (at === null) clearOpen.run(OPEN_KEY[level]);
      else setOpen.run(OPEN_KEY[level], String(at));
    },
  };
}

/** Adds one SELECT_SUMS row (counts and sums; histograms are merged apart). */
function addSums(r: Rollup, sums: number[]): void {
  const [total, success, failure, rtCount, rtSum, rtMin, rtMax] = sums as [number, number, number, number, number, number | null, number | null];
  r.total += total;
  r.success += success;
  r.failure += failure;
  r.rtCount += rtCount;
  r.rtSum += rtSum;
  if (rtMin !== null && (r.rtMin === null || rtMin < r.rtMin)) r.rtMin = rtMin;
  if (rtMax !== null && (r.rtMax === null || rtMax > r.rtMax)) r.rtMax = rtMax;
  PHASES.forEach((p, k) => {
    r.phases[p].count += sums[7 + 2 * k] as number;
    r.phases[p].sum += sums[8 + 2 * k] as number;
  });
}

type RawRow = [status: string, responseTime: number | null, total: number | null, dns: number | null, connect: number | null, tls: number | null, ttfb: number | null];

function sampleOfRaw([status, responseTime, total, dns, connect, tls, ttfb]: RawRow | [...RawRow, number]): RollupSample {
  return sampleOf(status === 'up', responseTime, timingOf(total, dns, connect, tls, ttfb));
}
