import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Tier } from '../domain/plans.js';
import type { Clock } from '../domain/clock.js';
import type { RetentionStore } from '../store/rollup-store.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Minute rollups are kept this long, so every allowed range (up to 90 days) still starts on
 * an exact minute; older stretches are answered from hour rollups, which are kept for good.
 */
export const MINUTE_ROLLUP_DAYS = 92;

export interface RetentionOptions {
  /** Days of raw history per plan (config `retention.rawDays`). */
  rawDays: Record<Tier, number>;
  /** Rows deleted per transaction: the write lock is never held for long. */
  batchSize?: number;
  minuteRollupDays?: number;
}

export interface PruneReport {
  rawDeleted: number;
  minuteRowsDeleted: number;
  transactions: number;
}

/**
 * Prunes raw history past each plan's retention, and minute rollups past MINUTE_ROLLUP_DAYS,
 * in small transactions with a turn of the event loop between them, so probe results and
 * requests keep flowing. Rollup rows and state changes are never pruned here. Call it hourly;
 * a run still going when the next is due makes that one a no-op.
 */
export class RawRetention {
  private running: Promise<PruneReport> | null = null;

  constructor(
    private readonly store: RetentionStore,
    private readonly clock: Clock,
    private readonly options: RetentionOptions,
  ) {}

  prune(): Promise<PruneReport> {
    if (this.running) return this.running;
    this.running = this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async run(): Promise<PruneReport> {
    const now = this.clock.now();
    const report: PruneReport = { rawDeleted: 0, minuteRowsDeleted: 0, transactions: 0 };
    // Rows still needed to rebuild rollups after a crash stay, however old.
    const open = await this.store.openBuckets();
    const keep = Math.min(open.minuteFrom ?? Infinity, open.hourFrom ?? Infinity, open.dayFrom ?? Infinity);
    const minuteDays = this.options.minuteRollupDays ?? MINUTE_ROLLUP_DAYS;
    if (this.store.dropExpired) {
      // Whole partitions past every plan's retention go first, without deleting a row.
      const longest = Math.max(...Object.values(this.options.rawDays));
      await this.store.dropExpired(Math.min(now - longest * DAY_MS, keep), Math.min(now - minuteDays * DAY_MS, keep));
    }
    const checks = await this.store.checkTiers();
    report.rawDeleted = await this.sweep(checks, report, (c) => Math.min(now - this.options.rawDays[c.tier] * DAY_MS, keep), (seq, before, limit) =>
      this.store.pruneRaw(seq, before, limit),
    );
    report.minuteRowsDeleted = await this.sweep(checks, report, () => Math.min(now - minuteDays * DAY_MS, keep), (seq, before, limit) =>
      this.store.pruneMinutes(seq, before, limit),
    );
    return report;
  }

  /** Walks the checks, each transaction deleting up to batchSize rows across as many checks as it takes. */
  private async sweep(
    checks: ReadonlyArray<{ seq: number; tier: Tier }>,
    report: PruneReport,
    cutoff: (check: { seq: number; tier: Tier }) => number,
    prune: (seq: number, before: number, limit: number) => Promise<number>,
  ): Promise<number> {
    const batchSize = this.options.batchSize ?? 2000;
    let deleted = 0;
    let i = 0;
    while (i < checks.length) {
      await this.store.transaction(async () => {
        let budget = batchSize;
        while (budget > 0 && i < checks.length) {
          const check = checks[i] as { seq: number; tier: Tier };
          const n = await prune(check.seq, cutoff(check), budget);
          deleted += n;
          budget -= n;
          // Fewer than asked: this check has nothing older left.
          if (budget > 0) i++;
        }
      });
      report.transactions++;
      await yieldToEventLoop();
    }
    return deleted;
  }
}
