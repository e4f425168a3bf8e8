import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import {
  TimingWheel, followingDue, hashId, nextDue, phaseOffset,
} from '../../src/engine/timing-wheel.js';
import { CheckWheel } from '../../src/engine/check-wheel.js';
import { QUIET_STRIDE_MS, startWheelDriver, strideFor, type DriverTimers } from '../../src/engine/wheel-driver.js';

const T0 = Date.UTC(2026, 0, 1);
const TICK = 100;

interface Fired {
  id: string;
  dueAt: number;
  at: number;
}

function setup(options: { slots?: number; start?: number } = {}) {
  const clock = new ManualClock(options.start ?? T0);
  const wheel = new TimingWheel({ clock, tickMs: TICK, slots: options.slots ?? 64 });
  const fired: Fired[] = [];
  const advanceTo = (ms: number): number => {
    clock.set(ms);
    return wheel.advance(ms, (id, dueAt) => fired.push({ id, dueAt, at: ms }));
  };
  return { clock, wheel, fired, advanceTo };
}

/** Deterministic pseudo-random numbers so failures reproduce. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 0x1_0000_0000;
  };
}

function assertDueOrder(fired: Fired[]): void {
  for (let i = 1; i < fired.length; i++) {
    assert.ok(fired[i - 1]!.dueAt <= fired[i]!.dueAt, `fired out of order at ${i}`);
  }
}

describe('TimingWheel', () => {
  test('fires everything in due order, never early, less than one tick late', () => {
    const { wheel, fired, advanceTo } = setup();
    const rand = lcg(1);
    for (let i = 0; i < 2000; i++) wheel.schedule(`probe:${i}`, T0 + Math.floor(rand() * 30_000));
    assert.equal(wheel.size, 2000);
    for (let t = T0; t <= T0 + 30_100; t += TICK) advanceTo(t);
    assert.equal(fired.length, 2000);
    assert.equal(wheel.size, 0);
    assertDueOrder(fired);
    for (const f of fired) {
      assert.ok(f.at >= f.dueAt, `${f.id} fired early`);
      assert.ok(f.at - f.dueAt < TICK, `${f.id} fired ${f.at - f.dueAt} ms late`);
    }
  });

  test('advancing at arbitrary instants never fires early', () => {
    const { wheel, fired, advanceTo } = setup();
    const rand = lcg(2);
    for (let i = 0; i < 500; i++) wheel.schedule(`probe:${i}`, T0 + 1 + Math.floor(rand() * 10_000));
    let t = T0;
    while (t < T0 + 10_100) {
      t += 1 + Math.floor(rand() * 57);
      advanceTo(t);
    }
    assert.equal(fired.length, 500);
    for (const f of fired) assert.ok(f.at >= f.dueAt && f.at - f.dueAt < 57);
    assertDueOrder(fired);
  });

  test('an entry due inside the current tick waits for its instant', () => {
    const { wheel, fired, advanceTo } = setup();
    wheel.schedule('probe:a', T0 + 250);
    advanceTo(T0 + 210);
    assert.equal(fired.length, 0);
    advanceTo(T0 + 249);
    assert.equal(fired.length, 0);
    advanceTo(T0 + 250);
    assert.deepEqual(fired.map((f) => f.id), ['probe:a']);
  });

  test('equal due times fire in scheduling order', () => {
    const { wheel, fired, advanceTo } = setup();
    for (const id of ['c', 'a', 'b']) wheel.schedule(id, T0 + 500);
    advanceTo(T0 + 500);
    assert.deepEqual(fired.map((f) => f.id), ['c', 'a', 'b']);
  });

  test('reschedule moves an entry; cancel removes it', () => {
    const { wheel, fired, advanceTo } = setup();
    wheel.schedule('probe:a', T0 + 1000);
    wheel.schedule('probe:b', T0 + 1000);
    wheel.schedule('probe:c', T0 + 3000);
    wheel.schedule('probe:a', T0 + 5000);
    wheel.schedule('probe:c', T0 + 200);
    assert.equal(wheel.size, 3);
    assert.equal(wheel.dueAt('probe:a'), T0 + 5000);
    assert.equal(wheel.cancel('probe:b'), true);
    assert.equal(wheel.cancel('probe:b'), false);
    assert.equal(wheel.cancel('nope'), false);
    assert.equal(wheel.has('probe:b'), false);
    assert.equal(wheel.size, 2);
    for (let t = T0; t <= T0 + 6000; t += TICK) advanceTo(t);
    assert.deepEqual(fired.map((f) => [f.id, f.at - T0]), [['probe:c', 200], ['probe:a', 5000]]);
  });

  test('a past due time fires on the next advance', () => {
    const { wheel, fired, advanceTo } = setup();
    advanceTo(T0 + 10_000);
    wheel.schedule('deadline:x', T0 + 1);
    advanceTo(T0 + 10_050);
    assert.deepEqual(fired.map((f) => [f.id, f.dueAt]), [['deadline:x', T0 + 1]]);
  });

  test('entries many revolutions ahead fire once, on time', () => {
    // 8 slots x 100 ms: one revolution is 800 ms.
    const { wheel, fired, advanceTo } = setup({ slots: 8 });
    wheel.schedule('domain:far', T0 + 86_400_000 + 30);
    wheel.schedule('probe:mid', T0 + 10_050);
    wheel.schedule('probe:near', T0 + 350);
    for (let t = T0; t <= T0 + 20_000; t += TICK) advanceTo(t);
    assert.deepEqual(fired.map((f) => [f.id, f.at - f.dueAt]), [['probe:near', 50], ['probe:mid', 50]]);
    advanceTo(T0 + 86_400_000);
    assert.equal(fired.length, 2);
    advanceTo(T0 + 86_400_100);
    assert.deepEqual(fired.map((f) => f.id).at(-1), 'domain:far');
    assert.equal(wheel.size, 0);
  });

  test('a late advance catches up on every missed tick, in due order', () => {
    const { wheel, fired, advanceTo } = setup({ slots: 16 });
    const rand = lcg(3);
    for (let i = 0; i < 300; i++) wheel.schedule(`p${i}`, T0 + Math.floor(rand() * 5000));
    // Also longer than a revolution (1.6 s) and with entries left beyond the jump.
    wheel.schedule('later', T0 + 9000);
    assert.equal(advanceTo(T0 + 5000), 300);
    assertDueOrder(fired);
    advanceTo(T0 + 8999);
    assert.equal(fired.length, 300);
    advanceTo(T0 + 9000);
    assert.equal(fired.at(-1)!.id, 'later');
  });

  test('fire may reschedule itself; an entry due now rescheduled from fire waits one advance', () => {
    const { wheel, clock } = setup();
    const seen: number[] = [];
    wheel.schedule('probe:loop', T0 + 100);
    const fire = (id: string, dueAt: number): void => {
      seen.push(dueAt);
      wheel.schedule(id, clock.now()); // "immediate recheck"
    };
    clock.set(T0 + 100);
    assert.equal(wheel.advance(clock.now(), fire), 1);
    assert.equal(wheel.has('probe:loop'), true);
    clock.set(T0 + 200);
    assert.equal(wheel.advance(clock.now(), fire), 1);
    assert.deepEqual(seen, [T0 + 100, T0 + 100]);
  });

  test('inside fire the firing entry is no longer scheduled; after the batch unrescheduled ones are gone', () => {
    const { wheel } = setup();
    wheel.schedule('probe:keep', T0 + 10);
    wheel.schedule('deadline:once', T0 + 20);
    const seen: [string, boolean, number, boolean][] = [];
    wheel.advance(T0 + 100, (id) => {
      seen.push([id, wheel.has(id), wheel.size, wheel.cancel(id)]);
      if (id === 'probe:keep') wheel.schedule(id, T0 + 60_000);
    });
    assert.deepEqual(seen, [['probe:keep', false, 1, false], ['deadline:once', false, 1, false]]);
    assert.equal(wheel.size, 1);
    assert.equal(wheel.dueAt('probe:keep'), T0 + 60_000);
    assert.equal(wheel.has('deadline:once'), false);
    assert.equal(wheel.dueAt('deadline:once'), undefined);
    // Both nodes were recycled correctly: a new id reuses the released one.
    wheel.schedule('deadline:again', T0 + 200);
    assert.equal(wheel.advance(T0 + 200, () => {}), 1);
  });

  test('fire may cancel or move entries of the same batch', () => {
    const { wheel, clock } = setup();
    wheel.schedule('probe:a', T0 + 10);
    wheel.schedule('deadline:a', T0 + 20);
    wheel.schedule('probe:b', T0 + 30);
    const seen: string[] = [];
    const fire = (id: string): void => {
      seen.push(id);
      if (id === 'probe:a') {
        wheel.cancel('deadline:a');
        wheel.schedule('probe:b', T0 + 5000);
      }
    };
    clock.set(T0 + 100);
    wheel.advance(clock.now(), fire);
    assert.deepEqual(seen, ['probe:a']);
    assert.equal(wheel.dueAt('probe:b'), T0 + 5000);
    assert.equal(wheel.size, 1);
  });

  test('a throwing fire loses nothing: the rest fire on the next advance', () => {
    const { wheel } = setup();
    for (const id of ['a', 'b', 'c']) wheel.schedule(id, T0 + 10);
    assert.throws(() => wheel.advance(T0 + 100, (id) => {
      if (id === 'a') throw new Error('boom');
    }));
    const seen: string[] = [];
    wheel.advance(T0 + 200, (id) => seen.push(id));
    assert.deepEqual(seen, ['b', 'c']);
  });

  test('advance is not reentrant; a clock stepping back fires nothing', () => {
    const { wheel } = setup();
    wheel.schedule('a', T0 + 10);
    assert.throws(() => wheel.advance(T0 + 100, () => wheel.advance(T0 + 100, () => {})), /reentrant/);
    wheel.schedule('b', T0 + 150);
    assert.equal(wheel.advance(T0 - 5000, () => {}), 0);
    assert.equal(wheel.advance(T0 + 200, () => {}), 1);
  });

  test('storage grows and reuses freed entries', () => {
    const clock = new ManualClock(T0);
    const wheel = new TimingWheel({ clock, initialCapacity: 16 });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 5000; i++) wheel.schedule(`probe:${i}`, T0 + 1000 + i);
      assert.equal(wheel.size, 5000);
      for (let i = 0; i < 5000; i += 2) wheel.cancel(`probe:${i}`);
      assert.equal(wheel.size, 2500);
      let fired = 0;
      wheel.advance(T0 + 10_000, (id) => {
        fired++;
        assert.equal(Number(id.slice(6)) % 2, 1);
      });
      assert.equal(fired, 2500);
      assert.equal(wheel.size, 0);
    }
  });

  test('matches a reference model under random schedule, cancel, advance and re-entrant fire', () => {
    const { wheel, clock } = setup({ slots: 16 });
    const rand = lcg(5);
    const model = new Map<string, { due: number; seq: number }>();
    let seq = 0;
    const put = (id: string, due: number): void => {
      wheel.schedule(id, due);
      model.set(id, { due, seq: ++seq });
    };
    const drop = (id: string): void => {
      assert.equal(wheel.cancel(id), model.delete(id));
    };
    const randomId = (): string => `e${Math.floor(rand() * 300)}`;
    let fires = 0;
    for (let op = 0; op < 4000; op++) {
      const r = rand();
      const now = clock.now();
      if (r < 0.45) put(randomId(), now - 500 + Math.floor(rand() * (rand() < 0.1 ? 20_000 : 3000)));
      else if (r < 0.6) drop(randomId());
      else {
        const to = now + Math.floor(rand() * (rand() < 0.05 ? 5000 : 400));
        clock.set(to);
        const expected = [...model].filter(([, e]) => e.due <= to)
          .sort(([, a], [, b]) => a.due - b.due || a.seq - b.seq);
        let k = 0;
        wheel.advance(to, (id, dueAt) => {
          while (k < expected.length && model.get(expected[k]![0])?.seq !== expected[k]![1].seq) k++;
          assert.ok(k < expected.length, `unexpected fire of ${id}`);
          assert.deepEqual([id, dueAt], [expected[k]![0], expected[k]![1].due]);
          model.delete(id);
          k++;
          fires++;
          const action = rand();
          if (action < 0.3) put(id, to + Math.floor(rand() * 1000) - 300);
          else if (action < 0.45) drop(randomId());
          else if (action < 0.6) put(randomId(), to + Math.floor(rand() * 2000) - 1000);
        });
        while (k < expected.length && model.get(expected[k]![0])?.seq !== expected[k]![1].seq) k++;
        assert.equal(k, expected.length, 'an entry due was not fired');
      }
      assert.equal(wheel.size, model.size);
    }
    assert.ok(fires > 500);
  });

  test('rejects bad options and due times', () => {
    const clock = new ManualClock(T0);
    assert.throws(() => new TimingWheel({ clock, slots: 100 }), RangeError);
    assert.throws(() => new TimingWheel({ clock, tickMs: 0 }), RangeError);
    assert.throws(() => new TimingWheel({ clock }).schedule('a', Number.NaN), RangeError);
  });
});

describe('phase', () => {
  test('equal intervals spread evenly over the interval', () => {
    const interval = 60_000;
    const buckets = new Array<number>(100).fill(0);
    for (let i = 0; i < 10_000; i++) {
      const phase = phaseOffset(`probe:chk_${String(i).padStart(6, '0')}`, interval);
      assert.ok(Number.isInteger(phase) && phase >= 0 && phase < interval);
      buckets[Math.floor(phase / (interval / 100))]!++;
    }
    // Binomial(10000, 1/100): mean 100, sd ~10. A hash that clusters blows far past 5 sd.
    assert.ok(Math.max(...buckets) <= 150, `max bucket ${Math.max(...buckets)}`);
    assert.ok(Math.min(...buckets) >= 50, `min bucket ${Math.min(...buckets)}`);
  });

  test('the hash is pinned: a changed hash would move every check after an upgrade', () => {
    assert.equal(hashId('probe:chk_000001'), 3174243288);
    assert.equal(phaseOffset('probe:chk_000001', 300_000), 221718);
  });

  test('nextDue is on the phase, at or after now, and stable across restarts', () => {
    const rand = lcg(4);
    for (let i = 0; i < 1000; i++) {
      const id = `probe:${i}`;
      const interval = [3000, 30_000, 60_000, 300_000, 86_400_000][i % 5]!;
      const now = T0 + Math.floor(rand() * 1e9);
      const due = nextDue(id, interval, now);
      const phase = phaseOffset(id, interval);
      assert.ok(due >= now && due < now + interval);
      assert.equal((due - phase) % interval, 0);
      // A "restart" at any later time lands on the same grid.
      const later = now + Math.floor(rand() * 1e8);
      assert.equal((nextDue(id, interval, later) - due) % interval, 0);
      assert.equal(nextDue(id, interval, due), due);
    }
  });

  test('followingDue is strictly after the firing and never in the past', () => {
    const interval = 60_000;
    const first = nextDue('probe:x', interval, T0);
    assert.equal(followingDue('probe:x', interval, first, first), first + interval);
    // Ran late by 2.5 intervals: skip the missed slots instead of bursting.
    const late = first + 150_000;
    assert.equal(followingDue('probe:x', interval, first, late), first + 3 * interval);
    // Off-phase run ("PATCH runs now") falls back onto the phase.
    const off = first + 1234;
    assert.equal(followingDue('probe:x', interval, off, off), first + interval);
  });

  test('the check wheel routes each kind of entry to its one handler, with the check id', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const wheel = new CheckWheel(clock, 100);
    const fired: string[] = [];
    wheel.handle('probe', (id) => fired.push(`probe ${id}`));
    wheel.handle('deadline', (id) => fired.push(`deadline ${id}`));
    assert.throws(() => wheel.handle('probe', () => {}), /already have a handler/);
    wheel.schedule('probe', 'chk:1', clock.now() + 100);
    wheel.schedule('deadline', 'chk:1', clock.now() + 200);
    wheel.schedule('domain', 'chk:2', clock.now() + 100);
    assert.equal(wheel.has('deadline', 'chk:1'), true);
    assert.equal(wheel.dueAt('probe', 'chk:1'), clock.now() + 100);
    clock.advance(300);
    wheel.advance(clock.now());
    assert.deepEqual(fired, ['probe chk:1', 'deadline chk:1'], 'a kind with no handler fires nothing');
    assert.equal(wheel.size, 0);
  });
});

describe('wheel driver', () => {
  function fakeTimers(clock: ManualClock) {
    const queue: { at: number; cb: () => void; handle: number }[] = [];
    let nextHandle = 1;
    const delays: number[] = [];
    const timers: DriverTimers = {
      setTimeout(cb, ms) {
        delays.push(ms);
        const handle = nextHandle++;
        queue.push({ at: clock.now() + ms, cb, handle });
        return handle;
      },
      clearTimeout(handle) {
        const i = queue.findIndex((t) => t.handle === handle);
        if (i !== -1) queue.splice(i, 1);
      },
    };
    /** Runs the pending timer, optionally `lag` ms late (a blocked event loop). */
    const runNext = (lag = 0): void => {
      const timer = queue.shift();
      assert.ok(timer, 'no timer armed');
      clock.set(timer.at + lag);
      timer.cb();
    };
    return { timers, runNext, queue, delays };
  }

  /** A driver started 37 ms into a tick over entries due at T0 + ms, recording what fired when. */
  function drivenWheel(due: Record<string, number>, strideMs?: () => number) {
    const clock = new ManualClock(T0 + 37);
    const wheel = new TimingWheel({ clock, tickMs: TICK, slots: 64 });
    const { timers, runNext, delays } = fakeTimers(clock);
    const fired: Fired[] = [];
    for (const [id, ms] of Object.entries(due)) wheel.schedule(id, T0 + ms);
    const fire = (id: string, dueAt: number) => void fired.push({ id, dueAt, at: clock.now() });
    const driver = startWheelDriver({ wheel, clock, timers, fire, ...(strideMs ? { strideMs } : {}) });
    return { runNext, delays, fired, driver };
  }

  test('ticks on tick boundaries and fires within a tick', () => {
    const { runNext, delays, fired, driver } = drivenWheel({ a: 150, b: 420 });
    assert.equal(delays[0], 63);
    for (let i = 0; i < 5; i++) runNext();
    assert.deepEqual(delays, [63, 100, 100, 100, 100, 100]);
    assert.deepEqual(fired.map((f) => [f.id, f.at - T0]), [['a', 200], ['b', 500]]);
    driver.stop();
    assert.equal(driver.running, false);
  });

  test('a blocked loop catches up in one tick and realigns to the boundary', () => {
    const clock = new ManualClock(T0);
    const wheel = new TimingWheel({ clock, tickMs: TICK, slots: 64 });
    const { timers, runNext, delays, queue } = fakeTimers(clock);
    const seen: string[] = [];
    for (let i = 0; i < 30; i++) wheel.schedule(`p${i}`, T0 + i * 100 + 5);
    const driver = startWheelDriver({ wheel, clock, timers, fire: (id) => seen.push(id) });
    runNext(2_950); // the first tick runs ~3 s late
    assert.equal(seen.length, 30);
    assert.equal(delays.at(-1), 50);
    driver.stop();
    assert.equal(queue.length, 0);
  });

  test('reports how late each tick ran after its boundary', () => {
    const clock = new ManualClock(T0 + 37);
    const wheel = new TimingWheel({ clock, tickMs: TICK, slots: 64 });
    const { timers, runNext } = fakeTimers(clock);
    const late: number[] = [];
    const driver = startWheelDriver({ wheel, clock, timers, fire: () => {}, onTick: (ms) => late.push(ms) });
    runNext();
    runNext(7);
    runNext(250); // two boundaries missed: late by 250 ms after the one it was armed for
    runNext();
    assert.deepEqual(late, [0, 7, 250, 0]);
    driver.stop();
  });

  test('a quiet wheel ticks on wider boundaries and still fires every entry within its stride', () => {
    let stride = 500;
    const { runNext, delays, fired, driver } = drivenWheel({ a: 150, b: 420, c: 1_010 }, () => stride);
    assert.equal(delays[0], 463, 'aimed at the next 500 ms boundary');
    runNext();
    assert.deepEqual(fired.map((f) => [f.id, f.at - T0]), [['a', 500], ['b', 500]], 'both due within the stride, swept by one tick');
    assert.equal(delays[1], 500);
    stride = 250; // not a whole number of ticks: rounded down to two
    runNext();
    assert.equal(delays[2], 200);
    stride = 0; // never less than one tick
    runNext();
    runNext();
    assert.deepEqual(delays.slice(3), [100, 100]);
    assert.deepEqual(fired.map((f) => [f.id, f.at - T0]), [['a', 500], ['b', 500], ['c', 1_200]]);
    driver.stop();
  });

  test('the stride keeps a quiet burst small and ticks every tick when busy', () => {
    assert.equal(strideFor(0, TICK), QUIET_STRIDE_MS);
    assert.equal(strideFor(25, TICK), QUIET_STRIDE_MS);
    assert.equal(strideFor(250, TICK), 200);
    assert.equal(strideFor(1_000, TICK), TICK);
  });

  test('a throwing fire is reported and the tick goes on', () => {
    const clock = new ManualClock(T0);
    const wheel = new TimingWheel({ clock, tickMs: TICK, slots: 64 });
    const { timers, runNext } = fakeTimers(clock);
    const seen: string[] = [];
    const errors: unknown[] = [];
    for (const id of ['a', 'b']) wheel.schedule(id, T0 + 10);
    const driver = startWheelDriver({
      wheel, clock, timers, onError: (e) => errors.push(e),
      fire: (id) => {
        if (id === 'a') throw new Error('boom');
        seen.push(id);
      },
    });
    runNext();
    assert.deepEqual(seen, ['b']);
    assert.equal(errors.length, 1);
    assert.equal(driver.running, true);
    driver.stop();
  });
});
