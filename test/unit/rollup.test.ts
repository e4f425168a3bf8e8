import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Timing } from '../../src/domain/check-types.js';
import { exactPercentile } from '../../src/domain/histogram.js';
import {
  HOUR_MS,
  MINUTE_MS,
  Rollup,
  hourKey,
  minuteKey,
  summarizeRollup,
  type RollupSample,
} from '../../src/domain/rollup.js';
import { planCover, type CoverPlan, type Interval } from '../../src/domain/ranges.js';
import { prng } from '../helpers/prng.js';


function timing(dns: number, connect: number, tls: number, ttfb: number): Timing {
  return { dns, connect, tls, ttfb, total: dns + connect + tls + ttfb };
}

const ok = (responseTime: number, t: Timing | null = null): RollupSample => ({
  ok: true,
  responseTime,
  timing: t,
});
const failed: RollupSample = { ok: false, responseTime: null, timing: null };

function randomSample(rand: () => number): RollupSample {
  if (rand() < 0.1) {
    return rand() < 0.5 ? failed : { ok: false, responseTime: 900, timing: timing(1, 2, 3, 4) };
  }
  const t = timing(rand() * 20, rand() * 30, rand() < 0.3 ? 0 : rand() * 40, rand() * 300);
  return ok(rand() < 0.05 ? 0 : t.total + rand() * 5, rand() < 0.2 ? null : t);
}

test('bucket keys are UTC minute and hour starts', () => {
  const t = Date.UTC(2026, 2, 14, 15, 9, 26, 535);
  assert.equal(minuteKey(t), Date.UTC(2026, 2, 14, 15, 9));
  assert.equal(hourKey(t), Date.UTC(2026, 2, 14, 15));
  assert.equal(minuteKey(Date.UTC(2026, 2, 14, 15, 9)), Date.UTC(2026, 2, 14, 15, 9));
  assert.equal(hourKey(t - 1) % HOUR_MS, 0);
  assert.equal(minuteKey(-1), -MINUTE_MS);
});

test('only successful probes feed response times and phases', () => {
  const r = new Rollup()
    .add(ok(100, timing(1, 2, 3, 50)))
    .add(ok(300, timing(3, 4, 0, 150)))
    .add({ ok: false, responseTime: 5000, timing: timing(9, 9, 9, 9) })
    .add(failed)
    .add(ok(200));
  assert.deepEqual(
    [r.total, r.success, r.failure, r.rtCount, r.rtSum, r.rtMin, r.rtMax],
    [5, 3, 2, 3, 600, 100, 300],
  );
  assert.equal(r.rt.count, 3);
  assert.deepEqual([r.phases.dns.count, r.phases.dns.sum], [2, 4]);
  assert.deepEqual([r.phases.tls.count, r.phases.tls.sum], [2, 3]);
  const s = summarizeRollup(r);
  assert.equal(s.uptimePercentage, 60);
  assert.equal(s.responseSampleCount, 3);
  assert.equal(s.responseTime.average, 200);
  assert.ok(Math.abs((s.responseTime.p50 as number) - 200) <= 2);
  assert.ok((s.responseTime.p99 as number) <= 300 && (s.responseTime.p99 as number) >= 297);
  assert.equal(s.timing.ttfb.average, 100);
  assert.ok(Math.abs((s.timing.ttfb.p95 as number) - 150) <= 1.5);
});

test('percentiles are clamped into the exact min..max', () => {
  const s = summarizeRollup(new Rollup().add(ok(123.456)));
  for (const value of Object.values(s.responseTime)) assert.equal(value, 123.456);
});

test('a bad time is refused without touching the rollup', () => {
  const r = new Rollup().add(ok(10));
  const before = r.toRow();
  assert.throws(() => r.add(ok(-1)), RangeError);
  assert.throws(() => r.add(ok(5, timing(1, Number.NaN, 0, 2))), RangeError);
  assert.deepEqual(r.toRow(), before);
  r.add({ ok: false, responseTime: -3, timing: null });
  assert.equal(r.failure, 1, 'a failed probe is only counted');
});

