import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RollupRow } from '../../src/domain/rollup.js';
import { HOUR_MS, MINUTE_MS } from '../../src/domain/rollup.js';
import { DAY_MS } from '../../src/domain/cover.js';
import { sampleOf } from '../../src/store/rows/rollups.js';
import { openStatsWorld, type StatsWorld } from '../helpers/stats-world.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/index.js';

const T = Date.UTC(2026, 6, 1, 9); // 09:00:00Z
const DAY = Date.UTC(2026, 6, 1);
const ok = (responseTime: number) => ({ ok: true, responseTime, timing: null });

describe('the stats world reads the rollups the store writes', () => {
  test("a sample the store's write path aggregates is in the world's rollups at the next flush", async () => {
    const world = openStatsWorld(T);
    try {
      const account = await world.accounts.createAccount('seam@example.com', 'pro');
      const key = (await world.accounts.createKey({ account: account.id, scopes: ['checks:write'] })).key;
      const id = (await world.checks.create(await world.principal(key), { url: 'https://x.example.com/', checkFrequency: 1 })).id;
      const seq = (await world.store.checks.byId(id))!.seq;
      world.store.rollups.addSample(seq, T + 5_000, ok(100));
      void world.rollups.flushOpen(T + MINUTE_MS, false);
      assert.equal((await world.rollups.rows(seq, 'minute', [[T, T + 1]]))[0]?.total, 1, 'one aggregator, not two over one database');
    } finally {
      await world.close();
    }
  });
});

describe('rollup store: buckets, open-from marks, merging writes', () => {
  let world: StatsWorld;
  let seq: number;
  let checkId: string;
  let key: string;

  before(async () => {
    world = openStatsWorld(T);
    const account = await world.accounts.createAccount('rollups@example.com', 'pro');
    key = (await world.accounts.createKey({ account: account.id, scopes: ['checks:read', 'checks:write', 'checks:delete'] })).key;
    checkId = (await world.checks.create(await world.principal(key), { url: 'https://x.example.com/', checkFrequency: 1 })).id;
    seq = (await world.store.checks.byId(checkId))!.seq;
  });
  after(() => world.close());

  const row = async (level: 'minute' | 'hour' | 'day', at: number): Promise<RollupRow | undefined> =>
    (await world.rollups.rows(seq, level, [[at, at + 1]]))[0];

  test('a minute is written when the check moves on, a flush, or close; hours and days are built once passed', async () => {
    const { rollups } = world;
    assert.deepEqual((await rollups.openBuckets()), { minuteFrom: null, hourFrom: null, dayFrom: null });
    rollups.addSample(seq, T + 5_000, ok(100));
    rollups.addSample(seq, T + 35_000, ok(300));
    assert.deepEqual((await rollups.openBuckets()), { minuteFrom: T, hourFrom: T, dayFrom: DAY }, 'lowered as the first bucket opens');
    assert.equal((await row('minute', T)), undefined, 'nothing written while the minute is open');

    rollups.addSample(seq, T + MINUTE_MS + 1, { ok: false, responseTime: null, timing: null });
    const first = (await row('minute', T))!;
    assert.deepEqual([first.total, first.success, first.rtCount, first.rtSum, first.rtMin, first.rtMax], [2, 2, 2, 400, 100, 300]);
    assert.deepEqual((await rollups.openBuckets()), { minuteFrom: T, hourFrom: T, dayFrom: DAY }, 'only a flush raises the marks');

    await rollups.flushOpen(T + 2 * MINUTE_MS);
    assert.equal((await row('minute', T + MINUTE_MS))!.failure, 1);
    assert.deepEqual((await rollups.openBuckets()), { minuteFrom: null, hourFrom: T, dayFrom: DAY }, 'the hour and the day are not built yet');
    assert.equal((await row('hour', T)), undefined);
    assert.deepEqual([(await rollups.totals(seq, 'hour', [[T, T + HOUR_MS]])).total, (await rollups.totals(seq, 'day', [[DAY, DAY + DAY_MS]])).failure], [3, 1], 'read from the minutes');

    rollups.close();
    assert.equal((await row('hour', T)), undefined, 'close writes minutes only: the marks say what is left to build');
    await rollups.flushOpen(T + HOUR_MS);
    assert.deepEqual([(await row('hour', T))!.total, (await row('hour', T))!.failure, (await row('hour', T))!.rtSum], [3, 1, 400], 'built from its minute rows once passed');
    assert.deepEqual((await rollups.openBuckets()), { minuteFrom: null, hourFrom: T + HOUR_MS, dayFrom: DAY });
    assert.equal((await row('day', DAY)), undefined, 'the day is still going');
    await rollups.flushOpen(DAY + DAY_MS);
    assert.deepEqual([(await row('day', DAY))!.total, (await row('day', DAY))!.rtSum], [3, 400], 'built from its hour rows');
    assert.deepEqual((await rollups.openBuckets()), { minuteFrom: null, hourFrom: DAY + DAY_MS, dayFrom: DAY + DAY_MS });
  });

  test('a late result for a written minute merges into its row, and into the built hour and day', async () => {
    const { rollups } = world;
    rollups.addSample(seq, T + 50_000, ok(50));
    assert.equal((await rollups.openBuckets()).minuteFrom, T, 'reopening an old minute lowers its mark again');
    assert.equal((await rollups.totals(seq, 'day', [[DAY, DAY + DAY_MS]])).total, 4, 'read while buffered');
    await rollups.flushOpen(T + 2 * HOUR_MS);
    const merged = (await row('minute', T))!;
    assert.deepEqual([merged.total, merged.rtCount, merged.rtSum, merged.rtMin, merged.rtMax], [3, 3, 450, 50, 300]);
    assert.deepEqual([(await row('hour', T))!.total, (await row('hour', T))!.rtMin], [4, 50]);
    assert.equal((await row('day', DAY))!.total, 4);
    assert.equal((await rollups.rollup(seq, 'day', [[DAY, DAY + DAY_MS]])).rt.count, 3);
  });

  test('a time no histogram can hold is dropped, the result still counted, the same way raw rows read back', async () => {
    assert.deepEqual(sampleOf(true, -3, { dns: 1, connect: 1, tls: 0, ttfb: Number.NaN, total: 5 }), {
      ok: true,
      responseTime: null,
      timing: null,
    });
    world.rollups.addSample(seq, T + 2 * HOUR_MS, { ok: true, responseTime: Number.POSITIVE_INFINITY, timing: null });
    void world.rollups.flushOpen(T + 3 * HOUR_MS, false);
    const r = (await row('minute', T + 2 * HOUR_MS))!;
    assert.deepEqual([r.total, r.success, r.rtCount], [1, 1, 0]);
  });

  test('a bucket open when its check is deleted is never written', async () => {
    world.rollups.addSample(seq, T + 4 * HOUR_MS, ok(10));
    await world.checks.remove(await world.principal(key), checkId);
    world.rollups.close();
    assert.equal(world.store.db.prepare('SELECT count(*) FROM rollup_minute WHERE check_seq = ?').pluck().get(seq), 0);
  });
});

