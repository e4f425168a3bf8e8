import { HOUR_MS, MINUTE_MS } from './rollup.js';

/** The `ranges` query of multi-range stats (spec 4.2 rules 3-4) and the rollup cover of a window. */

const DAY_MS = 24 * HOUR_MS;

export const RANGE_MS = {
  '1h': HOUR_MS,
  '6h': 6 * HOUR_MS,
  '1d': DAY_MS,
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
  '60d': 60 * DAY_MS,
  '90d': 90 * DAY_MS,
} as const;
export type RangeName = keyof typeof RANGE_MS;
export const RANGE_NAMES = Object.keys(RANGE_MS) as RangeName[];
export const MAX_RANGES = 5;

export interface RangeSpec {
  name: RangeName;
  ms: number;
}

function isRangeName(value: string): value is RangeName {
  return Object.hasOwn(RANGE_MS, value);
}

/**
 * Parses "1h, 7d,30d". Items are trimmed and empty items (a trailing comma) skipped; names
 * are case-sensitive; a repeated name is kept once, in first-seen order, and the limit of
 * MAX_RANGES applies to distinct names (the answer is keyed by name, so a repeat adds nothing).
 * Returns the ranges, or the 400 message.
 */
export function parseRanges(query: string): RangeSpec[] | string {
  const allowed = `Allowed: ${RANGE_NAMES.join(', ')}`;
  const names: string[] = [];
  for (const item of query.split(',')) {
    const name = item.trim();
    if (name !== '' && !names.includes(name)) names.push(name);
  }
  if (names.length === 0) return `No range value given. ${allowed}`;
  const invalid = names.filter((name) => !isRangeName(name));
  if (invalid.length > 0) return `Invalid range value(s): ${invalid.join(', ')}. ${allowed}`;
  if (names.length > MAX_RANGES) return `Maximum ${MAX_RANGES} ranges per request`;
  return (names as RangeName[]).map((name) => ({ name, ms: RANGE_MS[name] }));
}

/** A multi-range window: ends at `to` and reaches back by the range length (decisions 6). */
export function rangeWindow(range: RangeSpec, to: number): { from: number; to: number } {
  return { from: to - range.ms, to };
}

/** Half-open [start, end), epoch ms. */
export type Interval = [start: number, end: number];

/**
 * Which source answers which part of a window. Every interval is half-open [start, end);
 * together, sorted by start, they tile [from, to) with no gap and no overlap. `minutes` and
 * `hours` intervals are aligned to UTC minute and hour starts, so a store sums the rollup
 * rows whose key k has start <= k < end; `raw` intervals are each inside one minute.
 * For an inclusive end, plan [from, to + 1).
 */
export interface CoverPlan {
  /** What the pieces cover: the asked window, widened only where a horizon forced it. */
  from: number;
  to: number;
  raw: Interval[];
  minutes: Interval[];
  hours: Interval[];
}

/** Oldest times each finer source still holds (retention); older pieces use a coarser source. */
export interface CoverHorizons {
  rawFrom?: number;
  minutesFrom?: number;
}

/**
 * Splits [from, to) into whole hours in the middle, whole minutes around them, and raw
 * fragments at the two ends, so the answer is exact and a long range reads at most
 * 2 raw fragments, 118 minute rows and one hour-row span. A piece older than a source's
 * horizon widens outward to the next coarser boundary (and `from`/`to` say so).
 */
export function planCover(from: number, to: number, horizons: CoverHorizons = {}): CoverPlan {
  if (!(from <= to)) throw new RangeError(`window starts after it ends: ${from} > ${to}`);
  const minutesFrom = horizons.minutesFrom ?? Number.NEGATIVE_INFINITY;
  // Raw rows are no use where the minutes around them are gone.
  const rawFrom = Math.max(horizons.rawFrom ?? Number.NEGATIVE_INFINITY, minutesFrom);
  let lo = from;
  let hi = to;
  for (;;) {
    const plan = tile(lo, hi);
    // A stale raw piece sits at an edge that is off the minute grid; so does a stale minute
    // piece with the hour grid. Widen that edge and tile again until every piece is in reach.
    const staleRaw = plan.raw.find(([start]) => start < rawFrom);
    if (staleRaw !== undefined) {
      if (staleRaw[0] === lo && lo % MINUTE_MS !== 0) lo = floorTo(lo, MINUTE_MS);
      else hi = ceilTo(hi, MINUTE_MS);
      continue;
    }
    const staleMinutes = plan.minutes.find(([start]) => start < minutesFrom);
    if (staleMinutes === undefined) return plan;
    if (staleMinutes[0] === lo && lo % HOUR_MS !== 0) lo = floorTo(lo, HOUR_MS);
    else hi = ceilTo(hi, HOUR_MS);
  }
}

function tile(from: number, to: number): CoverPlan {
  const plan: CoverPlan = { from, to, raw: [], minutes: [], hours: [] };
  const mFrom = ceilTo(from, MINUTE_MS);
  const mTo = floorTo(to, MINUTE_MS);
  if (mFrom > mTo) {
    push(plan.raw, from, to);
    return plan;
  }
  const hFrom = ceilTo(mFrom, HOUR_MS);
  const hTo = floorTo(mTo, HOUR_MS);
  push(plan.raw, from, mFrom);
  if (hFrom < hTo) {
    push(plan.minutes, mFrom, hFrom);
    push(plan.hours, hFrom, hTo);
    push(plan.minutes, hTo, mTo);
  } else {
    push(plan.minutes, mFrom, mTo);
  }
  push(plan.raw, mTo, to);
  return plan;
}

function push(list: Interval[], start: number, end: number): void {
  if (start < end) list.push([start, end]);
}

function floorTo(t: number, unit: number): number {
  return Math.floor(t / unit) * unit;
}

function ceilTo(t: number, unit: number): number {
  return Math.ceil(t / unit) * unit;
}
