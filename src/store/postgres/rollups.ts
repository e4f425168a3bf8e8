import { Histogram } from '../../domain/histogram.js';
import { dayKey } from '../../domain/cover.js';
import { hourKey, minuteKey, PHASES, Rollup, type RollupRow, type RollupSample } from '../../domain/rollup.js';
import type { Interval } from '../../domain/ranges.js';
import type { ProbeResult } from '../../domain/probe-types.js';
import { sumTotals, type BucketSums, type Horizons, type OpenBuckets, type RollupLevel, type RollupStore, type RollupTotals } from '../rollup-store.js';
import { BUCKET_MS, HISTOGRAM_COLUMNS, ROLLUP_COLUMNS, ROLLUP_TABLE, sampleOf, type RollupValue } from '../rows/rollups.js';
import { timingOf } from '../rows/history.js';
import type { PgDb, Row } from './db.js';
import { arrayColumns } from './array-literals.js';
import type { Async } from './types.js';

/**
 * Rollups in PostgreSQL (DESIGN 7, the same reads as the SQLite store's). Nothing is held in
 * memory: each batch of results adds, in its own transaction, one partial row per check and
 * minute it touched (a bucket may so have several rows, and every read sums them), so a crash
 * loses nothing and several centrals may write the same check's minutes. Hour rows are built from
 * minute rows, and day rows from hour rows, once their bucket has passed, by whichever central's
 * job runs first (an exclusive advisory lock); a persisted mark per level says how far they are
 * built, and from it on a read sums the next finer level instead, in the same statement (one
 * snapshot). A result for an hour or day already built (a late one) adds its partial row to
 * those levels too, under a shared lock the builder's excludes.
 */

const MARK_KEY = { hour: 'rollups.openHourFrom', day: 'rollups.openDayFrom' } as const;
/** pg_advisory_xact_lock key of building (exclusive) and of late results (shared). */
const BUILD_LOCK = '7320537162440011777';
/** Results this close to (or past) an hour's end may meet a build of that hour: they take the shared lock. */
const LATE_MARGIN_MS = 120_000;
const NEVER = '9007199254740991';

/** The type of what each rollup column holds. */
const PG_TYPE: Record<RollupValue, string> = { count: 'integer', time: 'float8', histogram: 'bytea' };
const SUMS = `coalesce(sum(total), 0)::float8 AS total, coalesce(sum(success), 0)::float8 AS success, coalesce(sum(failure), 0)::float8 AS failure,
  coalesce(sum(rt_count), 0)::float8 AS "rtCount", coalesce(sum(rt_sum), 0)::float8 AS "rtSum", min(rt_min) AS "rtMin", max(rt_max) AS "rtMax",
  ${PHASES.map((p) => `coalesce(sum(${p}_count), 0)::float8 AS "${p}Count", coalesce(sum(${p}_sum), 0)::float8 AS "${p}Sum"`).join(', ')}`;
const HIST_AGGS = HISTOGRAM_COLUMNS.map((h) => `array_agg(${h}) AS ${h}`).join(', ');

/** One INSERT of many rollup rows of a level, unless their check is gone (a result recorded across its deletion). */
export const insertRows = (level: RollupLevel) => {
  const columns = ['check_seq', 'at', ...ROLLUP_COLUMNS.map(([c]) => c)];
  const types = ['bigint', 'bigint', ...ROLLUP_COLUMNS.map(([, , value]) => PG_TYPE[value])];
  return `INSERT INTO ${ROLLUP_TABLE[level]} (${columns.join(', ')})
    SELECT u.* FROM unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(', ')}) AS u(${columns.join(', ')})
    WHERE EXISTS (SELECT 1 FROM checks c WHERE c.seq = u.check_seq)`;
};

export const rowValues = (seq: number, at: number, row: RollupRow): unknown[] => [seq, at, ...ROLLUP_COLUMNS.map(([, field]) => row[field])];

