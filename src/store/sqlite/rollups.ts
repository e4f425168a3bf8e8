import type { Synchronous } from '../synchronous.js';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { ProbeResult } from '../../domain/probe-types.js';
import { dayKey } from '../../domain/cover.js';
import { hourKey, Rollup, type RollupSample } from '../../domain/rollup.js';
import type { Interval } from '../../domain/ranges.js';
import type { Db } from '../db.js';
import { sumTotals, type BucketSums, type RollupLevel, type RollupStore, type RollupTotals } from '../rollup-store.js';
import { OpenMinutes } from './open-minutes.js';
import { DirectMinutes } from './direct-minutes.js';
import { sqliteRollupRows, type GroupedSums, type RollupRows } from './rollup-rows.js';
import { BUCKET_MS, sampleOf } from '../rows/rollups.js';

/**
 * The rollup aggregator (DESIGN 7). Only each check's open minute is held in memory (see
 * OpenMinutes); it is written when it closes (a result in a newer minute of the same check,
 * flushOpen, close at shutdown). Hour rows are built from minute rows, and day rows from hour
 * rows, once their bucket has passed: each level keeps a persisted "built until" mark, rows
 * before it are complete, and from it on a read sums the next finer level instead. Building
 * runs in short transactions between turns of the event loop, so the hour that 40,000 checks
 * close together does not stall probing. A minute written into an hour already built (a late
 * result) is merged into the hour and day rows too, in the same transaction.
 *
 * Exactness across a crash: the minute level's "open from" mark is lowered, in the writer's
 * transaction, before a minute bucket that would break it takes its first result, and raised
 * only by a flush; opening the store after a crash rebuilds minute rows from it on out of raw
 * history (which retention therefore keeps), and lowers the hour and day marks to it, so the
 * rows built from those minutes are built again. Only the server does that: a guest (the CLI,
 * beside a server that may be running) must not rebuild minutes whose results that server still
 * holds, or they would be written twice (see DirectMinutes).
 */

/** How long one building transaction may hold the event loop. */
const BUILD_SLICE_MS = 5;

/** The rollups as SQLite answers them: at once (the flush of open minutes stays a promise). */
export type SqliteRollups = Synchronous<Omit<RollupStore, 'flushOpen'>> & Pick<RollupStore, 'flushOpen'>;

