import type { CheckEvents } from '../domain/check-observer.js';
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
 * 24 h trends of many checks at once, without SQL on the hot path: a check's 23 closed hours are
 * read once per hour and kept, and so is the written part of its open hour (its minute rows)
 * until the store writes one of the minutes it then held in memory; what is still in memory is
 * read from the rollup buffer.
 */
export class CheckTrends {
  private readonly kept = new Map<number, { hour: number; buckets: BucketSums[]; openStored: BucketSums | undefined; bufferedIds: number[] }>();

  constructor(
    private readonly rollups: Pick<RollupReads, 'buckets' | 'bufferedBucket' | 'bufferedIds'>,
    /** A deleted check's kept hours go with it. */
    checks?: CheckEvents,
  ) {
    checks?.observe({ checkSaved: () => {}, checkDeleted: (check) => this.forget(check.seq) });
  }

  async trend(seq: number, now: number): Promise<CheckTrend> {
    const hour = hourKey(now);
    let kept = this.kept.get(seq);
    if (kept?.hour !== hour) {
      kept = { hour, buckets: await this.rollups.buckets(seq, 'hour', hour - 23 * HOUR_MS, hour), openStored: undefined, bufferedIds: [-1] };
      this.kept.set(seq, kept);
    }
    const ids = await this.rollups.bufferedIds(seq);
    if (kept.bufferedIds.some((id) => !ids.includes(id))) {
      kept.openStored = (await this.rollups.buckets(seq, 'hour', hour, hour + HOUR_MS, false))[0];
      kept.bufferedIds = ids;
    }
    const points: Array<BucketSums | undefined> = new Array(24);
    for (const b of kept.buckets) points[23 - (hour - b.at) / HOUR_MS] = b;
    const buffered = await this.rollups.bufferedBucket(seq, 'hour', hour) ?? undefined;
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
