import { planCover, type CoverPlan, type Interval } from './ranges.js';

export const DAY_MS = 24 * 60 * 60 * 1000;

/** Start of the UTC day holding t (epoch ms). */
export function dayKey(t: number): number {
  return Math.floor(t / DAY_MS) * DAY_MS;
}

/**
 * How far back one check's finer sources still reach (retention prunes them). Every rollup
 * bucket is complete when read with what is still buffered for it (rollup-store.ts), so only
 * pruning limits the plan.
 */
export interface SourceLimits {
  /** Raw rows before this may have been pruned; null: none were. */
  rawFrom: number | null;
  /** Minute rows before this may have been pruned; null: none were. */
  minutesFrom: number | null;
}

/** A CoverPlan whose whole UTC days are read from day rows. */
export interface ExactCover extends CoverPlan {
  days: Interval[];
}

/** planCover, with whole UTC days taken out of the hour pieces and read from day rows. */
export function planExactCover(from: number, to: number, limits: SourceLimits): ExactCover {
  const plan = planCover(from, to, {
    rawFrom: limits.rawFrom ?? undefined,
    minutesFrom: limits.minutesFrom ?? undefined,
  });
  const days: Interval[] = [];
  const hours: Interval[] = [];
  for (const [start, end] of plan.hours) {
    const dayStart = Math.ceil(start / DAY_MS) * DAY_MS;
    const dayEnd = dayKey(end);
    if (dayStart >= dayEnd) {
      hours.push([start, end]);
      continue;
    }
    hours.push([start, dayStart], [dayEnd, end]);
    days.push([dayStart, dayEnd]);
  }
  return {
    from: plan.from,
    to: plan.to,
    raw: coalesce([...plan.raw]),
    minutes: coalesce([...plan.minutes]),
    hours: coalesce(hours),
    days: coalesce(days),
  };
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