describe('rollups: hours and days built at their boundary answer what their minutes did', () => {
  const seqs: number[] = [];
  let world: StatsWorld;
  const end = T + 26 * HOUR_MS + 17 * MINUTE_MS;

  before(async () => {
    world = openStatsWorld(T);
    const account = await world.accounts.createAccount('boundary@example.com', 'pro');
    const key = (await world.accounts.createKey({ account: account.id, scopes: ['checks:write'] })).key;
    for (let c = 0; c < 3; c++) {
      const id = (await world.checks.create(await world.principal(key), { url: `https://b${c}.example.com/`, checkFrequency: 1 })).id;
      seqs.push((await world.store.checks.byId(id))!.seq);
    }
    // Every 7 minutes over 26 hours, without a flush: minutes are written as each check moves on.
    for (let t = T + 3_000, i = 0; t < end; t += 7 * MINUTE_MS, i++) {
      for (const seq of seqs) {
        const rt = 20 + ((i * 37 + seq * 11) % 400);
        world.rollups.addSample(seq, t, i % 13 === 0 ? { ok: false, responseTime: null, timing: null } : { ok: true, responseTime: rt, timing: { dns: 1, connect: 2, tls: i % 2, ttfb: rt - 5 } });
      }
    }
  });
  after(() => world.close());

  const readings = async (seq: number) => {
    const { rollups } = world;
    const days: Array<[number, number]> = [[DAY, DAY + 2 * DAY_MS]];
    const rollup = await rollups.rollup(seq, 'day', days);
    return {
      day: { total: rollup.total, failure: rollup.failure, rtSum: rollup.rtSum, rt: rollup.rt.count, p95: rollup.rt.percentile(95), tls: rollup.phases.tls.sum },
      hourTotals: await rollups.totals(seq, 'hour', [[T, T + 5 * HOUR_MS], [T + 20 * HOUR_MS, end + HOUR_MS]]),
      hourBars: await rollups.bucketTotals(seq, 'hour', T, end + HOUR_MS),
      dayBars: await rollups.bucketTotals(seq, 'day', DAY, DAY + 2 * DAY_MS),
      series: await rollups.buckets(seq, 'day', DAY, DAY + 2 * DAY_MS),
    };
  };
  const allReadings = () => Promise.all(seqs.map(readings));

  test('built rows equal the sums of their minutes, and reads do not change while or after building', async () => {
    const { rollups } = world;
    assert.deepEqual([(await rollups.openBuckets()).hourFrom, (await rollups.openBuckets()).dayFrom], [T, DAY], 'nothing built yet');
    const before = await allReadings();
    const expectedTotal = Math.ceil((end - T - 3_000) / (7 * MINUTE_MS));
    assert.equal(before[0]!.day.total, expectedTotal, 'every result, from minute rows and the open minute');
    assert.equal(before[0]!.hourBars.length, 27);

    world.clock.set(end);
    const building = rollups.flushOpen(end);
    let reads = 0;
    let done = false;
    void building.then(() => (done = true));
    while (!done) {
      assert.deepEqual(await allReadings(), before, 'reads mid-build');
      reads++;
      await new Promise((r) => setImmediate(r));
    }
    assert.ok(reads >= 1);
    assert.deepEqual((await rollups.openBuckets()), { minuteFrom: null, hourFrom: T + 26 * HOUR_MS, dayFrom: DAY + DAY_MS }, 'built up to the current hour and day');
    assert.deepEqual(await allReadings(), before, 'reads after building');

    for (const seq of seqs) {
      const hours = await rollups.rows(seq, 'hour', [[T, T + 26 * HOUR_MS]]);
      assert.equal(hours.length, 26, 'one row per passed hour');
      const stored = (await rollups.bucketTotals(seq, 'hour', T, T + 26 * HOUR_MS)).map(([, t]) => t.total);
      assert.deepEqual(hours.map((h) => h.total), stored);
      const day = (await rollups.rows(seq, 'day', [[DAY, DAY + 1]]))[0]!;
      const dayMinutes = await rollups.rows(seq, 'minute', [[DAY, DAY + DAY_MS]]);
      assert.equal(day.total, dayMinutes.reduce((n, m) => n + m.total, 0), 'the day from its hours, the hours from their minutes');
      assert.equal(day.rtSum, dayMinutes.reduce((n, m) => n + m.rtSum, 0));
      assert.equal((await rollups.rows(seq, 'day', [[DAY + DAY_MS, DAY + DAY_MS + 1]])).length, 0, 'the current day is read from its hours and minutes');
    }
  });

  test('statistics spanning the open hour and day count every result, before and after a restart', async () => {
    const before = await allReadings();
    await world.restart();
    assert.deepEqual(await allReadings(), before, 'the written minutes carry the open hour and day across a restart');
  });
});

