import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RollupRow } from '../../src/domain/rollup.js';
import { HOUR_MS, MINUTE_MS } from '../../src/domain/rollup.js';
import { DAY_MS } from '../../src/domain/cover.js';
import { sampleOf } from '../../src/store/sqlite/rollup-rows.js';
import { openStatsWorld, type StatsWorld } from '../helpers/stats-world.js';

const T = Date.UTC(2026, 6, 1, 9); // 09:00:00Z
const DAY = Date.UTC(2026, 6, 1);
const ok = (responseTime: number) => ({ ok: true, responseTime, timing: null });

describe('the stats world reads the rollups the store writes', () => {
  test("a sample the store's write path aggregates is in the world's rollups at the next flush", () => {
    const world = openStatsWorld(T);
    try {
      const account = world.accounts.createAccount('seam@example.com', 'pro');
      const key = world.accounts.createKey({ account: account.id, scopes: ['checks:write'] }).key;
      const id = world.checks.create(world.principal(key), { url: 'https://x.example.com/', checkFrequency: 1 }).id;
      const seq = world.store.checks.byId(id)!.seq;
      world.store.rollups.addSample(seq, T + 5_000, ok(100));
      void world.rollups.flushOpen(T + MINUTE_MS, false);
      assert.equal(world.rollups.rows(seq, 'minute', [[T, T + 1]])[0]?.total, 1, 'one aggregator, not two over one database');
    } finally {
      world.close();
    }
  });
});

describe('rollup store: buckets, open-from marks, merging writes', () => {
  let world: StatsWorld;
  let seq: number;
  let checkId: string;
  let key: string;

  before(() => {
    world = openStatsWorld(T);
    const account = world.accounts.createAccount('rollups@example.com', 'pro');
    key = world.accounts.createKey({ account: account.id, scopes: ['checks:read', 'checks:write', 'checks:delete'] }).key;
    checkId = world.checks.create(world.principal(key), { url: 'https://x.example.com/', checkFrequency: 1 }).id;
    seq = world.store.checks.byId(checkId)!.seq;
  });
  after(() => world.close());

  const row = (level: 'minute' | 'hour' | 'day', at: number): RollupRow | undefined =>
    world.rollups.rows(seq, level, [[at, at + 1]])[0];

  test('a minute is written when the check moves on, a flush, or close; hours and days are built once passed', async () => {
    const { rollups } = world;
    assert.deepEqual(rollups.openBuckets(), { minuteFrom: null, hourFrom: null, dayFrom: null });
    rollups.addSample(seq, T + 5_000, ok(100));
    rollups.addSample(seq, T + 35_000, ok(300));
    assert.deepEqual(rollups.openBuckets(), { minuteFrom: T, hourFrom: T, dayFrom: DAY }, 'lowered as the first bucket opens');
    assert.equal(row('minute', T), undefined, 'nothing written while the minute is open');

    rollups.addSample(seq, T + MINUTE_MS + 1, { ok: false, responseTime: null, timing: null });
    const first = row('minute', T)!;
    assert.deepEqual([first.total, first.success, first.rtCount, first.rtSum, first.rtMin, first.rtMax], [2, 2, 2, 400, 100, 300]);
    assert.deepEqual(rollups.openBuckets(), { minuteFrom: T, hourFrom: T, dayFrom: DAY }, 'only a flush raises the marks');

    await rollups.flushOpen(T + 2 * MINUTE_MS);
    assert.equal(row('minute', T + MINUTE_MS)!.failure, 1);
    assert.deepEqual(rollups.openBuckets(), { minuteFrom: null, hourFrom: T, dayFrom: DAY }, 'the hour and the day are not built yet');
    assert.equal(row('hour', T), undefined);
    assert.deepEqual([rollups.totals(seq, 'hour', [[T, T + HOUR_MS]]).total, rollups.totals(seq, 'day', [[DAY, DAY + DAY_MS]]).failure], [3, 1], 'read from the minutes');

    rollups.close();
    assert.equal(row('hour', T), undefined, 'close writes minutes only: the marks say what is left to build');
    await rollups.flushOpen(T + HOUR_MS);
    assert.deepEqual([row('hour', T)!.total, row('hour', T)!.failure, row('hour', T)!.rtSum], [3, 1, 400], 'built from its minute rows once passed');
    assert.deepEqual(rollups.openBuckets(), { minuteFrom: null, hourFrom: T + HOUR_MS, dayFrom: DAY });
    assert.equal(row('day', DAY), undefined, 'the day is still going');
    await rollups.flushOpen(DAY + DAY_MS);
    assert.deepEqual([row('day', DAY)!.total, row('day', DAY)!.rtSum], [3, 400], 'built from its hour rows');
    assert.deepEqual(rollups.openBuckets(), { minuteFrom: null, hourFrom: DAY + DAY_MS, dayFrom: DAY + DAY_MS });
  });

  test('a late result for a written minute merges into its row, and into the built hour and day', async () => {
    const { rollups } = world;
    rollups.addSample(seq, T + 50_000, ok(50));
    assert.equal(rollups.openBuckets().minuteFrom, T, 'reopening an old minute lowers its mark again');
    assert.equal(rollups.totals(seq, 'day', [[DAY, DAY + DAY_MS]]).total, 4, 'read while buffered');
    await rollups.flushOpen(T + 2 * HOUR_MS);
    const merged = row('minute', T)!;
    assert.deepEqual([merged.total, merged.rtCount, merged.rtSum, merged.rtMin, merged.rtMax], [3, 3, 450, 50, 300]);
    assert.deepEqual([row('hour', T)!.total, row('hour', T)!.rtMin], [4, 50]);
    assert.equal(row('day', DAY)!.total, 4);
    assert.equal(rollups.rollup(seq, 'day', [[DAY, DAY + DAY_MS]]).rt.count, 3);
  });

  test('a time no histogram can hold is dropped, the result still counted, the same way raw rows read back', () => {
    assert.deepEqual(sampleOf(true, -3, { dns: 1, connect: 1, tls: 0, ttfb: Number.NaN, total: 5 }), {
      ok: true,
      responseTime: null,
      timing: null,
    });
    world.rollups.addSample(seq, T + 2 * HOUR_MS, { ok: true, responseTime: Number.POSITIVE_INFINITY, timing: null });
    void world.rollups.flushOpen(T + 3 * HOUR_MS, false);
    const r = row('minute', T + 2 * HOUR_MS)!;
    assert.deepEqual([r.total, r.success, r.rtCount], [1, 1, 0]);
  });

  test('a bucket open when its check is deleted is never written', () => {
    world.rollups.addSample(seq, T + 4 * HOUR_MS, ok(10));
    world.checks.remove(world.principal(key), checkId);
    world.rollups.close();
    assert.equal(world.store.db.prepare('SELECT count(*) FROM rollup_minute WHERE check_seq = ?').pluck().get(seq), 0);
  });
});
