import { planCover, type CoverPlan, type Interval } from './ranges.js';

export const DAY_MS = 24 * 60 * 60 * 1000;

/** Start of the UTC day holding t (epoch ms). */
export function dayKey(t: number): number {
  return Math.floor(t / DAY_MS) * DAY_MS;
}

/** What limits each source for one check at the moment of a query (rollup-store.ts). */
export interface SourceLimits {
  /** Minute rows at or after this start may still lack buffered results; null: none open. */
  openMinuteFrom: number | null;
  /** The same for hour rows. */
  openHourFrom: number | null;
  /** The same for day rows. */
  openDayFrom: number | null;
  /** Raw rows before this may have been pruned; null: none were. */
  rawFrom: number | null;
  /** Minute rows before this may have been pruned; null: none were. */
  minutesFrom: number | null;
}

/** A CoverPlan whose whole UTC days are read from day rows. */
export interface ExactCover extends CoverPlan {
  days: Interval[];
}

/**
 * planCover, with whole UTC days taken out of the hour pieces, and each source used only
 * where it is complete: day, hour and minute pieces at or after the oldest open bucket of
 * their level fall to the next finer source (raw rows last). Open buckets are the current
 * minute, hour and day (a flush a minute keeps them so), so the raw tail is a minute or two.
 */
export function planExactCover(from: number, to: number, limits: SourceLimits): ExactCover {
  const plan = planCover(from, to, {
    rawFrom: limits.rawFrom ?? undefined,
    minutesFrom: limits.minutesFrom ?? undefined,
  });
  const dayCandidates: Interval[] = [];
  const hourCandidates: Interval[] = [];
  for (const [start, end] of plan.hours) {
    const dayStart = Math.ceil(start / DAY_MS) * DAY_MS;
    const dayEnd = dayKey(end);
    if (dayStart >= dayEnd) {
      hourCandidates.push([start, end]);
      continue;
    }
    hourCandidates.push([start, dayStart], [dayEnd, end]);
    dayCandidates.push([dayStart, dayEnd]);
  }
  const days: Interval[] = [];
  splitAt(dayCandidates, limits.openDayFrom, days, hourCandidates);
  const hours: Interval[] = [];
  const minuteCandidates: Interval[] = [...plan.minutes];
  splitAt(hourCandidates, limits.openHourFrom, hours, minuteCandidates);
  const minutes: Interval[] = [];
  const raw: Interval[] = [...plan.raw];
  splitAt(minuteCandidates, limits.openMinuteFrom, minutes, raw);
  return {
    from: plan.from,
    to: plan.to,
    raw: coalesce(raw),
    minutes: coalesce(minutes),
    hours: coalesce(hours),
    days: coalesce(days),
  };
}

/** Parts before `limit` go to `before`, the rest to `after` (a null limit: everything before). */
function splitAt(intervals: readonly Interval[], limit: number | null, before: Interval[], after: Interval[]): void {
  const at = limit ?? Number.POSITIVE_INFINITY;
  for (const [start, end] of intervals) {
    if (start < at) before.push([start, Math.min(end, at)]);
    if (end > at) after.push([Math.max(start, at), end]);
  }
}

/** Sorted, empty pieces dropped, touching pieces joined: fewer queries, same rows. */
function coalesce(intervals: Interval[]): Interval[] {
  const sorted = intervals.filter(([s, e]) => s < e).sort((a, b) => a[0] - b[0]);
  const out: Interval[] = [];
  for (const [start, end] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && last[1] >= start) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}
