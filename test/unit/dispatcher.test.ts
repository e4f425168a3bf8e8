import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { ThreadDispatcher, type PoolOptions } from '../../src/engine/dispatcher.js';
import type { ProbeTask } from '../../src/domain/probe-types.js';

const task = (url: string, timeoutMs = 2000): ProbeTask => ({
  type: 'website', url, method: 'GET', headers: {}, body: null, expectedStatusCodes: [200], responseValidation: null,
  cacheControlNoCache: false, pingPackets: 1, timeoutMs, refusePrivate: null,
});

function scriptedPool(opts: PoolOptions = {}): ThreadDispatcher {
  return new ThreadDispatcher({ threads: 1, filename: fileURLToPath(new URL('../helpers/fixtures/scripted-worker.js', import.meta.url)), ...opts });
}

test('a worker crash fails its own probes as errors, never the process, and the pool recovers', async () => {
  const dispatcher = scriptedPool();
  try {
    const crashed = await dispatcher.run(task('http://127.0.0.1/crash'));
    assert.equal(crashed.ok, false);
    assert.match(crashed.error!, /Probe worker failed: .*worker blew up/);
    assert.equal(crashed.responseTime, null);
    const after = await dispatcher.run(task('http://127.0.0.1/fine'));
    assert.equal(after.ok, true, 'a replacement worker takes the next probe');
    assert.equal(dispatcher.inFlight, 0);
  } finally {
    await dispatcher.close();
  }
});

test('one worker runs many probes at once', async () => {
  const dispatcher = scriptedPool();
  try {
    const results = await Promise.all(Array.from({ length: 20 }, () => dispatcher.run(task('http://127.0.0.1/sleep'))));
    const concurrency = Math.max(...results.map((r) => Number(r.snippet)));
    assert.ok(concurrency > 1, `the worker only ever ran ${concurrency} probe at a time`);
  } finally {
    await dispatcher.close();
  }
});

test('beyond its capacity the pool queues, and a queued probe is not failed for waiting', async () => {
  const dispatcher = scriptedPool({ probesInFlightPerThread: 2, guardMs: 1 });
  try {
    await dispatcher.run(task('http://127.0.0.1/fine')); // the worker is up: its start-up is no probe's time
    // Each probe sleeps 50 ms under a guard of 251 ms (timeout + 1 ms); the whole queue, eight
    // rounds of two, takes longer than that, so a guard started at enqueue would fail the tail.
    const runs = Array.from({ length: 16 }, () => dispatcher.run(task('http://127.0.0.1/sleep', 250)));
    assert.equal(dispatcher.inFlight, 2);
    assert.equal(dispatcher.queued, 14);
    const results = await Promise.all(runs);
    assert.deepEqual(results.map((r) => r.error), Array(16).fill(null));
    assert.ok(results.every((r) => Number(r.snippet) <= 2), 'never more than probesInFlightPerThread at once');
    assert.equal(dispatcher.queued, 0);
  } finally {
    await dispatcher.close();
  }
});

test('a worker whose event loop is stuck is replaced; its probes fail, later probes run', async () => {
  const dispatcher = scriptedPool({ guardMs: 200 });
  try {
    const stuck = await dispatcher.run(task('http://127.0.0.1/wedge', 100));
    assert.equal(stuck.ok, false);
    assert.equal(stuck.error, 'Probe did not finish within 300 ms');
    const after = await dispatcher.run(task('http://127.0.0.1/fine'));
    assert.equal(after.ok, true, after.error ?? '');
  } finally {
    await dispatcher.close();
  }
});

test('a hung thread fails only its own probes, and the next tick runs on a fresh thread', async () => {
  const dispatcher = scriptedPool({ threads: 2, guardMs: 200 });
  try {
    // Both threads answer first, so each is known and the tick below splits over the two.
    const warm = await Promise.all([dispatcher.run(task('http://127.0.0.1/fine')), dispatcher.run(task('http://127.0.0.1/fine'))]);
    const threads = new Set(warm.map((r) => r.location));
    assert.equal(threads.size, 2, 'one probe per thread');
    // One tick: the wedge and its neighbours alternate between the threads.
    const tick = await Promise.all(['/wedge', '/fine', '/fine', '/fine'].map((path) => dispatcher.run(task(`http://127.0.0.1${path}`, 100))));
    const [wedged, other, sameThread, otherAgain] = tick;
    assert.equal(wedged!.error, 'Probe did not finish within 300 ms');
    assert.equal(sameThread!.ok, false, 'a probe on the hung thread cannot answer either');
    assert.match(sameThread!.error!, /Probe did not finish within 300 ms|Probe worker stopped answering/);
    assert.equal(other!.ok, true, other!.error ?? '');
    assert.equal(otherAgain!.ok, true, otherAgain!.error ?? '');
    const healthy = other!.location;
    const hung = [...threads].find((t) => t !== healthy)!;
    // The next ticks run on the healthy thread and on a fresh one, never on the hung one.
    let fresh: string | null = null;
    for (let round = 0; round < 500 && fresh === null; round++) {
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, 20)); // the new thread is starting
      const next = await Promise.all(Array.from({ length: 4 }, () => dispatcher.run(task('http://127.0.0.1/fine'))));
      for (const r of next) {
        assert.equal(r.ok, true, r.error ?? '');
        assert.notEqual(r.location, hung);
        if (r.location !== healthy) fresh = r.location;
      }
    }
    assert.ok(fresh !== null, 'a new thread took the hung one\'s place');
  } finally {
    await dispatcher.close();
  }
});

test('results that finish early come back before the slowest probe of their batch', async () => {
  const dispatcher = scriptedPool();
  try {
    await dispatcher.run(task('http://127.0.0.1/fine')); // the worker is up
    let slowSettled = false;
    // One tick, one batch: a probe that takes its whole (long) timeout, and a quick one.
    const slow = dispatcher.run(task('http://127.0.0.1/slow', 60_000)).then((r) => {
      slowSettled = true;
      return r;
    });
    const quick = await dispatcher.run(task('http://127.0.0.1/sleep', 60_000));
    assert.equal(quick.ok, true);
    assert.equal(quick.snippet, '2', 'the quick probe ran beside the slow one, in the same batch');
    assert.equal(slowSettled, false, 'the quick result did not wait for the slow one');
    assert.equal(dispatcher.inFlight, 1);
    await dispatcher.close();
    assert.equal((await slow).error, 'Probe pool is closed');
  } finally {
    await dispatcher.close();
  }
});

test('closing drops queued probes as failed and settles every run', async () => {
  const dispatcher = scriptedPool({ probesInFlightPerThread: 1 });
  await dispatcher.run(task('http://127.0.0.1/fine')); // the worker is up
  const runs = Array.from({ length: 3 }, () => dispatcher.run(task('http://127.0.0.1/sleep')));
  await dispatcher.close();
  const results = await Promise.all(runs);
  assert.equal(results.filter((r) => r.error === 'Probe pool is closed').length >= 2, true);
  assert.deepEqual(await dispatcher.run(task('http://127.0.0.1/fine')).then((r) => r.error), 'Probe pool is closed');
});