test('an empty rollup summarizes to nulls, not NaN', () => {
  const s = summarizeRollup(new Rollup().add(failed));
  assert.equal(s.uptimePercentage, 0);
  for (const value of Object.values(s.responseTime)) assert.equal(value, null);
  assert.deepEqual(s.timing.dns, { average: null, p95: null });
  assert.equal(summarizeRollup(new Rollup()).uptimePercentage, null);
});

test('merge, toRow/fromRow and fromRows agree with adding everything to one rollup', () => {
  const rand = prng(3);
  const all = new Rollup();
  const parts: Rollup[] = [];
  for (let p = 0; p < 40; p++) {
    const part = new Rollup();
    const n = Math.floor(rand() * 30);
    for (let i = 0; i < n; i++) {
      const sample = randomSample(rand);
      part.add(sample);
      all.add(sample);
    }
    parts.push(part);
  }
  const merged = parts.reduce((acc, part) => acc.merge(part), new Rollup());
  const rows = parts.map((part) => part.toRow());
  const fromRows = Rollup.fromRows(rows);
  const roundTripped = parts
    .map((part) => Rollup.fromRow(part.toRow()))
    .reduce((a, b) => a.merge(b), new Rollup());
  for (const r of [merged, fromRows, roundTripped]) {
    const row = r.toRow();
    const expected = all.toRow();
    // Sums of floats may differ in the last bits with a different addition order.
    for (const key of ['rtSum', 'dnsSum', 'connectSum', 'tlsSum', 'ttfbSum'] as const) {
      assert.ok(Math.abs(row[key] - expected[key]) < 1e-6, key);
      row[key] = expected[key];
    }
    assert.deepEqual(row, expected);
    assert.deepEqual(summarizeRollup(r).responseTime.p95, summarizeRollup(all).responseTime.p95);
  }
});

test('row percentiles stay within 1% of exact over successful probes', () => {
  const rand = prng(11);
  const rows = [];
  const values: number[] = [];
  for (let hour = 0; hour < 48; hour++) {
    const r = new Rollup();
    for (let i = 0; i < 60; i++) {
      const s = randomSample(rand);
      r.add(s);
      if (s.ok && s.responseTime !== null) values.push(s.responseTime);
    }
    rows.push(r.toRow());
  }
  values.sort((a, b) => a - b);
  const s = summarizeRollup(Rollup.fromRows(rows));
  assert.equal(s.responseSampleCount, values.length);
  for (const p of [50, 90, 95, 99] as const) {
    const exact = exactPercentile(values, p) as number;
    const estimate = s.responseTime[`p${p}`] as number;
    assert.ok(Math.abs(estimate - exact) <= exact * 0.01, `p${p}: ${estimate} vs ${exact}`);
  }
});

test('row blobs are plain bytes a store can keep', () => {
  const row = new Rollup().add(ok(120, timing(1, 2, 3, 4))).toRow();
  assert.ok(row.rtHist instanceof Uint8Array);
  assert.ok(Buffer.isBuffer(row.rtHist));
  assert.equal(row.rtHist.length, 5);
});

// ---- cover plan ----

const T0 = Date.UTC(2026, 0, 1);

