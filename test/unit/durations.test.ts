import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeDurations, type MonitorStatus, type StateChange } from '../../src/stats/durations.js';
import { parseRanges, rangeWindow, RANGE_MS } from '../../src/domain/ranges.js';
import { prng } from '../helpers/prng.js';


const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const at = (minutes: number, status: MonitorStatus): StateChange => ({ at: T0 + minutes * MIN, status });
const win = (fromMin: number, toMin: number) => ({ from: T0 + fromMin * MIN, to: T0 + toMin * MIN });

test('an outage across the window start, and one still running at its end', () => {
  const changes = [at(0, 'up'), at(50, 'down'), at(70, 'up'), at(110, 'down')];
  const d = computeDurations(changes, win(60, 120));
  assert.equal(d.totalDurationMs, 60 * MIN);
  assert.equal(d.onlineDurationMs, 40 * MIN);
  assert.equal(d.offlineDurationMs, 20 * MIN);
  assert.equal(d.uptimePercentage, (40 / 60) * 100);
  assert.deepEqual(d.incidents, { count: 2, totalDowntime: 1200, mttr: 600, mtbf: 1200 });
});

test('a paused stretch mid-window is neither online nor offline', () => {
  const changes = [at(0, 'up'), at(30, 'paused'), at(50, 'up'), at(80, 'down'), at(90, 'up')];
  const d = computeDurations(changes, win(0, 100));
  assert.equal(d.onlineDurationMs, 70 * MIN);
  assert.equal(d.offlineDurationMs, 10 * MIN);
  assert.equal(d.uptimePercentage, 87.5);
  assert.deepEqual(d.incidents, { count: 1, totalDowntime: 600, mttr: 600, mtbf: 4200 });
});

test('no data at all: uptime is null and every incident figure is 0', () => {
  const d = computeDurations([], win(0, 60));
  assert.deepEqual(d, {
    totalDurationMs: 60 * MIN,
    onlineDurationMs: 0,
    offlineDurationMs: 0,
    uptimePercentage: null,
    incidents: { count: 0, totalDowntime: 0, mttr: 0, mtbf: 0 },
  });
});

test('an incident entirely before the window is not counted', () => {
  const d = computeDurations([at(0, 'up'), at(10, 'down'), at(20, 'up')], win(30, 60));
  assert.equal(d.onlineDurationMs, 30 * MIN);
  assert.equal(d.uptimePercentage, 100);
  assert.deepEqual(d.incidents, { count: 0, totalDowntime: 0, mttr: 0, mtbf: 1800 });
});

test('incidents touching the window only at an edge do not count', () => {
  const d = computeDurations([at(0, 'down'), at(30, 'up'), at(60, 'down')], win(30, 60));
  assert.equal(d.incidents.count, 0);
  assert.equal(d.onlineDurationMs, 30 * MIN);
});

test('the state in force before the window comes from prior or from earlier entries', () => {
  const fromPrior = computeDurations([], win(0, 10), 'down');
  assert.deepEqual(fromPrior.incidents, { count: 1, totalDowntime: 600, mttr: 600, mtbf: 0 });
  assert.equal(fromPrior.uptimePercentage, 0);
  const fromEarlier = computeDurations([at(-500, 'up')], win(0, 10));
  assert.equal(fromEarlier.onlineDurationMs, 10 * MIN);
  const priorThenChange = computeDurations([at(4, 'up')], win(0, 10), 'down');
  assert.deepEqual([priorThenChange.offlineDurationMs, priorThenChange.incidents.count], [4 * MIN, 1]);
});

test('time before the first known state counts as neither', () => {
  const d = computeDurations([at(20, 'up')], win(0, 60));
  assert.equal(d.onlineDurationMs, 40 * MIN);
  assert.equal(d.offlineDurationMs, 0);
  assert.equal(d.uptimePercentage, 100);
  const pending = computeDurations([at(0, 'pending'), at(15, 'down')], win(0, 60));
  assert.deepEqual([pending.onlineDurationMs, pending.offlineDurationMs], [0, 45 * MIN]);
});

test('raw results: time between two results belongs to the earlier one', () => {
  const results = [at(0, 'up'), at(1, 'up'), at(2, 'down'), at(3, 'down'), at(4, 'up')];
  const d = computeDurations(results, win(0, 5));
  assert.deepEqual([d.onlineDurationMs, d.offlineDurationMs], [3 * MIN, 2 * MIN]);
  assert.equal(d.incidents.count, 1, 'repeated down results are one incident');
});

test('a pause splits a run of down into two incidents', () => {
  const d = computeDurations([at(0, 'down'), at(10, 'paused'), at(20, 'down'), at(30, 'up')], win(0, 40));
  assert.deepEqual(d.incidents, { count: 2, totalDowntime: 1200, mttr: 600, mtbf: 300 });
});

