import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Timing } from '../../src/domain/check-types.js';
import { Value } from '@sinclair/typebox/value';
import { StatsResponse, type RangeStats, type SingleRangeStats } from '../../src/core/schemas/stats.js';
import { HistoryService } from '../../src/core/history-service.js';
import { RawRetention } from '../../src/stats/retention.js';
import { HOUR_MS, MINUTE_MS } from '../../src/domain/rollup.js';
import { exactStats, openStatsWorld, prng, Recorder, type Sample, type StatsWorld } from '../helpers/stats-world.js';

const B = Date.UTC(2026, 2, 10, 10); // 10:00:00Z
const at = (hh: number, mm: number, ss = 0) => Date.UTC(2026, 2, 10, hh, mm, ss);
const iso = (t: number) => new Date(t).toISOString();
const S = 30_000;

function okSample(t: number, i: number): Sample {
  const responseTime = 80 + ((i * 37) % 120) + 0.25;
  const dns = 2 + (i % 3);
  const tls = i % 4 === 0 ? 0 : 20;
  const timing: Timing = { dns, connect: 10, tls, ttfb: responseTime - dns - 10 - tls - 1, total: responseTime };
  return { at: t, ok: true, responseTime, timing };
}
const failed = (t: number): Sample => ({ at: t, ok: false, responseTime: null, timing: null });

function assertClose(actual: number | null, expected: number | null, relative: number, what: string): void {
  if (expected === null) return assert.equal(actual, null, what);
  assert.ok(actual !== null, `${what}: got null, expected ${expected}`);
  const error = expected === 0 ? Math.abs(actual) : Math.abs(actual - expected) / Math.abs(expected);
  assert.ok(error <= relative, `${what}: ${actual} vs exact ${expected} (relative error ${error})`);
}

/** Milliseconds come rounded to 3 decimals (no float noise), so within half a microsecond of the exact value. */
function assertRounded(actual: number | null, expected: number | null, what: string): void {
  if (expected === null) return assert.equal(actual, null, what);
  assert.ok(actual !== null, `${what}: got null, expected ${expected}`);
  assert.equal(actual, Math.round(actual * 1000) / 1000, `${what}: ${actual} has more than 3 decimals`);
  assert.ok(Math.abs(actual - expected) <= 0.0005 + 1e-9, `${what}: ${actual} vs exact ${expected}`);
}

/** Single-range stats against the samples: counts exact, averages to 3 decimals, percentiles within 1%. */
function assertMatches(stats: SingleRangeStats, samples: readonly Sample[], from: number, to: number): void {
  const exact = exactStats(samples, from, to);
  const where = `[${iso(from)}, ${iso(to)}]`;
  assert.deepEqual(
    [stats.uptime.totalChecks, stats.uptime.successfulChecks, stats.uptime.failedChecks],
    [exact.total, exact.success, exact.failure],
    `counts in ${where}`,
  );
  const round3 = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);
  assert.equal(stats.responseTime.min, round3(exact.min), `min in ${where}`);
  assert.equal(stats.responseTime.max, round3(exact.max), `max in ${where}`);
  assertRounded(stats.responseTime.average, exact.average, `average in ${where}`);
  for (const p of [50, 90, 95, 99] as const) assertClose(stats.responseTime[`p${p}`], exact.percentile(p), 0.01, `p${p} in ${where}`);
  for (const phase of ['dns', 'connect', 'tls', 'ttfb'] as const) {
    assertRounded(stats.timing[phase].average, exact.phaseAverage(phase), `${phase} average in ${where}`);
    assertClose(stats.timing[phase].p95, exact.phaseP95(phase), 0.01, `${phase} p95 in ${where}`);
  }
}

