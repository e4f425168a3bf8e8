import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claimable, fairShare, heldUntil, leaseTiming, rebalance, slotOf, SLOTS } from '../../src/domain/leases.js';

test('slotOf is stable and spreads check ids evenly over the slots', () => {
  assert.equal(slotOf('chk_abc'), slotOf('chk_abc'));
  const counts = new Array<number>(SLOTS).fill(0);
  for (let i = 0; i < 100_000; i++) counts[slotOf(`chk_${i.toString(36).padStart(10, '0')}`)]!++;
  const mean = 100_000 / SLOTS;
  assert.ok(Math.min(...counts) > mean * 0.6 && Math.max(...counts) < mean * 1.4, `slots from ${Math.min(...counts)} to ${Math.max(...counts)}`);
});

test('fair shares add up to every slot and differ by at most one, the same on every central', () => {
  for (const live of [['a'], ['a', 'b'], ['c', 'a', 'b'], ['a', 'b', 'c', 'd', 'e', 'f', 'g']]) {
    const shares = live.map((me) => fairShare(live, me));
    assert.equal(shares.reduce((x, y) => x + y, 0), SLOTS);
    assert.ok(Math.max(...shares) - Math.min(...shares) <= 1);
  }
  assert.deepEqual(['a', 'b', 'c'].map((me) => fairShare(['c', 'b', 'a'], me)), [342, 341, 341], 'the remainder goes to the first names');
  assert.equal(fairShare([], 'a'), SLOTS, 'a central counts itself even before its row is live');
  assert.equal(fairShare(['b'], 'a'), 512);
});

test('rebalance releases the excess (highest first) or claims free slots up to the share (lowest first)', () => {
  assert.deepEqual(rebalance([1, 5, 9, 3], [], 2), { claim: [], release: [9, 5] });
  assert.deepEqual(rebalance([1], [7, 0, 1, 4], 3), { claim: [0, 4], release: [] }, 'a slot already held is not claimed again');
  assert.deepEqual(rebalance([1, 2], [3], 2), { claim: [], release: [] });
  assert.deepEqual(rebalance([], [5], 3), { claim: [5], release: [] }, 'fewer free than wanted: what there is');
});

test('lease timing: renewals at most 4 s apart, so a dead central is replaced within leaseMs + 5 s', () => {
  const t = leaseTiming(15_000);
  assert.deepEqual(t, { leaseMs: 15_000, renewEveryMs: 4_000, marginMs: 2_000 });
  assert.deepEqual(leaseTiming(3_000), { leaseMs: 3_000, renewEveryMs: 1_000, marginMs: 600 });
  // Worst case: the dead central renewed at 0; its lease ends at leaseMs; a survivor renews just
  // before that and then renewEveryMs later, when it claims.
  for (const leaseMs of [3_000, 15_000, 60_000]) {
    const { renewEveryMs } = leaseTiming(leaseMs);
    assert.ok(leaseMs + renewEveryMs <= leaseMs + 5_000);
  }
});

test('fencing: the holder stops before its lease ends, so no one else may claim while it still acts', () => {
  const t = leaseTiming(15_000);
  const sentAt = 1_000_000;
  // The database stamped the lease's end no earlier than the renewal was sent.
  const leaseUntil = sentAt + 15_000;
  const stopAt = heldUntil(sentAt, t);
  assert.equal(stopAt, sentAt + 13_000);
  assert.equal(claimable(leaseUntil, stopAt), false, 'when the holder stops, nobody may claim yet');
  assert.equal(claimable(leaseUntil, leaseUntil - 1), false);
  assert.equal(claimable(leaseUntil, leaseUntil), true);
  // A holder whose clock runs up to the margin behind still stops before a claim can happen.
  const skew = t.marginMs - 1;
  assert.ok(stopAt + skew < leaseUntil);
});