function assertTiles(plan: CoverPlan, from: number, to: number): void {
  const pieces: Array<[Interval, 'raw' | 'minutes' | 'hours']> = [
    ...plan.raw.map((i) => [i, 'raw'] as [Interval, 'raw']),
    ...plan.minutes.map((i) => [i, 'minutes'] as [Interval, 'minutes']),
    ...plan.hours.map((i) => [i, 'hours'] as [Interval, 'hours']),
  ];
  pieces.sort((a, b) => a[0][0] - b[0][0]);
  assert.ok(plan.from <= from && plan.to >= to, 'covers the asked window');
  let cursor = plan.from;
  for (const [[start, end], kind] of pieces) {
    assert.equal(start, cursor, `no gap or overlap at ${start}`);
    assert.ok(start < end, 'no empty piece');
    cursor = end;
    if (kind === 'raw') assert.equal(minuteKey(start), minuteKey(end - 1), 'raw piece inside one minute');
    if (kind === 'minutes') {
      assert.equal(start % MINUTE_MS, 0);
      assert.equal(end % MINUTE_MS, 0);
      assert.ok(hourKey(start + HOUR_MS - 1) + HOUR_MS > end, 'minute piece holds no whole hour');
    }
    if (kind === 'hours') {
      assert.equal(start % HOUR_MS, 0);
      assert.equal(end % HOUR_MS, 0);
    }
  }
  assert.equal(cursor, plan.to);
  assert.ok(plan.raw.length <= 2 && plan.minutes.length <= 2 && plan.hours.length <= 1);
}

test('cover plan: a window with ragged ends', () => {
  const from = T0 + 10 * MINUTE_MS + 15_000;
  const to = T0 + 3 * HOUR_MS + 5 * MINUTE_MS + 500;
  assert.deepEqual(planCover(from, to), {
    from,
    to,
    raw: [
      [from, T0 + 11 * MINUTE_MS],
      [T0 + 3 * HOUR_MS + 5 * MINUTE_MS, to],
    ],
    minutes: [
      [T0 + 11 * MINUTE_MS, T0 + HOUR_MS],
      [T0 + 3 * HOUR_MS, T0 + 3 * HOUR_MS + 5 * MINUTE_MS],
    ],
    hours: [[T0 + HOUR_MS, T0 + 3 * HOUR_MS]],
  });
});

test('cover plan: aligned, short, empty and inverted windows', () => {
  const twoHours = T0 + 2 * HOUR_MS;
  assert.deepEqual(planCover(T0, twoHours), { from: T0, to: twoHours, raw: [], minutes: [], hours: [[T0, twoHours]] });
  assert.deepEqual(planCover(T0 + 5, T0 + 50), {
    from: T0 + 5,
    to: T0 + 50,
    raw: [[T0 + 5, T0 + 50]],
    minutes: [],
    hours: [],
  });
  assert.deepEqual(planCover(T0 + 30_000, T0 + 90_000).raw, [
    [T0 + 30_000, T0 + MINUTE_MS],
    [T0 + MINUTE_MS, T0 + 90_000],
  ]);
  assert.deepEqual(planCover(T0, T0 + 7 * MINUTE_MS).minutes, [[T0, T0 + 7 * MINUTE_MS]]);
  assert.deepEqual(planCover(T0 + 9, T0 + 9), { from: T0 + 9, to: T0 + 9, raw: [], minutes: [], hours: [] });
  assert.throws(() => planCover(T0 + 1, T0), RangeError);
});

test('cover plan: horizons widen stale edges outward to a coarser grid', () => {
  const from = T0 + 10 * MINUTE_MS + 15_000;
  const to = T0 + 30 * HOUR_MS + 5 * MINUTE_MS + 500;
  const stale = planCover(from, to, { rawFrom: T0 + 20 * HOUR_MS, minutesFrom: T0 + 2 * HOUR_MS });
  assert.equal(stale.from, T0);
  assert.equal(stale.to, to);
  assertTiles(stale, from, to);
  const rawOnly = planCover(from, to, { rawFrom: T0 + HOUR_MS });
  assert.equal(rawOnly.from, T0 + 10 * MINUTE_MS);
  assert.deepEqual(rawOnly.minutes[0], [T0 + 10 * MINUTE_MS, T0 + HOUR_MS]);
  const later = T0 + 99 * HOUR_MS;
  const ancient = planCover(from, T0 + 20 * MINUTE_MS + 1, { rawFrom: later, minutesFrom: later });
  assert.deepEqual(ancient, { from: T0, to: T0 + HOUR_MS, raw: [], minutes: [], hours: [[T0, T0 + HOUR_MS]] });
});

