import type { Tier } from '../domain/plans.js';
import type { ProbeResult } from '../domain/probe-types.js';
import type { Interval } from '../domain/ranges.js';
import { addTotals, type Rollup, type RollupRow, type RollupSample, type RollupTotals } from '../domain/rollup.js';

/**
 * Rollups beside the store (DESIGN 7): the aggregator the store feeds inside each batch's
 * transaction (Store.applyWrites), and what statistics read back. SQLite now, like the rest.
 */

/**
 * Sees every recorded result inside the writer's transaction (rollups aggregate here), so a
 * result and its aggregates commit together.
 */
export interface ResultAggregator {
  add(checkSeq: number, result: ProbeResult): void;
}

export type RollupLevel = 'minute' | 'hour' | 'day';

/** The sums of a stretch of rollups, without histograms (multi-range statistics). */
export type { RollupTotals };

export function sumTotals(parts: readonly RollupTotals[]): RollupTotals {
  const out: RollupTotals = { total: 0, success: 0, failure: 0, rtCount: 0, rtSum: 0, rtMin: null, rtMax: null };
  for (const t of parts) addTotals(out, t);
  return out;
}

/**
 * Minute rows at or after `minuteFrom` may still lack results buffered in memory (or were, when
 * the process died); hour and day rows at or after `hourFrom` and `dayFrom` are not built yet
 * (reads sum the finer level there). null: nothing open, or nothing derived yet. Reads merge the
 * buffer, so statistics are exact while the process runs; after a crash, opening the store
 * rebuilds minute rows from raw history, which retention therefore keeps.
 */
export interface OpenBuckets {
  minuteFrom: number | null;
  hourFrom: number | null;
  dayFrom: number | null;
}

/** How far back the finer sources of one check still reach; null: nothing was pruned. */
export interface Horizons {
  rawFrom: number | null;
  minutesFrom: number | null;
}

/** The sums of one bucket, without histograms: a point of a chart or sparkline. */
export interface BucketSums {
  /** The bucket's UTC start. */
  at: number;
  total: number;
  success: number;
  rtCount: number;
  rtSum: number;
  dnsCount: number;
  dnsSum: number;
  connectCount: number;
  connectSum: number;
  tlsCount: number;
  tlsSum: number;
  ttfbCount: number;
  ttfbSum: number;
}

/** Two stretches of the same bucket summed (a stored row and what is buffered for it). */
export function addBucket(a: BucketSums, b: BucketSums): BucketSums {
  const out = { ...a };
  for (const k of Object.keys(b) as Array<keyof BucketSums>) if (k !== 'at') out[k] += b[k];
  return out;
}

export interface RollupReads {
  /** The check's buckets of one level starting in [from, to), oldest first, what is still buffered included unless told not to. */
  buckets(checkSeq: number, level: RollupLevel, from: number, to: number, withBuffered?: boolean): Promise<BucketSums[]>;
  /** What is buffered in memory for one bucket (the check's open minutes in it); null when nothing is. */
  bufferedBucket(checkSeq: number, level: RollupLevel, at: number): Promise<BucketSums | null>;
  /**
   * Ids of the check's buckets buffered in memory: when an id seen earlier is gone, that bucket
   * has been written to its row since (a reader caching rows knows to read them again).
   */
  bufferedIds(checkSeq: number): Promise<number[]>;
  openBuckets(): Promise<OpenBuckets>;
  horizons(checkSeq: number): Promise<Horizons>;
  /** Rows whose bucket start lies in one of the half-open intervals. */
  rows(checkSeq: number, level: RollupLevel, intervals: readonly Interval[]): Promise<RollupRow[]>;
  /** The buckets of the intervals (rows and what is buffered) summed into one Rollup, histograms merged (single-range statistics). */
  rollup(checkSeq: number, level: RollupLevel, intervals: readonly Interval[]): Promise<Rollup>;
  totals(checkSeq: number, level: RollupLevel, intervals: readonly Interval[]): Promise<RollupTotals>;
  /**
   * Each bucket of the level starting in [from, to) that has results, as [bucket start, totals]
   * in time order (rows and what is buffered): bars and sparklines in one read.
   */
  bucketTotals(checkSeq: number, level: RollupLevel, from: number, to: number): Promise<Array<[number, RollupTotals]>>;
  /**
   * Results whose time lies in one of the intervals: history rows that are not events, with
   * status up or down (a heartbeat's job-start ping is not a result). Whatever writes such a
   * row must hand the same result to the aggregator, or rollups and raw edges disagree.
   */
  rawSamples(checkSeq: number, intervals: readonly Interval[]): Promise<RollupSample[]>;
}

/**
 * Created at start, before results flow: creating it first rebuilds, from raw history, any
 * rollup rows a crashed process left short.
 */
export interface RollupStore extends ResultAggregator, RollupReads {
  /** A result that is not a probe (a heartbeat ping, up or down); `add` is this with the probe's start time. */
  addSample(checkSeq: number, at: number, sample: RollupSample): void;
  /**
   * Writes every buffered minute older than the current one, then builds the hour and day rows
   * of the hours and days before now, a few checks at a time between turns of the event loop;
   * resolves when they are built. Call about once a minute. `spread` false builds them at once
   * (tests and benches feeding results in a loop that never yields).
   */
  flushOpen(now: number, spread?: boolean): Promise<void>;
  /** Writes every buffered minute, the current ones too (shutdown, after the writer's last flush); stops building. */
  close(): void;
}

/** What raw-history retention needs from the store. */
export interface RetentionStore {
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  openBuckets(): Promise<OpenBuckets>;
  checkTiers(): Promise<Array<{ seq: number; tier: Tier }>>;
  /**
   * Deletes up to `limit` of the check's raw history rows older than `before`, oldest first, and
   * raises its raw horizon to `before` when it deletes any. Returns the number deleted.
   */
  pruneRaw(checkSeq: number, before: number, limit: number): Promise<number>;
  /** The same for minute rollups (hour and day rollups are kept for good). */
  pruneMinutes(checkSeq: number, before: number, limit: number): Promise<number>;
  /**
   * A store that partitions by time (PostgreSQL) drops whole partitions of raw history older than
   * `rawBefore` and of minute rollups older than `minutesBefore`, raising the horizons of the
   * checks they held; pruning row by row then only meets plans that keep less.
   */
  dropExpired?(rawBefore: number, minutesBefore: number): Promise<number>;
}
