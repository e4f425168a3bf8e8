import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Tier } from '../../src/domain/plans.js';
import { ManualClock } from '../../src/domain/clock.js';
import { RawRetention } from '../../src/stats/retention.js';
import type { OpenBuckets, RetentionStore } from '../../src/store/rollup-store.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 8, 1);
const RAW_DAYS: Record<Tier, number> = { free: 7, indie: 30, nano: 60, pro: 90 };

/** Rows as sorted times per check; records every transaction and what it deleted. */
class FakeStore implements RetentionStore {
  readonly raw = new Map<number, number[]>();
  readonly minutes = new Map<number, number[]>();
  readonly transactions: number[] = [];
  readonly cutoffs = new Map<number, number>();
  private current = 0;
  inTransaction = false;
  open: OpenBuckets = { minuteFrom: null, hourFrom: null, dayFrom: null };

  constructor(private readonly tiers: Array<{ seq: number; tier: Tier }>) {}

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    assert.equal(this.inTransaction, false, 'transactions never overlap');
    this.inTransaction = true;
    this.current = 0;
    try {
      return await fn();
    } finally {
      this.inTransaction = false;
      this.transactions.push(this.current);
    }
  }
  openBuckets = async () => this.open;
  checkTiers = async () => this.tiers;
  async pruneRaw(seq: number, before: number, limit: number): Promise<number> {
    this.cutoffs.set(seq, before);
    return this.take(this.raw, seq, before, limit);
  }
  async pruneMinutes(seq: number, before: number, limit: number): Promise<number> {
    return this.take(this.minutes, seq, before, limit);
  }
  private take(rows: Map<number, number[]>, seq: number, before: number, limit: number): number {
    assert.ok(this.inTransaction, 'deletes happen inside a transaction');
    const list = rows.get(seq) ?? [];
    let n = 0;
    while (n < limit && list.length > 0 && (list[0] as number) < before) {
      list.shift();
      n++;
    }
    this.current += n;
    return n;
  }
}

const times = (fromDaysAgo: number, count: number, stepMs: number) =>
  Array.from({ length: count }, (_, i) => NOW - fromDaysAgo * DAY + i * stepMs);

test('raw history goes per plan, in transactions of at most the batch size, with the loop yielding between them', async () => {
  const store = new FakeStore([
    { seq: 1, tier: 'free' },
    { seq: 2, tier: 'pro' },
    { seq: 3, tier: 'indie' },
  ]);
  store.raw.set(1, times(10, 10 * 24 * 6, 600_000)); // 10 days, one row per 10 minutes
  store.raw.set(2, times(10, 10 * 24 * 6, 600_000));
  store.raw.set(3, times(40, 5, DAY));
  const retention = new RawRetention(store, new ManualClock(NOW), { rawDays: RAW_DAYS, batchSize: 100 });

  let finished = false;
  let midway = false;
  const run = retention.prune().then((r) => ((finished = true), r));
  setImmediate(() => (midway = !finished && store.transactions.length > 0));
  const report = await run;

  assert.ok(midway, 'other work ran between two transactions of one prune');
  assert.ok(store.transactions.every((n) => n <= 100));
  assert.equal(report.rawDeleted, 3 * 24 * 6 + 5);
  assert.equal(report.transactions, store.transactions.length);
  assert.ok((store.raw.get(1)![0] as number) >= NOW - 7 * DAY, 'free keeps 7 days');
  assert.equal(store.raw.get(2)!.length, 10 * 24 * 6, 'pro keeps 90 days');
  assert.equal(store.raw.get(3)!.length, 0, 'indie keeps 30 days');
  assert.deepEqual([store.cutoffs.get(1), store.cutoffs.get(2)], [NOW - 7 * DAY, NOW - 90 * DAY]);
});

test('minute rollups go after their own horizon; rows still needed to rebuild open buckets stay', async () => {
  const store = new FakeStore([{ seq: 1, tier: 'free' }]);
  store.minutes.set(1, times(100, 10, DAY));
  store.open = { minuteFrom: NOW - 20 * DAY, hourFrom: NOW - 25 * DAY, dayFrom: NOW - 30 * DAY };
  const report = await new RawRetention(store, new ManualClock(NOW), { rawDays: RAW_DAYS }).prune();
  assert.equal(report.minuteRowsDeleted, 8, 'older than 92 days');
  assert.equal(store.cutoffs.get(1), NOW - 30 * DAY, 'an old open bucket holds the raw cutoff back');
});

test('a prune asked for while one runs joins it', async () => {
  const store = new FakeStore([{ seq: 1, tier: 'free' }]);
  store.raw.set(1, times(30, 5000, 60_000));
  const retention = new RawRetention(store, new ManualClock(NOW), { rawDays: RAW_DAYS, batchSize: 1000 });
  const [a, b] = await Promise.all([retention.prune(), retention.prune()]);
  assert.equal(a, b);
  assert.equal(a.rawDeleted, 5000);
  assert.equal(store.transactions.filter((n) => n > 0).length, 5);
});