/** A bucket of counts only (pings, failures): no response time, no phase; its row is an empty one's but for the counts. */
export const countsOnly = (r: Rollup): boolean => r.rtCount === 0 && PHASES.every((p) => r.phases[p].count === 0);

const COUNTS: ReadonlyArray<keyof RollupRow> = ['total', 'success', 'failure'];

/**
 * insertRows() for counts-only buckets: each row's check, time and three counts are sent
 * (`$1`..`$5`), every other column is the constant an empty rollup's row holds. Most of a
 * ping's rollup row is empty histograms and zero sums, which cost the most to send and parse.
 */
export const insertCountRows = (level: RollupLevel) => {
  const empty = new Rollup().toRow();
  const constant = (field: keyof RollupRow, type: string) => {
    const v = empty[field];
    if (v === null) return `NULL::${type}`;
    if (v instanceof Uint8Array) return `'\\x${Buffer.from(v).toString('hex')}'::bytea`;
    return `${String(v)}::${type}`;
  };
  const values = ROLLUP_COLUMNS.map(([column, field, value]) => (COUNTS.includes(field) ? `u.${column}` : constant(field, PG_TYPE[value])));
  return `INSERT INTO ${ROLLUP_TABLE[level]} (check_seq, at, ${ROLLUP_COLUMNS.map(([c]) => c).join(', ')})
    SELECT u.check_seq, u.at, ${values.join(', ')}
    FROM unnest($1::bigint[], $2::bigint[], $3::integer[], $4::integer[], $5::integer[]) AS u(check_seq, at, total, success, failure)
    WHERE EXISTS (SELECT 1 FROM checks c WHERE c.seq = u.check_seq)`;
};

export const countValues = (seq: number, at: number, r: Rollup): unknown[] => [seq, at, r.total, r.success, r.failure];

/**
 * The rows a level's read sums over the intervals (`$2` froms, `$3` tos): its own rows before its
 * mark, the next finer level's from there on. `cols` is what each source row gives.
 */
function sources(level: RollupLevel, cols: string): string {
  const marks = `(SELECT coalesce((SELECT value::bigint FROM meta WHERE key = '${MARK_KEY.hour}'), ${NEVER}) AS h,
    coalesce((SELECT value::bigint FROM meta WHERE key = '${MARK_KEY.day}'), ${NEVER}) AS d) m`;
  const from = (table: string, lower: string, upper: string) =>
    `SELECT ${cols} FROM ${table} r, unnest($2::bigint[], $3::bigint[]) AS iv(f, t), ${marks}
     WHERE r.check_seq = $1 AND r.at >= ${lower} AND r.at < ${upper}`;
  if (level === 'minute') return from('rollup_minute', 'iv.f', 'iv.t');
  if (level === 'hour') {
    return `${from('rollup_hour', 'iv.f', 'least(iv.t, m.h)')} UNION ALL ${from('rollup_minute', 'greatest(iv.f, m.h)', 'iv.t')}`;
  }
  return [
    from('rollup_day', 'iv.f', 'least(iv.t, m.d)'),
    from('rollup_hour', 'greatest(iv.f, m.d)', 'least(iv.t, m.h)'),
    from('rollup_minute', 'greatest(iv.f, m.d, m.h)', 'iv.t'),
  ].join(' UNION ALL ');
}

const SOURCE_COLS = `r.at, r.total, r.success, r.failure, r.rt_count, r.rt_sum, r.rt_min, r.rt_max, ${PHASES.map((p) => `r.${p}_count, r.${p}_sum`).join(', ')}`;
const SOURCE_COLS_HISTS = `${SOURCE_COLS}, ${HISTOGRAM_COLUMNS.map((h) => `r.${h}`).join(', ')}`;

/** One check's minute of a batch: [seq, minute start, what the batch adds to it]. */
export type Bucket = [seq: number, at: number, rollup: Rollup];

