import type { ChangeBus } from '../store/change-bus.js';
import type { ScopedJob } from '../util/job-runner.js';

/** Buckets per report: a bucket is a key or account id and two numbers, about 60 bytes. */
const REPORT_BUCKETS = 50;

interface Report {
  from: string;
  counts: Array<[bucket: string, windowStart: number, count: number]>;
}

/**
 * Rate limits across centrals: each central tells the others every second what it counted in
 * the buckets used since (over the change bus), and adds what they told it to its own counts.
 * A key spread over several centrals thus gets its one budget, give or take a second's requests.
 */
export class RateShare {
  /** bucket → central → its window's start and count. */
  private readonly others = new Map<string, Map<string, { start: number; count: number }>>();

  constructor(
    private readonly deps: {
      bus: ChangeBus;
      name: string;
      /** The limiter's windows counted since the last report. */
      changed: () => Array<[string, number, number]>;
      windowMs?: number;
    },
  ) {
    deps.bus.subscribe('rates', (payload) => this.heard(JSON.parse(payload) as Report));
  }

  /** The other centrals' requests in the bucket, in windows still running at `now`. */
  count(bucket: string, now: number): number {
    const byCentral = this.others.get(bucket);
    if (!byCentral) return 0;
    const windowMs = this.deps.windowMs ?? 60_000;
    let total = 0;
    for (const [central, w] of byCentral) {
      if (now - w.start < windowMs) total += w.count;
      else byCentral.delete(central);
    }
    if (byCentral.size === 0) this.others.delete(bucket);
    return total;
  }

  job(): ScopedJob {
    return {
      name: 'rate-share',
      scope: 'every-central',
      everyMs: 1_000,
      run: () => {
        const counts = this.deps.changed();
        // A few buckets per message: a notification stays far below PostgreSQL's 8,000 bytes.
        for (let i = 0; i < counts.length; i += REPORT_BUCKETS) {
          this.deps.bus.publish('rates', JSON.stringify({ from: this.deps.name, counts: counts.slice(i, i + REPORT_BUCKETS) } satisfies Report));
        }
      },
    };
  }

  private heard(report: Report): void {
    if (report.from === this.deps.name) return;
    for (const [bucket, start, count] of report.counts) {
      let byCentral = this.others.get(bucket);
      if (!byCentral) this.others.set(bucket, (byCentral = new Map()));
      byCentral.set(report.from, { start, count });
    }
  }
}