describe('stats: numbers without float noise', () => {
  test('averages of 0.1 ms and 0.2 ms are 0.15, not 0.15000000000000002; mtbf with no incident is the up time (decisions 6)', async () => {
    const world = openStatsWorld(B - MINUTE_MS);
    try {
      const account = await world.accounts.createAccount('noise@example.com', 'pro');
      const key = (await world.accounts.createKey({ account: account.id, scopes: ['checks:read', 'checks:write'] })).key;
      const id = (await world.checks.create(await world.principal(key), { url: 'https://noise.example.com/', checkFrequency: 0.5 })).id;
      const recorder = new Recorder(world, (await world.store.checks.byId(id))!.seq);
      for (const [i, ms] of [0.1, 0.2].entries()) {
        await recorder.record({ at: at(10, 0, i * 30), ok: true, responseTime: ms, timing: { dns: ms, connect: 0, tls: 0, ttfb: 0, total: ms } });
      }
      world.clock.set(at(10, 10));
      const stats = await world.stats.singleRange(await world.principal(key), id, iso(at(10, 0)), iso(at(10, 10)));
      assert.equal((0.1 + 0.2) / 2, 0.15000000000000002, 'the noise this is about');
      assert.equal(stats.responseTime.average, 0.15);
      assert.equal(stats.timing.dns.average, 0.15);
      assert.deepEqual(stats.incidents, { count: 0, totalDowntime: 0, mttr: 0, mtbf: 600 });
      const multi = await world.stats.multiRange(await world.principal(key), id, '1h', iso(at(10, 10)));
      assert.equal(multi['1h']!.avgResponseTime, 0.15);
    } finally {
      await world.close();
    }
  });
});