/** A batch's samples summed per check and minute. */
export function minuteBuckets(samples: ReadonlyArray<[number, number, RollupSample]>): Bucket[] {
  const buckets = new Map<string, Bucket>();
  for (const [seq, at, sample] of samples) {
    const key = minuteKey(at);
    const id = `${seq}:${key}`;
    let b = buckets.get(id);
    if (!b) buckets.set(id, (b = [seq, key, new Rollup()]));
    b[2].add(sampleOf(sample.ok, sample.responseTime, sample.timing));
  }
  return [...buckets.values()];
}

/** Buckets whose hour may have been built (results near or past an hour's end). */
export const lateOf = (list: Bucket[], now: number): Bucket[] => list.filter(([, at]) => hourKey(at) < hourKey(now + LATE_MARGIN_MS));

type Grouped = BucketSums & Pick<RollupTotals, 'failure' | 'rtMin' | 'rtMax'>;

export type PgRollupStore = Async<Omit<RollupStore, 'add' | 'addSample' | 'close' | 'flushOpen'>> &
  Pick<RollupStore, 'add' | 'addSample' | 'close' | 'flushOpen'> & {
    /** Writes the partial minute rows (and late hour and day rows) of a batch's samples, in the caller's unit of work. */
    write(samples: ReadonlyArray<[seq: number, at: number, sample: RollupSample]>, now: number): Promise<void>;
    /** The late part of write(), for a caller that inserted the minute rows itself (applyWrites' one statement). */
    mergeLate(buckets: Bucket[], now: number): Promise<void>;
  };

