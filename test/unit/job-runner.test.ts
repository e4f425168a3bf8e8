import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import { JobRunner, nextRunAt, WHEN_WOKEN, type Wake } from '../../src/util/job-runner.js';
import { createLogger } from '../../src/log.js';
import { FakeTimers, settle } from '../helpers/fake-timers.js';

function runner(random = () => 0) {
  const clock = new ManualClock(1_000_000);
  const timers = new FakeTimers(clock);
  const log = createLogger('silent');
  return { clock, timers, jobs: new JobRunner({ clock, timers, random, log }) };
}

test('a job runs every interval, from when the runner starts; its last run and duration are read by name', async () => {
  const { clock, timers, jobs } = runner();
  const runs: number[] = [];
  jobs.add({ name: 'prune', everyMs: 1_000, run: () => { runs.push(clock.now()); clock.advance(30); } });
  await timers.advance(5_000);
  assert.deepEqual(runs, [], 'nothing runs before start');
  jobs.start();
  await timers.advance(3_000);
  // Each run took 30 ms; the next starts an interval after the previous *started*.
  assert.deepEqual(runs, [1_006_000, 1_007_000, 1_008_000]);
  assert.deepEqual(jobs.readings(), [{ name: 'prune', runs: 3, failures: 0, lastRunAt: 1_008_000, lastDurationMs: 30, running: false }]);
});

test('atStart runs the job at once, then every interval', async () => {
  const { timers, jobs } = runner();
  let runs = 0;
  jobs.add({ name: 'lifecycle', everyMs: 10_000, atStart: true, run: () => runs++ });
  jobs.start();
  assert.equal(runs, 1);
  await timers.advance(9_999);
  assert.equal(runs, 1);
  await timers.advance(1);
  assert.equal(runs, 2);
});

test('a run never overlaps the previous one: a slow run holds the job, which resumes once it settles', async () => {
  const { clock, timers, jobs } = runner();
  let started = 0;
  let release: () => void = () => {};
  jobs.add({ name: 'slow', everyMs: 1_000, run: () => { started++; return new Promise<void>((r) => { release = r; }); } });
  jobs.start();
  await timers.advance(1_000);
  assert.equal(started, 1);
  assert.equal(jobs.readings()[0]!.running, true);
  await timers.advance(10_000);
  assert.equal(started, 1, 'no second run while the first is in progress');
  assert.equal(timers.count, 0, 'nothing is even scheduled meanwhile');
  release();
  await settle();
  const r = jobs.readings()[0]!;
  assert.equal(r.running, false);
  assert.equal(r.lastDurationMs, 10_000);
  // It ran over its interval, so the next run is due at once rather than an interval later.
  assert.equal(timers.nextAt, clock.now());
  await timers.advance(0);
  assert.equal(started, 2);
});

test('jitter adds up to jitterMs to each wait, drawn each time', async () => {
  const draws = [0.5, 0.25];
  const { clock, timers, jobs } = runner(() => draws.shift() ?? 0);
  const runs: number[] = [];
  jobs.add({ name: 'jittered', everyMs: 1_000, jitterMs: 400, run: () => runs.push(clock.now()) });
  jobs.start();
  await timers.advance(2_500);
  assert.deepEqual(runs, [1_001_200, 1_002_300]);
});

test('a failing run (thrown or rejected) is counted and logged, and the job keeps its schedule', async () => {
  const { timers, jobs } = runner();
  let n = 0;
  jobs.add({ name: 'flaky', everyMs: 100, run: () => {
    n++;
    if (n === 1) throw new Error('boom');
    if (n === 2) return Promise.reject(new Error('async boom'));
    return undefined;
  } });
  jobs.start();
  await timers.advance(300);
  assert.equal(n, 3);
  assert.deepEqual({ runs: jobs.readings()[0]!.runs, failures: jobs.readings()[0]!.failures }, { runs: 3, failures: 2 });
});