test('entries after the window are ignored', () => {
  const d = computeDurations([at(0, 'up'), at(61, 'down'), at(62, 'up')], win(0, 60));
  assert.deepEqual([d.onlineDurationMs, d.incidents.count], [60 * MIN, 0]);
});

test('bad input is refused', () => {
  assert.throws(() => computeDurations([at(5, 'up'), at(4, 'down')], win(0, 10)), RangeError);
  assert.throws(() => computeDurations([], win(10, 0)), RangeError);
});

/** Walks every millisecond of a small timeline: slow and obviously right. */
function bruteForce(changes: StateChange[], from: number, to: number, prior: MonitorStatus | null) {
  const horizon = Math.max(to, ...changes.map((c) => c.at)) + 1;
  const stateAt = (t: number): MonitorStatus | null => {
    let s = prior;
    for (const c of changes) if (c.at <= t) s = c.status;
    return s;
  };
  let online = 0, offline = 0, count = 0;
  let runOverlaps = false;
  const start = Math.min(from, ...changes.map((c) => c.at)) - 1;
  for (let t = start; t <= horizon; t++) {
    const s = stateAt(t);
    const inside = t >= from && t < to;
    if (inside && s === 'up') online++;
    if (inside && s === 'down') offline++;
    if (s === 'down') runOverlaps ||= inside;
    else {
      if (runOverlaps) count++;
      runOverlaps = false;
    }
  }
  if (runOverlaps) count++;
  return { online, offline, count };
}

test('matches a brute-force walk on random timelines', () => {
  const rand = prng(5);
  const statuses: MonitorStatus[] = ['up', 'down', 'down', 'paused', 'pending'];
  for (let round = 0; round < 400; round++) {
    const changes: StateChange[] = [];
    let t = Math.floor(rand() * 20) - 10;
    const n = Math.floor(rand() * 12);
    for (let i = 0; i < n; i++) {
      changes.push({ at: t, status: statuses[Math.floor(rand() * statuses.length)] as MonitorStatus });
      t += Math.floor(rand() * 15);
    }
    const from = Math.floor(rand() * 60) - 5;
    const to = from + Math.floor(rand() * 60);
    const prior = rand() < 0.5 ? null : (statuses[Math.floor(rand() * statuses.length)] as MonitorStatus);
    const got = computeDurations(changes, { from, to }, prior);
    const want = bruteForce(changes, from, to, prior);
    const label = JSON.stringify({ changes, from, to, prior });
    assert.equal(got.onlineDurationMs, want.online, label);
    assert.equal(got.offlineDurationMs, want.offline, label);
    assert.equal(got.incidents.count, want.count, label);
  }
});

// ---- ranges query ----

const ALLOWED = 'Allowed: 1h, 6h, 1d, 7d, 30d, 60d, 90d';

test('parseRanges accepts the allowed names, trimmed, in the order given', () => {
  assert.deepEqual(parseRanges('1h,7d'), [
    { name: '1h', ms: 3_600_000 },
    { name: '7d', ms: 604_800_000 },
  ]);
  assert.deepEqual(
    (parseRanges(' 90d , 1d,6h ,') as { name: string }[]).map((r) => r.name),
    ['90d', '1d', '6h'],
  );
  assert.equal(RANGE_MS['30d'], 30 * 86_400_000);
  assert.deepEqual(rangeWindow({ name: '1h', ms: RANGE_MS['1h'] }, T0), { from: T0 - 3_600_000, to: T0 });
});

test('parseRanges names every offending value and the allowed set', () => {
  assert.equal(parseRanges('2h,5m'), `Invalid range value(s): 2h, 5m. ${ALLOWED}`);
  assert.equal(parseRanges('1h, 2h,1H,2h'), `Invalid range value(s): 2h, 1H. ${ALLOWED}`);
  assert.equal(
    parseRanges('__proto__,constructor'),
    `Invalid range value(s): __proto__, constructor. ${ALLOWED}`,
  );
  assert.equal(parseRanges(''), `No range value given. ${ALLOWED}`);
  assert.equal(parseRanges(' , '), `No range value given. ${ALLOWED}`);
});

test('parseRanges allows at most 5 distinct ranges', () => {
  assert.equal(parseRanges('1h,6h,1d,7d,30d,60d'), 'Maximum 5 ranges per request');
  assert.equal((parseRanges('1h,6h,1d,7d,30d,1h,6h') as unknown[]).length, 5);
  assert.equal(parseRanges('1h,6h,1d,7d,30d,60d,bad'), `Invalid range value(s): bad. ${ALLOWED}`);
});