describe('stats: hand-computed fixtures through a manual clock', () => {
  let world: StatsWorld;
  let recorder: Recorder;
  let key: string;
  let restrictedKey: string;
  let checkId: string;
  let otherId: string;

  before(async () => {
    world = openStatsWorld(B - MINUTE_MS);
    const account = await world.accounts.createAccount('stats@example.com', 'pro');
    key = (await world.accounts.createKey({ account: account.id, scopes: ['checks:read', 'checks:write'] })).key;
    const principal = await world.principal(key);
    checkId = (await world.checks.create(principal, { url: 'https://a.example.com/', checkFrequency: 0.5 })).id;
    otherId = (await world.checks.create(principal, { url: 'https://b.example.com/', checkFrequency: 0.5 })).id;
    restrictedKey = (await world.accounts.createKey({ account: account.id, checkIds: [checkId] })).key;
    recorder = new Recorder(world, (await world.store.checks.byId(checkId))!.seq);

    // 10:00-10:49:30 up, 10:50-11:09:30 down, 11:10-11:19:30 up, paused 11:20-11:40,
    // then up again from 11:40:30 to 12:00:00; results every 30 s.
    let i = 0;
    for (let t = at(10, 0); t < at(10, 50); t += S) await recorder.record(okSample(t, i++));
    for (let t = at(10, 50); t < at(11, 10); t += S) await recorder.record(failed(t));
    for (let t = at(11, 10); t < at(11, 20); t += S) await recorder.record(okSample(t, i++));
    world.clock.set(at(11, 20));
    await world.checks.toggle(principal, checkId, true, 'deploy');
    world.clock.set(at(11, 40));
    await world.checks.toggle(principal, checkId, false, undefined);
    recorder.resumed();
    for (let t = at(11, 40, 30); t <= at(12, 0); t += S) await recorder.record(okSample(t, i++));
    world.clock.set(at(12, 0, 10));
  });
  after(() => world.close());

  const single = async (from: number, to: number) => world.stats.singleRange(await world.principal(key), checkId, iso(from), iso(to));
  const multi = async (ranges: string, to: number) => world.stats.multiRange(await world.principal(key), checkId, ranges, iso(to));

  test('an outage across the range start, and a pause inside the range', async () => {
    const stats = await single(at(11, 0), at(12, 0));
    assert.deepEqual(stats.period, { from: '2026-03-10T11:00:00.000Z', to: '2026-03-10T12:00:00.000Z' });
    // 11:00-11:19:30: 20 down + 20 up; 11:40:30-12:00:00: 40 up. Events (pause, resume) are not checks.
    assert.deepEqual(stats.uptime, { percentage: 75, totalChecks: 80, successfulChecks: 60, failedChecks: 20 });
    // Down 11:00-11:10 inside the range; up 11:10-11:20 and 11:40:30-12:00; paused and the 30 s
    // after the resume before a result are neither.
    assert.deepEqual(stats.incidents, { count: 1, totalDowntime: 600, mttr: 600, mtbf: 1770 });
    assertMatches(stats, recorder.samples, at(11, 0), at(12, 0));
  });

  test('an outage across the range end', async () => {
    const stats = await single(at(10, 0), at(11, 0));
    assert.deepEqual(stats.uptime, { percentage: (100 / 121) * 100, totalChecks: 121, successfulChecks: 100, failedChecks: 21 });
    assert.deepEqual(stats.incidents, { count: 1, totalDowntime: 600, mttr: 600, mtbf: 3000 });
  });

  test('a range with no data: zero counts, null times, no incidents', async () => {
    const stats = await single(at(8, 0), at(9, 0));
    assert.deepEqual(stats.uptime, { percentage: null, totalChecks: 0, successfulChecks: 0, failedChecks: 0 });
    assert.deepEqual(stats.responseTime, { average: null, min: null, max: null, p50: null, p90: null, p95: null, p99: null });
    assert.deepEqual(stats.timing.dns, { average: null, p95: null });
    assert.deepEqual(stats.incidents, { count: 0, totalDowntime: 0, mttr: 0, mtbf: 0 });
    const ranges = await multi('1h', at(9, 0));
    assert.deepEqual(ranges['1h'], {
      totalChecks: 0,
      onlineChecks: 0,
      offlineChecks: 0,
      uptimePercentage: null,
      totalDurationMs: HOUR_MS,
      onlineDurationMs: 0,
      offlineDurationMs: 0,
      responseSampleCount: 0,
      avgResponseTime: null,
      minResponseTime: null,
      maxResponseTime: null,
    });
  });

  test('a window reaching past now counts what exists so far, the open minute and hour included', async () => {
    const stats = await single(at(11, 0), at(14, 0));
    assert.deepEqual(stats.uptime, { percentage: 75, totalChecks: 80, successfulChecks: 60, failedChecks: 20 });
    assert.deepEqual(stats.incidents, { count: 1, totalDowntime: 600, mttr: 600, mtbf: 1780 }, 'up until now (12:00:10), not until `to`');
  });

  test('defaults: the 24 hours up to now', async () => {
    const stats = await world.stats.singleRange(await world.principal(key), checkId);
    assert.deepEqual(stats.period, { from: iso(at(12, 0, 10) - 24 * HOUR_MS), to: iso(at(12, 0, 10)) });
    assert.equal(stats.uptime.totalChecks, 200);
    assert.equal(stats.incidents.count, 1);
  });

  test('multi-range: windows end at `to`, durations follow the state of the earlier result', async () => {
    const data = await multi('1h,6h', at(12, 0));
    assert.deepEqual(Object.keys(data), ['1h', '6h'], 'in request order');
    const exact1h = exactStats(recorder.samples, at(11, 0), at(12, 0));
    assert.deepEqual(data['1h'], {
      totalChecks: 80,
      onlineChecks: 60,
      offlineChecks: 20,
      uptimePercentage: (1770 / 2370) * 100,
      totalDurationMs: HOUR_MS,
      onlineDurationMs: 1_770_000,
      offlineDurationMs: 600_000,
      responseSampleCount: 60,
      avgResponseTime: data['1h']!.avgResponseTime,
      minResponseTime: exact1h.min,
      maxResponseTime: exact1h.max,
    } satisfies RangeStats);
    assertRounded(data['1h']!.avgResponseTime, exact1h.average, '1h average');
    // 6h reaches back before the check existed: that time is neither online nor offline.
    const sixHours = data['6h']!;
    assert.deepEqual(
      [sixHours.totalChecks, sixHours.onlineChecks, sixHours.offlineChecks, sixHours.onlineDurationMs, sixHours.offlineDurationMs],
      [200, 160, 40, 4_770_000, 1_200_000],
    );
    assert.equal(sixHours.totalDurationMs, 6 * HOUR_MS);
    assert.equal(sixHours.uptimePercentage, (4770 / 5970) * 100);
  });

  test('windows starting and ending mid-minute count exactly what the raw rows hold, reading few of them', async () => {
    const rand = prng(7);
    for (let n = 0; n < 60; n++) {
      // Some windows reach past now, over the minute and hour still open.
      const from = at(9, 58) + Math.floor(rand() * 125 * MINUTE_MS);
      const to = from + Math.floor(rand() * (at(12, 10) - from));
      world.rawRowsRead.count = 0;
      assertMatches(await single(from, to), recorder.samples, from, to);
      // Two partial edge minutes and the open minute, 30 s apart: never the range itself.
      assert.ok(world.rawRowsRead.count <= 6, `read ${world.rawRowsRead.count} raw rows for [${iso(from)}, ${iso(to)}]`);
    }
    const edge = await single(at(10, 49, 59) + 999, at(11, 9, 30));
    assert.equal(edge.uptime.failedChecks, 40, 'both bounds are inclusive, to the millisecond');
  });

  test('a date-only `to` is the end of that day, in single-range and multi-range stats and in history', async () => {
    const wholeDay = await world.stats.singleRange(await world.principal(key), checkId, '2026-03-10', '2026-03-10');
    assert.deepEqual(wholeDay.period, { from: '2026-03-10T00:00:00.000Z', to: '2026-03-10T23:59:59.999Z' });
    assert.equal(wholeDay.uptime.totalChecks, 200, 'every result of the day');
    const fromLaterThatDay = await world.stats.singleRange(await world.principal(key), checkId, iso(at(11, 0)), '2026-03-10');
    assert.deepEqual(fromLaterThatDay.uptime, (await single(at(11, 0), at(12, 0))).uptime, 'a from later that day is not a 400');
    assert.deepEqual(
      (await world.stats.multiRange(await world.principal(key), checkId, '1d', '2026-03-10')),
      (await world.stats.multiRange(await world.principal(key), checkId, '1d', '2026-03-10T23:59:59.999Z')),
    );
    assert.equal((await world.stats.singleRange(await world.principal(key), checkId, '2026-03-09', '2026-03-09')).uptime.totalChecks, 0, 'the day before is empty');

    const history = new HistoryService(world.store, world.checks);
    const total = async (from: string, to: string) =>
      (await history.list(await world.principal(key), checkId, { from, to }, { limit: 1, page: 1, includeTotal: true })).meta.total;
    assert.equal((await total('2026-03-10', '2026-03-10')), 202, 'history: 200 results and the pause and resume events');
    const afternoon = await total(iso(at(11, 40, 30)), '2026-03-10');
    assert.ok(afternoon! > 0, 'history: a from later that day is not a 400');
    assert.equal(afternoon, (await total(iso(at(11, 40, 30)), '2026-03-10T23:59:59.999Z')));
  });

  test('over HTTP: restricted keys see their checks only; errors in their documented shapes', async () => {
    const path = (query: string, id = checkId) => `/v1/public/checks/${id}/stats${query}`;
    const okReply = await world.get(path(`?from=${iso(at(11, 0))}&to=${iso(at(12, 0))}`), restrictedKey);
    assert.equal(okReply.status, 200);
    assert.equal((okReply.body as { data: SingleRangeStats }).data.uptime.totalChecks, 80);
    assert.ok(Value.Check(StatsResponse, okReply.body), 'single-range answer fits its documented schema');
    const multiReply = await world.get(path(`?ranges=1h,90d&to=${iso(at(12, 0))}`), restrictedKey);
    assert.equal(multiReply.status, 200);
    assert.ok(Value.Check(StatsResponse, multiReply.body), 'multi-range answer fits its documented schema');
    const emptyReply = await world.get(path(`?from=${iso(at(8, 0))}&to=${iso(at(9, 0))}`), key);
    assert.ok(Value.Check(StatsResponse, emptyReply.body), 'nulls are documented');
    assert.equal((await world.get(path('', otherId), restrictedKey)).status, 403);
    const missing = await world.get(path('', 'chk_missing'), key);
    assert.deepEqual([missing.status, missing.body], [404, { error: { code: 404, message: 'Check chk_missing not found' } }]);

    const invalid = await world.get(path('?ranges=2h,1d,1w'), key);
    assert.equal(invalid.status, 400);
    assert.deepEqual(invalid.body, { error: 'Invalid range value(s): 2h, 1w. Allowed: 1h, 6h, 1d, 7d, 30d, 60d, 90d' });
    const tooMany = await world.get(path('?ranges=1h,6h,1d,7d,30d,60d'), key);
    assert.deepEqual([tooMany.status, tooMany.body], [400, { error: 'Maximum 5 ranges per request' }]);
    const empty = await world.get(path('?ranges='), key);
    assert.deepEqual([empty.status, empty.body], [400, { error: 'No range value given. Allowed: 1h, 6h, 1d, 7d, 30d, 60d, 90d' }]);

    const badDate = await world.get(path('?from=yesterday'), key);
    assert.deepEqual([badDate.status, badDate.body], [400, { error: { code: 400, message: 'from must be an ISO 8601 date-time, got yesterday' } }]);
    const noSuchDay = await world.get(path('?from=2026-02-30'), key);
    assert.deepEqual([noSuchDay.status, noSuchDay.body], [400, { error: { code: 400, message: 'from must be an ISO 8601 date-time, got 2026-02-30' } }], 'not rolled into March');
    const reversed = await world.get(path(`?from=${iso(at(12, 0))}&to=${iso(at(11, 0))}`), key);
    assert.deepEqual([reversed.status, reversed.body], [400, { error: { code: 400, message: 'from must not be after to' } }]);
    const ignoredFrom = await world.get(path(`?ranges=1h&from=nonsense&to=${iso(at(12, 0))}`), key);
    assert.equal(ignoredFrom.status, 200, 'from is ignored in multi-range mode');
    assert.equal((ignoredFrom.body as { data: Record<string, RangeStats> }).data['1h']!.totalChecks, 80);
    const badTo = await world.get(path('?ranges=1h&to=nonsense'), key);
    assert.deepEqual([badTo.status, badTo.body], [400, { error: { code: 400, message: 'to must be an ISO 8601 date-time, got nonsense' } }]);
  });
});

