import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AttemptWindow } from '../../src/people/attempt-window.js';
import { ManualClock } from '../../src/domain/clock.js';

test('attempts are counted per key over a sliding window', () => {
  const clock = new ManualClock(0);
  const window = new AttemptWindow(clock, 60_000);
  assert.equal(window.charge('a', 2), 0);
  clock.advance(10_000);
  assert.equal(window.charge('a', 2), 0);
  assert.equal(window.charge('a', 2), 50_000, 'until the first one ages out');
  assert.equal(window.charge('b', 2), 0, 'another key has its own count');
  clock.advance(50_001);
  assert.equal(window.charge('a', 2), 0, 'the first one aged out');
  assert.equal(window.charge('a', 2), 9_999);
});

test('a full table forgets keys whose attempts aged out, and never grows past its size', () => {
  const clock = new ManualClock(0);
  const window = new AttemptWindow(clock, 1_000, 3);
  for (const key of ['a', 'b', 'c']) window.charge(key, 1);
  clock.advance(500);
  assert.equal(window.charge('d', 1), 0, 'a flood of live keys starts over');
  assert.equal(window.charge('a', 1), 0, 'so a counted key was forgotten');
  clock.advance(2_000);
  window.charge('e', 1);
  assert.equal(window.charge('e', 1), 1_000, 'new keys are still counted');
});
