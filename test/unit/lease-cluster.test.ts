import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ManualClock } from '../../src/domain/clock.js';
import { leaseTiming, slotOf, SLOTS } from '../../src/domain/leases.js';
import { InProcessBus } from '../../src/store/change-bus.js';
import { LeaseCluster } from '../../src/cluster/lease-cluster.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import type { ClusterRepo } from '../../src/store/cluster-repo.js';

const LEASE = 15_000;
const { renewEveryMs } = leaseTiming(LEASE);
const log = pino({ level: 'silent' });
/** One id per slot, so "every check" is "every slot". */
const ids = (() => {
  const bySlot = new Map<number, string>();
  for (let i = 0; bySlot.size < SLOTS; i++) {
    const id = `chk_${i}`;
    if (!bySlot.has(slotOf(id))) bySlot.set(slotOf(id), id);
  }
  return [...bySlot.values()];
})();

function world() {
  const store = openSqliteStore(':memory:');
  const clock = new ManualClock(Date.UTC(2026, 10, 1));
  const bus = new InProcessBus();
  const central = (name: string, repo: ClusterRepo = store.cluster) => {
    const c: LeaseCluster = new LeaseCluster({
      repo, name, version: 'test', leaseMs: LEASE, clock, log, bus,
      countOwned: (): number => ids.filter((id) => c.owns(id)).length,
      renewSoon: () => void c.renew().catch(() => {}),
    });
    const gained: number[] = [];
    c.onGained((owns) => gained.push(ids.filter(owns).length));
    return Object.assign(c, { gained });
  };
  /** Centrals a and b, each holding half the slots after one round of renewals. */
  const halves = async (aRepo?: ClusterRepo) => {
    const a = central('a', aRepo);
    const b = central('b');
    await a.start();
    await b.start();
    clock.advance(renewEveryMs);
    await a.renew();
    await b.renew();
    return [a, b] as const;
  };
  const owners = (...cs: LeaseCluster[]) => ids.map((id) => cs.filter((c) => c.owns(id)).map((c) => c.name));
  const close = () => {
    bus.close();
    return store.close();
  };
  return { store, clock, bus, central, halves, owners, close };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('two centrals: the second takes a fair half, every check owned by exactly one', async () => {
  const w = world();
  const a = w.central('a');
  await a.start();
  assert.deepEqual(w.owners(a).filter((o) => o.length === 1).length, SLOTS, 'alone, a owns everything');
  assert.deepEqual(a.gained, [SLOTS]);
  const b = w.central('b');
  await b.start();
  assert.equal(ids.filter((id) => b.owns(id)).length, 0, 'a holds everything until it gives its excess up');
  w.clock.advance(renewEveryMs);
  await a.renew(); // releases half and tells b, which claims at once
  await settle();
  await b.renew();
  const owners = w.owners(a, b);
  assert.ok(owners.every((o) => o.length === 1), 'each check has exactly one owner');
  assert.equal(owners.filter((o) => o[0] === 'a').length, SLOTS / 2);
  assert.deepEqual(b.gained, [SLOTS / 2]);
  assert.deepEqual((await w.store.cluster.live(w.clock.now())).map((i) => i.name), ['a', 'b']);
  await w.close();
});

test('kill -9: a dead central\'s checks are taken over within leaseMs + 5 s, and never owned twice meanwhile', async () => {
  const w = world();
  const [a, b] = await w.halves();
  assert.equal(ids.filter((id) => b.owns(id)).length, SLOTS / 2);
  // a dies right after a renewal: nothing renews it again.
  const diedAt = w.clock.now();
  await a.renew();
  let takenOverAt: number | null = null;
  for (let t = 0; t < 10 && takenOverAt === null; t++) {
    for (let step = 0; step < renewEveryMs; step += 250) {
      w.clock.advance(250);
      assert.ok(w.owners(a, b).every((o) => o.length <= 1), `at +${w.clock.now() - diedAt} ms no check has two owners`);
    }
    await b.renew();
    if (ids.every((id) => b.owns(id))) takenOverAt = w.clock.now();
  }
  assert.notEqual(takenOverAt, null);
  assert.ok(takenOverAt! - diedAt <= LEASE + 5_000, `taken over after ${takenOverAt! - diedAt} ms`);
  assert.ok(!a.holding(), 'the dead central would not act: its lease has lapsed');
  assert.deepEqual(b.gained, [SLOTS / 2, SLOTS / 2]);
  await w.close();
});

test('SIGTERM: a stopping central hands its checks over at once', async () => {
  const w = world();
  const [a, b] = await w.halves();
  await a.stop();
  assert.equal(ids.filter((id) => a.owns(id)).length, 0);
  // The bus tells b, which renews and claims everything without waiting for a lease to run out.
  for (let i = 0; i < 100 && !ids.every((id) => b.owns(id)); i++) await settle();
  assert.ok(ids.every((id) => b.owns(id)), 'b owns every check at once');
  assert.deepEqual((await w.store.cluster.live(w.clock.now())).map((i) => i.name), ['b']);
  await w.close();
});

test('fencing: a central cut off from the database stops acting before another may take over', async () => {
  const w = world();
  let reachable = true;
  const cut: ClusterRepo = new Proxy(w.store.cluster, {
    get: (target, key) => (...args: unknown[]) => {
      if (!reachable) return Promise.reject(new Error('connection refused'));
      return (target[key as keyof ClusterRepo] as (...a: unknown[]) => unknown)(...args);
    },
  });
  const [a, b] = await w.halves(cut);
  const aOwned = ids.filter((id) => a.owns(id));
  assert.equal(aOwned.length, SLOTS / 2);
  reachable = false;
  let stoppedAt: number | null = null;
  let claimedAt: number | null = null;
  for (let step = 0; step < 40 && claimedAt === null; step++) {
    w.clock.advance(500);
    await a.renew().catch(() => {}); // fails: a keeps its lease only until its last renewal's end, less the margin
    if (stoppedAt === null && !a.holding()) stoppedAt = w.clock.now();
    await b.renew();
    if (aOwned.some((id) => b.owns(id))) claimedAt = w.clock.now();
    assert.ok(w.owners(a, b).every((o) => o.length <= 1));
  }
  assert.notEqual(stoppedAt, null);
  assert.notEqual(claimedAt, null);
  assert.ok(stoppedAt! < claimedAt!, `a stopped at ${stoppedAt}, b claimed at ${claimedAt}`);
  // Should a's writes still reach the database, its fence is refused there, b's is not.
  const fenceA = a.fence();
  assert.equal(await w.store.cluster.holds(fenceA.holder, fenceA.now), false);
  const fenceB = b.fence();
  assert.equal(await w.store.cluster.holds(fenceB.holder, fenceB.now), true);
  assert.equal(a.reading().renewalFailures > 0, true);
  await w.close();
});

test('the same name joining again supersedes the running process, which stops', async () => {
  const w = world();
  const first = w.central('a');
  await first.start();
  const second = w.central('a');
  await second.start();
  w.clock.advance(renewEveryMs);
  await first.renew();
  assert.equal(first.holding(), false);
  assert.equal(ids.some((id) => first.owns(id)), false);
  // The second claims what the first held once that lease runs out.
  w.clock.advance(LEASE);
  await second.renew();
  assert.ok(ids.every((id) => second.owns(id)));
  await w.close();
});