describe('a guest store (the CLI) beside the server on the same data directory (issue 23)', () => {
  test('opening it rebuilds nothing the server holds open; what it records goes straight into its rows', async () => {
    const world = openStatsWorld(T);
    try {
      const account = await world.accounts.createAccount('guest@example.com', 'pro');
      const key = (await world.accounts.createKey({ account: account.id, scopes: ['checks:write'] })).key;
      const seq = (await world.store.checks.byId((await world.checks.create(await world.principal(key), { url: 'https://g.example.com/', checkFrequency: 1 })).id))!.seq;
      const record = async (store: SqliteStore, at: number) =>
        (await store.transaction(async () => {
          await store.history.insertResult({ checkSeq: seq, at, kind: 'probe', status: 'up', statusCode: 200, responseTime: 100, timing: null, error: null, region: null, snippet: null, meta: null });
          store.rollups.addSample(seq, at, ok(100));
        }));
      await record(world.store, T + 5_000);
      await record(world.store, T + 15_000);

      const guest = openSqliteStore(world.dir, { guest: true });
      const old = T - 2 * HOUR_MS;
      await record(guest, old);
      await guest.close();

      assert.equal((await world.rollups.rows(seq, 'minute', [[T, T + 1]]))[0], undefined, 'the open minute is still the server\'s alone');
      assert.equal((await world.rollups.rows(seq, 'minute', [[old, old + 1]]))[0]?.total, 1, 'the guest\'s result is in its minute row');
      assert.equal((await world.rollups.rows(seq, 'hour', [[old, old + 1]]))[0]?.total, 1, 'and in its hour, built already');
      void world.rollups.flushOpen(T + MINUTE_MS, false);
      assert.equal((await world.rollups.rows(seq, 'minute', [[T, T + 1]]))[0]?.total, 2, 'two results, as history holds');
    } finally {
      await world.close();
    }
  });
});