test('cover plan tiles random windows exactly and respects horizons', () => {
  const rand = prng(2026);
  const spans = [1, 999, MINUTE_MS, 5 * MINUTE_MS, HOUR_MS, 26 * HOUR_MS, 90 * 24 * HOUR_MS];
  for (let i = 0; i < 3000; i++) {
    const from = T0 + Math.floor(rand() * 40 * 24 * HOUR_MS);
    const span = spans[Math.floor(rand() * spans.length)] as number;
    const to = from + Math.floor(rand() * span * (rand() < 0.2 ? 0 : 1.5));
    const aligned = rand() < 0.2 ? minuteKey(from) : from;
    const plan = planCover(aligned, to);
    assertTiles(plan, aligned, to);
    assert.deepEqual([plan.from, plan.to], [aligned, to]);

    const minutesFrom = rand() < 0.5 ? undefined : from + Math.floor((rand() - 0.2) * span);
    const rawFrom = rand() < 0.5 ? undefined : from + Math.floor((rand() - 0.2) * span * 1.2);
    const limited = planCover(aligned, to, { rawFrom, minutesFrom });
    assertTiles(limited, aligned, to);
    const rawLimit = Math.max(rawFrom ?? -Infinity, minutesFrom ?? -Infinity);
    for (const [start] of limited.raw) assert.ok(start >= rawLimit, 'raw piece within raw retention');
    for (const [start] of limited.minutes) {
      assert.ok(start >= (minutesFrom ?? -Infinity), 'minute piece within retention');
    }
    assert.ok(aligned - limited.from < HOUR_MS && limited.to - to < HOUR_MS, 'widens by less than an hour');
  }
});

test('a window answered through its cover plan equals one answered from raw results', () => {
  const rand = prng(77);
  const results: Array<{ at: number; sample: RollupSample }> = [];
  const minutes = new Map<number, Rollup>();
  const hours = new Map<number, Rollup>();
  for (let at = T0; at < T0 + 3 * 24 * HOUR_MS; at += 1 + Math.floor(rand() * 40_000)) {
    const sample = randomSample(rand);
    results.push({ at, sample });
    for (const [map, key] of [[minutes, minuteKey(at)], [hours, hourKey(at)]] as const) {
      const r = map.get(key) ?? new Rollup();
      map.set(key, r.add(sample));
    }
  }
  const rowsIn = (map: Map<number, Rollup>, [start, end]: Interval): Rollup[] =>
    [...map].filter(([key]) => key >= start && key < end).map(([, r]) => r);
  for (let i = 0; i < 30; i++) {
    const from = T0 + Math.floor(rand() * 2 * 24 * HOUR_MS);
    const to = from + Math.floor(rand() * 30 * HOUR_MS);
    const plan = planCover(from, to);
    const viaPlan = new Rollup();
    for (const [start, end] of plan.raw) {
      for (const r of results) if (r.at >= start && r.at < end) viaPlan.add(r.sample);
    }
    for (const piece of plan.minutes) for (const r of rowsIn(minutes, piece)) viaPlan.merge(r);
    for (const piece of plan.hours) for (const r of rowsIn(hours, piece)) viaPlan.merge(r);
    const direct = new Rollup();
    for (const r of results) if (r.at >= from && r.at < to) direct.add(r.sample);
    const counts = (r: Rollup): unknown[] => [r.total, r.success, r.rtCount, r.rtMin, r.rtMax];
    assert.deepEqual(counts(viaPlan), counts(direct));
    assert.deepEqual(viaPlan.rt.buckets(), direct.rt.buckets());
    assert.deepEqual(viaPlan.phases.ttfb.hist.buckets(), direct.phases.ttfb.hist.buckets());
  }
});