describe('stats: percentiles and exactness through the whole store path', () => {
  let world: StatsWorld;
  let recorder: Recorder;
  let key: string;
  let checkId: string;
  const start = Date.UTC(2026, 4, 1, 6, 17, 23, 456);

  before(async () => {
    world = openStatsWorld(start);
    const account = await world.accounts.createAccount('random@example.com', 'pro');
    key = (await world.accounts.createKey({ account: account.id, scopes: ['checks:read', 'checks:write'] })).key;
    checkId = (await world.checks.create(await world.principal(key), { url: 'https://r.example.com/', checkFrequency: 0.5 })).id;
    recorder = new Recorder(world, (await world.store.checks.byId(checkId))!.seq);
  });
  after(() => world.close());

  const record = async (rand: () => number, from: number, to: number) => {
    for (let t = from; t < to; t += 5_000 + Math.floor(rand() * 10_000)) {
      if (rand() < 0.03) {
        await recorder.record({ at: t, ok: false, responseTime: null, timing: null });
        continue;
      }
      const z = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
      const rt = rand() < 0.02 ? 2000 + rand() * 20_000 : 150 * Math.exp(0.6 * z);
      const timing = rand() < 0.1 ? null : { dns: rand() * 30, connect: rand() * 50, tls: rand() < 0.2 ? 0 : rand() * 80, ttfb: rand() * rt, total: rt };
      await recorder.record({ at: t, ok: true, responseTime: rt, timing });
    }
  };
  const check = async (rand: () => number, lo: number, hi: number, windows: number) => {
    for (let n = 0; n < windows; n++) {
      const from = lo + Math.floor(rand() * (hi - lo));
      const to = from + Math.floor(rand() * (hi - from));
      assertMatches(await world.stats.singleRange(await world.principal(key), checkId, iso(from), iso(to)), recorder.samples, from, to);
    }
  };

  test('random data over 7 hours: every window within 1% of the exact percentiles', async () => {
    const rand = prng(2026);
    await record(rand, start, start + 7 * HOUR_MS);
    world.clock.set(start + 7 * HOUR_MS);
    await check(rand, start - HOUR_MS, start + 7 * HOUR_MS + 10 * MINUTE_MS, 40);
  });

  test('a crash loses the open buckets from memory, never from the answer', async () => {
    const rand = prng(99);
    const t0 = start + 7 * HOUR_MS;
    await record(rand, t0, t0 + 25 * MINUTE_MS);
    assert.notEqual((await world.rollups.openBuckets()).minuteFrom, null, 'buckets are open when the process dies');
    world.crashAndReopen();
    assert.equal((await world.rollups.openBuckets()).minuteFrom, null, 'opening rebuilt the short rows');
    await check(rand, start, t0 + 35 * MINUTE_MS, 20);
    // Results keep coming into the minute that was open when it died, then a clean restart.
    await record(rand, t0 + 25 * MINUTE_MS, t0 + 50 * MINUTE_MS);
    await world.restart();
    await record(rand, t0 + 50 * MINUTE_MS, t0 + 80 * MINUTE_MS);
    world.clock.set(t0 + 80 * MINUTE_MS);
    await check(rand, start, t0 + 90 * MINUTE_MS, 20);
  });

  test('a busy current minute is answered from its buffered rollup, exactly, in both modes', async () => {
    const t0 = world.clock.now() + 2 * HOUR_MS;
    const minute = Math.floor(t0 / MINUTE_MS) * MINUTE_MS;
    for (let i = 0; i < 3_000; i++) await recorder.record({ at: minute + i * 15, ok: i % 10 !== 0, responseTime: i % 10 === 0 ? null : 100 + (i % 50), timing: null });
    world.clock.set(minute + 45_000);
    assert.equal((await world.rollups.openBuckets()).minuteFrom, minute, 'the minute is still open, nothing flushed');
    const inWindow = (from: number, to: number) => recorder.samples.filter((x) => x.at >= from && x.at <= to);
    world.rawRowsRead.count = 0;
    const single = await world.stats.singleRange(await world.principal(key), checkId, iso(minute - 30 * MINUTE_MS));
    assert.equal(single.uptime.totalChecks, inWindow(minute - 30 * MINUTE_MS, world.clock.now()).length);
    assert.equal(world.rawRowsRead.count, 0, 'the open minute came from its buffered rollup, not 3,000 raw rows');
    assert.equal(single.uptime.failedChecks, 300);
    const multi = await world.stats.multiRange(await world.principal(key), checkId, '1h');
    assert.equal(multi['1h']!.totalChecks, inWindow(world.clock.now() - HOUR_MS, world.clock.now()).length);
    assert.ok(world.rawRowsRead.count < 20, `multi-range read ${world.rawRowsRead.count} raw rows (the window's first partial minute only)`);
    assert.equal(multi['1h']!.offlineChecks, 300);
    // A window that ends inside the open minute, in the past, still cuts it exactly (raw edge).
    const cut = await world.stats.singleRange(await world.principal(key), checkId, iso(minute), iso(minute + 15_000));
    assert.equal(cut.uptime.totalChecks, inWindow(minute, minute + 15_000).length);
  });

  test('deleting a check deletes its rollups', async () => {
    const seq = recorder.checkSeq;
    await world.checks.remove(await world.principal(key), checkId);
    void world.rollups.flushOpen(world.clock.now() + HOUR_MS, false);
    const count = (table: string) => world.store.db.prepare(`SELECT count(*) FROM ${table} WHERE check_seq = ?`).pluck().get(seq);
    assert.deepEqual([count('rollup_minute'), count('rollup_hour'), count('rollup_day')], [0, 0, 0]);
  });
});