export function sqliteRollups(db: Db, options: { guest?: boolean } = {}): SqliteRollups {
  const rows = sqliteRollupRows(db);
  const persisted = rows.openBuckets();
  const hours = new BuiltLevel('hour', persisted.hourFrom, rows);
  const days = new BuiltLevel('day', persisted.dayFrom, rows);
  // Days are built from built hours only.
  if (hours.from < days.from) days.setMark(dayKey(hours.from));

  const mergeInto = (level: RollupLevel, seq: number, at: number, rollup: Rollup) => {
    const existing = rows.get(level, seq, at);
    rows.put(level, seq, at, (existing === undefined ? rollup : Rollup.fromRow(existing).merge(rollup)).toRow());
  };
  const writeMinute = (seq: number, at: number, rollup: Rollup) => {
    mergeInto('minute', seq, at, rollup);
    if (!hours.isBuilt(seq, hourKey(at))) return;
    mergeInto('hour', seq, hourKey(at), rollup);
    if (days.isBuilt(seq, dayKey(at))) mergeInto('day', seq, dayKey(at), rollup);
  };
  const minutes = options.guest
    ? new DirectMinutes(writeMinute, () => {
        const marks = rows.openBuckets();
        hours.mark = marks.hourFrom;
        days.mark = marks.dayFrom;
      })
    : new OpenMinutes(persisted.minuteFrom, writeMinute, (at) => {
        rows.setOpenFrom('minute', at);
        // Nothing derived yet (a new database): the hour and day of the first minute are.
        if (at !== null && hours.mark === null) hours.setMark(hourKey(at));
        if (at !== null && days.mark === null) days.setMark(dayKey(at));
      });

  // Before any result can be buffered: minute rows from the persisted "open from" on may lack
  // results a crashed process held in memory. They are rebuilt from raw history (a minute or
  // two of it), and the hours and days holding them are built again from the minute rows.
  db.transaction(() => {
    const from = minutes.openFrom;
    if (from === null) return;
    if (hourKey(from) < hours.from) hours.setMark(hourKey(from));
    if (dayKey(from) < days.from) days.setMark(dayKey(from));
    rows.deleteFrom('minute', from);
    for (const seq of rows.checkSeqs()) for (const [at, sample] of rows.rawSamplesSince(seq, from)) minutes.add(seq, at, sample);
    minutes.flushBefore(Number.POSITIVE_INFINITY);
  })();

  /** Where each part of [from, to) of a level is read from: its own rows before its mark, finer rows after. */
  const sources = (level: RollupLevel, from: number, to: number): Array<[RollupLevel, number, number]> => {
    const out: Array<[RollupLevel, number, number]> = [];
    let start = from;
    const take = (source: RollupLevel, until: number) => {
      const end = Math.min(to, until);
      if (start < end) out.push([source, start, end]);
      start = Math.max(start, end);
    };
    if (level === 'day') take('day', days.from);
    if (level !== 'minute') take('hour', hours.from);
    take('minute', Number.POSITIVE_INFINITY);
    return out;
  };
  const bySource = (level: RollupLevel, intervals: readonly Interval[]) => {
    const out: Record<RollupLevel, Interval[]> = { minute: [], hour: [], day: [] };
    for (const [start, end] of intervals) for (const [source, a, b] of sources(level, start, end)) out[source].push([a, b]);
    return out;
  };
  const bufferedIn = (seq: number, intervals: readonly Interval[]) => intervals.flatMap(([start, end]) => minutes.buffered(seq, start, end));

  /** The level's buckets starting in [from, to) with results, summed from every source, in time order. */
  const grouped = (seq: number, level: RollupLevel, from: number, to: number, withBuffered: boolean): GroupedSums[] => {
    const size = BUCKET_MS[level];
    const out = new Map<number, GroupedSums>();
    const add = (sums: GroupedSums) => {
      const had = out.get(sums.at);
      out.set(sums.at, had ? addGrouped(had, sums) : sums);
    };
    for (const [source, a, b] of sources(level, from, to)) for (const sums of rows.grouped(source, seq, a, b, size)) add(sums);
    if (withBuffered) for (const [at, rollup] of minutes.buffered(seq, from, to)) add(groupedOf(at - (at % size), rollup));
    return [...out.values()].sort((a, b) => a.at - b.at);
  };

  // Building: one level's buckets in [mark, to) for every check, a slice of checks per
  // transaction (each slice a step), then the mark raised to `to`.
  function* build(level: BuiltLevel, finer: RollupLevel, to: number, sliceMs: number): Generator<void> {
    const from = level.mark;
    if (from === null || from >= to) return;
    const done = level.startBuilding(from, to);
    const seqs = rows.checkSeqs();
    let i = 0;
    while (i < seqs.length) {
      const started = performance.now();
      db.transaction(() => {
        while (i < seqs.length && performance.now() - started < sliceMs) {
          const seq = seqs[i++] as number;
          buildCheck(level.level, finer, seq, from, to);
          done.add(seq);
        }
      })();
      yield;
    }
    db.transaction(() => level.finishBuilding(to))();
  }
  const buildCheck = (level: RollupLevel, finer: RollupLevel, seq: number, from: number, to: number) => {
    for (const [at, row] of rows.summedRows(finer, seq, from, to, BUCKET_MS[level])) rows.put(level, seq, at, row);
  };
  /** Hours before now's hour, then the days those complete. */
  function* buildPassed(now: number, sliceMs: number): Generator<void> {
    yield* build(hours, 'minute', hourKey(now), sliceMs);
    if (hours.mark !== null) yield* build(days, 'hour', dayKey(hours.mark), sliceMs);
  }
  let building: Promise<void> | null = null;
  let closes = 0;
  const buildSpread = (now: number): Promise<void> => {
    building ??= (async () => {
      const generation = closes;
      for (const _ of buildPassed(now, BUILD_SLICE_MS)) {
        await yieldToEventLoop();
        // Closed meanwhile (the database may be gone): the marks say what is left.
        if (closes !== generation) return;
      }
    })().finally(() => {
      building = null;
    });
    return building;
  };

  const addSample = (seq: number, at: number, sample: RollupSample) => minutes.add(seq, at, sampleOf(sample.ok, sample.responseTime, sample.timing));

  return {
    add: (seq: number, result: ProbeResult) => addSample(seq, result.startedAt, result),
    addSample,
    flushOpen(now, spread = true) {
      db.transaction(() => minutes.flushBefore(now))();
      if (spread) return buildSpread(now);
      for (const _ of buildPassed(now, Number.POSITIVE_INFINITY));
      return Promise.resolve();
    },
    close() {
      closes++;
      db.transaction(() => minutes.flushBefore(Number.POSITIVE_INFINITY))();
    },
    openBuckets: () => rows.openBuckets(),
    horizons: (seq) => rows.horizons(seq),
    rows: (seq, level, intervals) => rows.rows(seq, level, intervals),
    rollup(seq, level, intervals) {
      const parts = bySource(level, intervals);
      const rollup = new Rollup();
      for (const source of ['day', 'hour', 'minute'] as const) if (parts[source].length > 0) rollup.merge(rows.rollup(seq, source, parts[source]));
      for (const [, buffered] of bufferedIn(seq, intervals)) rollup.merge(buffered);
      return rollup;
    },
    totals(seq, level, intervals) {
      const parts = bySource(level, intervals);
      const stored = (['day', 'hour', 'minute'] as const).filter((s) => parts[s].length > 0).map((s) => rows.totals(seq, s, parts[s]));
      return sumTotals([...stored, ...bufferedIn(seq, intervals).map(([, r]) => r)]);
    },
    bucketTotals: (seq, level, from, to) =>
      grouped(seq, level, from, to, true).map(({ at, total, success, failure, rtCount, rtSum, rtMin, rtMax }): [number, RollupTotals] => [
        at,
        { total, success, failure, rtCount, rtSum, rtMin, rtMax },
      ]),
    rawSamples: (seq, intervals) => rows.rawSamples(seq, intervals),
    buckets: (seq, level, from, to, withBuffered = true) => grouped(seq, level, from, to, withBuffered).map(bucketSumsOf),
    bufferedBucket(seq, level, at) {
      const start = at - (at % BUCKET_MS[level]);
      const parts = minutes.buffered(seq, start, start + BUCKET_MS[level]).map(([, rollup]) => groupedOf(start, rollup));
      return parts.length === 0 ? null : bucketSumsOf(parts.reduce(addGrouped));
    },
    bufferedIds: (seq) => minutes.ids(seq),
  };
}

