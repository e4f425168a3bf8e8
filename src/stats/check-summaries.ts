import type { BucketSums, RollupReads } from '../store/rollup-store.js';
import { HOUR_MS, hourKey } from '../domain/rollup.js';

/** What the dashboard list shows beside a check's record, from hour rollups (never raw history). */
export interface CheckTrend {
  /** Share of successful probes over the last 24 hours, percent; null when nothing ran. */
  uptime24h: number | null;
  /** Average response time per hour, oldest first, 24 points; null for an hour without a successful probe. */
  sparkline: Array<number | null>;
}

/**
 * 24 h trends of many checks at once. The 23 closed hours of a check are read once per hour and
 * kept; only its open hour is read again per request, so a list of 10,000 checks costs 10,000
 * small reads of one row (or of the in-memory buffer).
 */
export class CheckTrends {
  private readonly closed = new Map<number, { hour: number; buckets: BucketSums[] }>();

  constructor(private readonly rollups: Pick<RollupReads, 'buckets'>) {}

  trend(seq: number, now: number): CheckTrend {
    const hour = hourKey(now);
    let kept = this.closed.get(seq);
    if (kept?.hour !== hour) {
      kept = { hour, buckets: this.rollups.buckets(seq, 'hour', hour - 23 * HOUR_MS, hour) };
      this.closed.set(seq, kept);
    }
    const points: Array<BucketSums | undefined> = new Array(24);
    for (const b of kept.buckets) points[23 - (hour - b.at) / HOUR_MS] = b;
    points[23] = this.rollups.buckets(seq, 'hour', hour, hour + HOUR_MS)[0];
    let total = 0;
    let success = 0;
    const sparkline: Array<number | null> = [];
    for (let i = 0; i < 24; i++) {
      const b = points[i];
      total += b?.total ?? 0;
      success += b?.success ?? 0;
      sparkline.push(b && b.rtCount > 0 ? Math.round(b.rtSum / b.rtCount) : null);
    }
    return { uptime24h: total === 0 ? null : Math.round((success / total) * 100_000) / 1000, sparkline };
  }

  /** A deleted check's kept hours go with it. */
  forget(seq: number): void {
    this.closed.delete(seq);
  }
}