test('stop cancels what is scheduled; names are unique; a job added after start is scheduled at once', async () => {
  const { timers, jobs } = runner();
  let a = 0;
  let b = 0;
  jobs.add({ name: 'a', everyMs: 100, run: () => a++ });
  assert.throws(() => jobs.add({ name: 'a', everyMs: 100, run: () => {} }), /already registered/);
  assert.throws(() => jobs.add({ name: 'zero', everyMs: 0, run: () => {} }), /positive interval/);
  jobs.start();
  jobs.add({ name: 'b', everyMs: 100, run: () => b++ });
  await timers.advance(100);
  assert.deepEqual([a, b], [1, 1]);
  jobs.stop();
  assert.equal(timers.count, 0);
  await timers.advance(1_000);
  assert.deepEqual([a, b], [1, 1]);
});

test('a job with nothing to do sleeps without a timer until an event wakes it, then runs at once or when asked', async () => {
  const { clock, timers, jobs } = runner();
  const runs: number[] = [];
  let wake: Wake = () => {};
  jobs.add({ name: 'outbox', everyMs: 2_000, atStart: true, wakeOn: [(w) => { wake = w; }], run: () => { runs.push(clock.now()); return WHEN_WOKEN; } });
  wake();
  assert.equal(timers.count, 0, 'a wake before start is dropped');
  jobs.start();
  assert.deepEqual(runs, [1_000_000]);
  assert.equal(timers.count, 0, 'asleep: no timer at all');
  await timers.advance(60_000);
  assert.deepEqual(runs, [1_000_000]);
  wake();
  await timers.advance(0);
  assert.deepEqual(runs, [1_000_000, 1_060_000]);
  // A wake for later arms one timer; an earlier one replaces it, a later one does not.
  wake(clock.now() + 10_000);
  wake(clock.now() + 5_000);
  wake(clock.now() + 8_000);
  assert.equal(timers.count, 1);
  await timers.advance(10_000);
  assert.deepEqual(runs, [1_000_000, 1_060_000, 1_065_000]);
  jobs.stop();
  wake();
  assert.equal(timers.count, 0, 'a stopped runner ignores wakes');
});

test('a run names its next due time; a wake during a run is kept for after it', async () => {
  const { clock, timers, jobs } = runner(() => 0.5);
  const runs: number[] = [];
  let release: () => void = () => {};
  let wake: Wake = () => {};
  jobs.add({
    name: 'windows', everyMs: 60_000, jitterMs: 1_000, wakeOn: [(w) => { wake = w; }],
    run: () => {
      runs.push(clock.now());
      if (runs.length === 2) return new Promise<unknown>((r) => { release = () => r(WHEN_WOKEN); });
      return nextRunAt(clock.now() + 3_000);
    },
  });
  jobs.start();
  // The first wait is the interval plus jitter; then the time each run names, without jitter.
  await timers.advance(60_500);
  assert.deepEqual(runs, [1_060_500]);
  assert.equal(timers.nextAt, 1_063_500);
  await timers.advance(3_000);
  assert.equal(jobs.readings()[0]!.running, true);
  wake(clock.now() + 1_000);
  wake();
  release();
  await settle();
  // The run said "when woken", and a wake came meanwhile: the earliest of them runs at once.
  assert.equal(timers.nextAt, clock.now());
  await timers.advance(0);
  assert.deepEqual(runs, [1_060_500, 1_063_500, 1_063_500]);
});

test('a job that says nothing of its next run keeps its interval, and a wake during its run brings the next one forward', async () => {
  const { clock, timers, jobs } = runner();
  const runs: number[] = [];
  let wake: Wake = () => {};
  jobs.add({ name: 'catch-up', everyMs: 1_000, wakeOn: [(w) => { wake = w; }], run: () => { runs.push(clock.now()); if (runs.length === 1) wake(clock.now() + 200); } });
  jobs.start();
  await timers.advance(1_000);
  assert.deepEqual(runs, [1_001_000]);
  assert.equal(timers.nextAt, 1_001_200);
  await timers.advance(1_200);
  assert.deepEqual(runs, [1_001_000, 1_001_200, 1_002_200]);
});