/**
 * A level built from the next finer one. `mark`: rows before it are complete; null when nothing
 * is derived yet. While building [from, to), a check already done there has complete rows too.
 */
class BuiltLevel {
  mark: number | null;
  private building: { from: number; to: number; done: Set<number> } | null = null;

  constructor(
    readonly level: 'hour' | 'day',
    mark: number | null,
    private readonly rows: RollupRows,
  ) {
    this.mark = mark;
  }

  /** Where reads stop taking this level's rows. */
  get from(): number {
    return this.mark ?? Number.POSITIVE_INFINITY;
  }

  /** Whether the check's row for this bucket is built (a finer row written into it must be merged in too). */
  isBuilt(seq: number, key: number): boolean {
    const b = this.building;
    return key < this.from || (b !== null && key >= b.from && key < b.to && b.done.has(seq));
  }

  startBuilding(from: number, to: number): Set<number> {
    this.building = { from, to, done: new Set() };
    return this.building.done;
  }

  finishBuilding(to: number): void {
    this.building = null;
    // A building done at once (flushOpen without spreading) may have gone further meanwhile.
    if (this.mark === null || to > this.mark) this.setMark(to);
  }

  setMark(at: number | null): void {
    this.rows.setOpenFrom(this.level, at);
    this.mark = at;
  }
}

function groupedOf(at: number, r: Rollup): GroupedSums {
  const { dns, connect, tls, ttfb } = r.phases;
  return {
    at, total: r.total, success: r.success, failure: r.failure, rtCount: r.rtCount, rtSum: r.rtSum, rtMin: r.rtMin, rtMax: r.rtMax,
    dnsCount: dns.count, dnsSum: dns.sum, connectCount: connect.count, connectSum: connect.sum,
    tlsCount: tls.count, tlsSum: tls.sum, ttfbCount: ttfb.count, ttfbSum: ttfb.sum,
  };
}

function addGrouped(a: GroupedSums, b: GroupedSums): GroupedSums {
  return {
    ...sumTotals([a, b]), at: a.at,
    dnsCount: a.dnsCount + b.dnsCount, dnsSum: a.dnsSum + b.dnsSum, connectCount: a.connectCount + b.connectCount,
    connectSum: a.connectSum + b.connectSum, tlsCount: a.tlsCount + b.tlsCount, tlsSum: a.tlsSum + b.tlsSum,
    ttfbCount: a.ttfbCount + b.ttfbCount, ttfbSum: a.ttfbSum + b.ttfbSum,
  };
}

function bucketSumsOf(s: GroupedSums): BucketSums {
  return {
    at: s.at, total: s.total, success: s.success, rtCount: s.rtCount, rtSum: s.rtSum,
    dnsCount: s.dnsCount, dnsSum: s.dnsSum, connectCount: s.connectCount, connectSum: s.connectSum,
    tlsCount: s.tlsCount, tlsSum: s.tlsSum, ttfbCount: s.ttfbCount, ttfbSum: s.ttfbSum,
  };
}