export function pgRollups(db: PgDb, failed: (err: unknown) => void): PgRollupStore {
  const intervalsOf = (intervals: readonly Interval[]) => [intervals.map(([a]) => a), intervals.map(([, b]) => b)];
  const marks = async (): Promise<{ hour: number | null; day: number | null }> => {
    const rows = await db.query<{ key: string; value: string }>('SELECT key, value FROM meta WHERE key = ANY($1)', [[MARK_KEY.hour, MARK_KEY.day]]);
    const of = (key: string) => {
      const r = rows.find((x) => x.key === key);
      return r ? Number(r.value) : null;
    };
    return { hour: of(MARK_KEY.hour), day: of(MARK_KEY.day) };
  };
  const setMark = (level: 'hour' | 'day', at: number) =>
    db.run('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [MARK_KEY[level], String(at)]);

  const insert = async (level: RollupLevel, rows: unknown[][]) => {
    if (rows.length > 0) await db.run(insertRows(level), arrayColumns(rows, 2 + ROLLUP_COLUMNS.length), `vigil_rollup_insert_${level}`);
  };

  const write = async (samples: ReadonlyArray<[number, number, RollupSample]>, now: number) => {
    const list = minuteBuckets(samples);
    await insert('minute', list.map(([seq, at, r]) => rowValues(seq, at, r.toRow())));
    await mergeLate(list, now);
  };

  /** Buckets whose hour (or day) may be built already are merged into it too, unless a build is running. */
  const mergeLate = async (list: Bucket[], now: number) => {
    const late = lateOf(list, now);
    if (late.length === 0) return;
    await db.transaction(async () => {
      await db.run(`SELECT pg_advisory_xact_lock_shared(${BUILD_LOCK})`);
      const m = await marks();
      const hours = late.filter(([, at]) => m.hour !== null && hourKey(at) < m.hour);
      await insert('hour', hours.map(([seq, at, r]) => rowValues(seq, hourKey(at), r.toRow())));
      await insert('day', hours.filter(([, at]) => m.day !== null && dayKey(at) < m.day).map(([seq, at, r]) => rowValues(seq, dayKey(at), r.toRow())));
    });
  };

  const addSample = (seq: number, at: number, sample: RollupSample) => {
    // Only applyWrites feeds rollups in this store; a direct call is written on its own.
    write([[seq, at, sample]], Date.now()).catch(failed);
  };

  /** Builds one level's buckets in [mark, to) from the finer level's rows, a slice of checks per statement. */
  const build = async (level: 'hour' | 'day', finer: RollupLevel, mark: number | null, to: number): Promise<number> => {
    let from = mark;
    if (from === null) {
      const first = await db.one<{ at: number | null }>(`SELECT min(at) AS at FROM ${ROLLUP_TABLE[finer]}`);
      from = first?.at === null || first?.at === undefined ? to : level === 'hour' ? hourKey(first.at) : dayKey(first.at);
    }
    if (from < to) {
      const size = BUCKET_MS[level];
      await db.run(`DELETE FROM ${ROLLUP_TABLE[level]} WHERE at >= $1 AND at < $2`, [from, to]);
      const seqs = (await db.query<{ check_seq: number }>(`SELECT DISTINCT check_seq FROM ${ROLLUP_TABLE[finer]} WHERE at >= $1 AND at < $2`, [from, to])).map((r) => r.check_seq);
      for (let i = 0; i < seqs.length; i += 500) {
        const grouped = await db.query(
          `SELECT check_seq, at - at % ${size} AS bucket, ${SUMS}, ${HIST_AGGS} FROM ${ROLLUP_TABLE[finer]}
           WHERE check_seq = ANY($1) AND at >= $2 AND at < $3 GROUP BY 1, 2`,
          [seqs.slice(i, i + 500), from, to],
        );
        await insert(level, grouped.map((g) => rowValues(g.check_seq as number, g.bucket as number, rowOfGrouped(g))));
      }
    }
    await setMark(level, to);
    return to;
  };

  let building: Promise<void> | null = null;
  const buildPassed = (now: number) =>
    db.transaction(async () => {
      await db.run(`SELECT pg_advisory_xact_lock(${BUILD_LOCK})`);
      const m = await marks();
      const hour = await build('hour', 'minute', m.hour, hourKey(now));
      await build('day', 'hour', m.day, dayKey(hour));
    });

  const grouped = async (seq: number, level: RollupLevel, from: number, to: number): Promise<Grouped[]> => {
    if (from >= to) return [];
    const size = BUCKET_MS[level];
    const rows = await db.query(
      `SELECT at - at % ${size} AS at, ${SUMS} FROM (${sources(level, SOURCE_COLS)}) s GROUP BY 1 ORDER BY 1`,
      [seq, [from], [to]],
    );
    return rows.map(groupedOf);
  };

  return {
    write,
    mergeLate,
    add: (seq: number, result: ProbeResult) => addSample(seq, result.startedAt, result),
    addSample,
    flushOpen(now) {
      building ??= buildPassed(now).finally(() => {
        building = null;
      });
      return building;
    },
    close() {},
    openBuckets: async (): Promise<OpenBuckets> => {
      const m = await marks();
      return { minuteFrom: null, hourFrom: m.hour, dayFrom: m.day };
    },
    horizons: async (seq) =>
      (await db.one<Horizons & Row>('SELECT raw_from AS "rawFrom", minutes_from AS "minutesFrom" FROM retention_horizons WHERE check_seq = $1', [seq])) ?? {
        rawFrom: null,
        minutesFrom: null,
      },
    async rows(seq, level, intervals) {
      const rows = await db.query(
        `SELECT ${ROLLUP_COLUMNS.map(([c, f]) => `r.${c} AS "${f}"`).join(', ')} FROM ${ROLLUP_TABLE[level]} r, unnest($2::bigint[], $3::bigint[]) AS iv(f, t)
         WHERE r.check_seq = $1 AND r.at >= iv.f AND r.at < iv.t`,
        [seq, ...intervalsOf(intervals)],
      );
      return rows as unknown as RollupRow[];
    },
    async rollup(seq, level, intervals) {
      const r = await db.one(`SELECT ${SUMS}, ${HIST_AGGS} FROM (${sources(level, SOURCE_COLS_HISTS)}) s`, [seq, ...intervalsOf(intervals)]);
      return Rollup.fromRow(rowOfGrouped(r!));
    },
    async totals(seq, level, intervals) {
      const r = await db.one(`SELECT ${SUMS} FROM (${sources(level, SOURCE_COLS)}) s`, [seq, ...intervalsOf(intervals)]);
      return sumTotals([totalsOf(r!)]);
    },
    bucketTotals: async (seq, level, from, to) => (await grouped(seq, level, from, to)).map((g): [number, RollupTotals] => [g.at, totalsOf(g as unknown as Row)]),
    buckets: async (seq, level, from, to) => (await grouped(seq, level, from, to)).map(bucketSumsOf),
    rawSamples: async (seq, intervals) => {
      const rows = await db.query(
        `SELECT h.status, h.response_time, h.total, h.dns, h.connect, h.tls, h.ttfb FROM history h, unnest($2::bigint[], $3::bigint[]) AS iv(f, t)
         WHERE h.check_seq = $1 AND h.at >= iv.f AND h.at < iv.t AND h.kind <> 'event' AND h.status IN ('up', 'down')`,
        [seq, ...intervalsOf(intervals)],
      );
      return rows.map((r) => {
        const timing = timingOf(r.total as number | null, r.dns as number | null, r.connect as number | null, r.tls as number | null, r.ttfb as number | null);
        return sampleOf(r.status === 'up', r.response_time as number | null, timing);
      });
    },
    bufferedBucket: async () => null,
    bufferedIds: async () => [],
  };
}

function totalsOf(r: Row): RollupTotals {
  return {
    total: r.total as number, success: r.success as number, failure: r.failure as number, rtCount: r.rtCount as number,
    rtSum: r.rtSum as number, rtMin: r.rtMin as number | null, rtMax: r.rtMax as number | null,
  };
}

function groupedOf(r: Row): Grouped {
  return {
    ...totalsOf(r), at: r.at as number,
    dnsCount: r.dnsCount as number, dnsSum: r.dnsSum as number, connectCount: r.connectCount as number, connectSum: r.connectSum as number,
    tlsCount: r.tlsCount as number, tlsSum: r.tlsSum as number, ttfbCount: r.ttfbCount as number, ttfbSum: r.ttfbSum as number,
  };
}

function bucketSumsOf(s: Grouped): BucketSums {
  return {
    at: s.at, total: s.total, success: s.success, rtCount: s.rtCount, rtSum: s.rtSum,
    dnsCount: s.dnsCount, dnsSum: s.dnsSum, connectCount: s.connectCount, connectSum: s.connectSum,
    tlsCount: s.tlsCount, tlsSum: s.tlsSum, ttfbCount: s.ttfbCount, ttfbSum: s.ttfbSum,
  };
}

/** A summed row with its histogram columns as arrays of blobs, as one RollupRow (histograms merged). */
function rowOfGrouped(g: Row): RollupRow {
  const merged = (column: string) => Histogram.mergeSerialized(((g[column] as Uint8Array[] | null) ?? []).filter((b) => b !== null)).serialize();
  return {
    total: g.total as number, success: g.success as number, failure: g.failure as number, rtCount: g.rtCount as number,
    rtSum: g.rtSum as number, rtMin: g.rtMin as number | null, rtMax: g.rtMax as number | null, rtHist: merged('rt_hist'),
    dnsCount: g.dnsCount as number, dnsSum: g.dnsSum as number, dnsHist: merged('dns_hist'),
    connectCount: g.connectCount as number, connectSum: g.connectSum as number, connectHist: merged('connect_hist'),
    tlsCount: g.tlsCount as number, tlsSum: g.tlsSum as number, tlsHist: merged('tls_hist'),
    ttfbCount: g.ttfbCount as number, ttfbSum: g.ttfbSum as number, ttfbHist: merged('ttfb_hist'),
  };
}