describe('stats: retention prunes raw history per plan; rollups answer what it took', () => {
  const DAY = 24 * HOUR_MS;
  const now = Date.UTC(2026, 9, 20);
  let world: StatsWorld;
  const checks: Record<'free' | 'pro', { id: string; key: string; recorder: Recorder }> = {} as never;

  before(async () => {
    world = openStatsWorld(now - 10 * DAY - MINUTE_MS);
    for (const tier of ['free', 'pro'] as const) {
      const account = await world.accounts.createAccount(`${tier}@example.com`, tier);
      const key = (await world.accounts.createKey({ account: account.id, scopes: ['checks:read', 'checks:write'] })).key;
      const id = (await world.checks.create(await world.principal(key), { url: `https://${tier}.example.com/`, checkFrequency: 10 })).id;
      checks[tier] = { id, key, recorder: new Recorder(world, (await world.store.checks.byId(id))!.seq) };
    }
    for (let t = now - 10 * DAY, i = 0; t < now; t += 10 * MINUTE_MS, i++) {
      for (const tier of ['free', 'pro'] as const) await checks[tier].recorder.record(i % 50 === 7 ? failed(t) : okSample(t, i));
    }
    world.clock.set(now);
  });
  after(() => world.close());

  const rawCount = (tier: 'free' | 'pro') => world.store.db.prepare('SELECT count(*) FROM history WHERE check_seq = ?').pluck().get(checks[tier].recorder.checkSeq);
  const stats = async (tier: 'free' | 'pro', from: number, to: number) =>
    world.stats.singleRange(await world.principal(checks[tier].key), checks[tier].id, iso(from), iso(to));

  test('small transactions delete what the plan no longer keeps, and raise the horizons first', async () => {
    const retention = new RawRetention(world.store.retention, world.clock, {
      rawDays: world.config.retention.rawDays,
      batchSize: 100,
      minuteRollupDays: 8,
    });
    const report = await retention.prune();
    assert.equal(report.rawDeleted, 3 * 144, 'the free check loses its 3 oldest days (one row every 10 minutes)');
    assert.ok(report.transactions >= (report.rawDeleted + report.minuteRowsDeleted) / 100);
    assert.deepEqual([rawCount('free'), rawCount('pro')], [7 * 144, 10 * 144]);
    assert.deepEqual((await world.rollups.horizons(checks.free.recorder.checkSeq)), { rawFrom: now - 7 * DAY, minutesFrom: now - 8 * DAY });
    assert.deepEqual((await world.rollups.horizons(checks.pro.recorder.checkSeq)), { rawFrom: null, minutesFrom: now - 8 * DAY });
  });

  test('rollups outlive the raw rows: the whole 10 days is still exact', async () => {
    for (const tier of ['free', 'pro'] as const) assertMatches(await stats(tier, now - 10 * DAY, now), checks[tier].recorder.samples, now - 10 * DAY, now);
    assertMatches(await stats('free', now - 7 * DAY + 45_000, now - DAY), checks.free.recorder.samples, now - 7 * DAY + 45_000, now - DAY);
    // Past now: the day, hour and minute still open are read from finer sources.
    const from = now - 3 * DAY - 1234;
    assertMatches(await stats('pro', from, now + 2 * DAY), checks.pro.recorder.samples, from, now + 2 * DAY);
  });

  test('a window starting mid-minute where raw rows are gone starts on the minute, where minute rows are gone on the hour', async () => {
    const count = async (tier: 'free' | 'pro', from: number) => (await stats(tier, from, now)).uptime.totalChecks;
    const exact = (from: number) => exactStats(checks.free.recorder.samples, from, now).total;
    // Results fall on every tenth minute, so each rounded start picks up exactly one more.
    const rawGone = now - 7.5 * DAY + 30_000;
    assert.equal((await count('free', rawGone)), exact(rawGone) + 1, 'free: the result at the minute start is counted');
    assert.equal((await count('pro', rawGone)), exact(rawGone), 'pro still has the raw rows: exact');
    const minutesGone = now - 9 * DAY + 30_000;
    assert.equal((await count('free', minutesGone)), exact(minutesGone) + 1);
    assert.equal((await count('pro', minutesGone)), exact(minutesGone) + 1, 'raw rows are no use without the minutes around them');
  });
});
