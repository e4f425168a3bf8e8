import { addBucket, type BucketSums, type RollupReads } from '../store/rollup-store.js';
import { HOUR_MS, hourKey } from '../domain/rollup.js';

/** What the dashboard list shows beside a check's record, from hour rollups (never raw history). */
export interface CheckTrend {
  /** Share of successful probes over the last 24 hours, percent; null when nothing ran. */
  uptime24h: number | null;
  /** Average response time per hour, oldest first, 24 points; null for an hour without a successful probe. */
  sparkline: Array<number | null>;
}

/**
 * 24 h trends of many checks at once, without SQL on the hot path: a check's 23 closed hours and
 * the stored part of its open hour are read once per hour and kept (an open hour's row is only
 * written at shutdown, so it cannot move while the process runs); what the open hour gained
 * since is read from the rollup buffer in memory.
 */
export class CheckTrends {
  private readonly kept = new Map<number, { hour: number; buckets: BucketSums[]; openStored: BucketSums | undefined }>();

  constructor(private readonly rollups: Pick<RollupReads, 'buckets' | 'bufferedBucket'>) {}

  trend(seq: number, now: number): CheckTrend {
    const hour = hourKey(now);
    let kept = this.kept.get(seq);
    if (kept?.hour !== hour) {
      kept = {
        hour,
        buckets: this.rollups.buckets(seq, 'hour', hour - 23 * HOUR_MS, hour),
        openStored: this.rollups.buckets(seq, 'hour', hour, hour + HOUR_MS, false)[0],
      };
      this.kept.set(seq, kept);
    }
    const points: Array<BucketSums | undefined> = new Array(24);
    for (const b of kept.buckets) points[23 - (hour - b.at) / HOUR_MS] = b;
    const buffered = this.rollups.bufferedBucket(seq, 'hour', hour) ?? undefined;
    points[23] = kept.openStored && buffered ? addBucket(kept.openStored, buffered) : (kept.openStored ?? buffered);
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
    this.kept.delete(seq);
  }
}
