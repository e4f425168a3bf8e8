import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planExactCover, type SourceLimits } from '../../src/domain/cover.js';
import type { ExactCover } from '../../src/domain/cover.js';
import type { Interval } from '../../src/domain/ranges.js';
import { HOUR_MS, MINUTE_MS } from '../../src/domain/rollup.js';
import { prng } from '../helpers/prng.js';

const T = Date.UTC(2026, 0, 10);
const DAY = 24 * HOUR_MS;
const NONE: SourceLimits = { rawFrom: null, minutesFrom: null };


function assertTiles(plan: ExactCover): void {
  const all: Array<[number, number, string]> = [
    ...plan.raw.map(([s, e]): [number, number, string] => [s, e, 'raw']),
    ...plan.minutes.map(([s, e]): [number, number, string] => [s, e, 'minutes']),
    ...plan.hours.map(([s, e]): [number, number, string] => [s, e, 'hours']),
    ...plan.days.map(([s, e]): [number, number, string] => [s, e, 'days']),
  ].sort((a, b) => a[0] - b[0]);
  let cursor = plan.from;
  for (const [start, end] of all) {
    assert.equal(start, cursor, 'no gap and no overlap');
    assert.ok(start < end, 'no empty piece');
    cursor = end;
  }
  assert.equal(cursor, plan.to);
}

const within = (pieces: Interval[], unit: number) => pieces.every(([s, e]) => s % unit === 0 && e % unit === 0);

test('without open buckets or pruning it is planCover: hours inside, minutes around, raw at the edges', () => {
  const plan = planExactCover(T + 25_500, T + 5 * HOUR_MS + 7 * MINUTE_MS + 1, NONE);
  assert.deepEqual(plan, {
    from: T + 25_500,
    to: T + 5 * HOUR_MS + 7 * MINUTE_MS + 1,
    raw: [
      [T + 25_500, T + MINUTE_MS],
      [T + 5 * HOUR_MS + 7 * MINUTE_MS, T + 5 * HOUR_MS + 7 * MINUTE_MS + 1],
    ],
    minutes: [
      [T + MINUTE_MS, T + HOUR_MS],
      [T + 5 * HOUR_MS, T + 5 * HOUR_MS + 7 * MINUTE_MS],
    ],
    hours: [[T + HOUR_MS, T + 5 * HOUR_MS]],
    days: [],
  });
});

test('whole UTC days come from day rows, the hours around them from hour rows', () => {
  const plan = planExactCover(T - 2 * HOUR_MS, T + 3 * DAY + 5 * HOUR_MS, NONE);
  assertTiles(plan);
  assert.deepEqual(plan.days, [[T, T + 3 * DAY]]);
  assert.deepEqual(plan.hours, [[T - 2 * HOUR_MS, T], [T + 3 * DAY, T + 3 * DAY + 5 * HOUR_MS]]);
});

test('pruned sources widen the window outward to the next coarser boundary', () => {
  const plan = planExactCover(T + 90 * MINUTE_MS + 30_000, T + 10 * HOUR_MS, {
    ...NONE,
    rawFrom: T + 3 * HOUR_MS,
    minutesFrom: T + 2 * HOUR_MS,
  });
  assertTiles(plan);
  assert.equal(plan.from, T + HOUR_MS, 'raw and minutes gone at the start: the whole hour');
  assert.deepEqual(plan.raw, []);
});

test('property: random windows always tile with aligned rollup pieces, and raw rows hold no whole minute', () => {
  const rand = prng(11);
  for (let n = 0; n < 2000; n++) {
    const from = T + Math.floor(rand() * 96 * HOUR_MS);
    const to = from + Math.floor(rand() * (rand() < 0.5 ? 3 * HOUR_MS : 80 * HOUR_MS));
    const plan = planExactCover(from, to, NONE);
    assertTiles(plan);
    assert.equal(plan.from, from);
    assert.equal(plan.to, to);
    assert.ok(within(plan.minutes, MINUTE_MS) && within(plan.hours, HOUR_MS) && within(plan.days, DAY), 'rollup pieces are aligned');
    assert.ok(plan.raw.every(([s, e]) => Math.ceil(s / MINUTE_MS) * MINUTE_MS + MINUTE_MS > e), 'raw rows hold no whole minute');
  }
});
