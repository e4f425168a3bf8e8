import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ManualClock } from '../../src/domain/clock.js';
import type { Delivery, NewAlert } from '../../src/store/alert-store.js';
import type { AlertChannel, AttemptOutcome } from '../../src/alerts/channel.js';
import { backoffMs, DeliverySender, MAX_BACKOFF_MS } from '../../src/alerts/delivery/sender.js';
import { sqliteDeliveryQueue } from '../../src/store/sqlite/alerts/delivery-queue.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { waitFor } from '../helpers/fixtures/probe-task.js';

const T0 = Date.UTC(2026, 5, 1, 12);
const BASE = 1000;
const log = pino({ level: 'silent' });

async function world() {
  const store = openSqliteStore(':memory:');
  await store.accounts.insert({ id: 'acc_1', email: 'q@example.com', tier: 'pro', maxChecksOverride: null, claimed: true, createdAt: T0 });
  const queue = sqliteDeliveryQueue(store.db);
  const clock = new ManualClock(T0);
  return { store, queue, clock };
}

let n = 0;
const DAY = 86_400_000;
/** Alerts to one target, each of its own check unless `checkId` says (order is kept per target and check). */
function rows(count: number, target = 'whk_a', checkId?: string, retryUntil = T0 + DAY): NewAlert[] {
  return Array.from({ length: count }, () => ({
    accountId: 'acc_1',
    checkId: checkId ?? `chk_${++n}`,
    event: 'website_down' as const,
    contentJson: JSON.stringify({ event: 'website_down' }),
    createdAt: T0,
    retryUntil,
    deliveries: [{ id: `dlv_${String(++n).padStart(20, '0')}`, channel: 'webhook' as const, target }],
  }));
}
const ids = (alerts: NewAlert[]) => alerts.map((a) => a.deliveries[0]!.id);

/** A channel whose answers the test scripts; it records every attempt. */
class ScriptedChannel implements AlertChannel {
  attempts: Delivery[] = [];
  pending: Array<{ d: Delivery; resolve: (o: AttemptOutcome) => void }> = [];
  constructor(public answer: (d: Delivery) => AttemptOutcome | 'hold' = () => ({ kind: 'delivered', status: 200 })) {}
  attempt(d: Delivery, signal: AbortSignal): Promise<AttemptOutcome> {
    this.attempts.push(d);
    const a = this.answer(d);
    if (a !== 'hold') return Promise.resolve(a);
    return new Promise((resolve) => {
      this.pending.push({ d, resolve });
      signal.addEventListener('abort', () => resolve({ kind: 'failed', status: null, error: 'aborted', retryable: true }));
    });
  }
}

function sender(w: Awaited<ReturnType<typeof world>>, channel: AlertChannel, over: Partial<ConstructorParameters<typeof DeliverySender>[0]['options']> = {}) {
  return new DeliverySender({
    queue: w.store.alerts.deliveries,
    channels: { webhook: channel, email: channel },
    clock: w.clock,
    log,
    options: { retryBaseMs: BASE, retryForHours: 24, timeoutMs: 1000, concurrency: 8, perTargetConcurrency: 8, keepDays: 30, ...over },
    random: () => 0,
  });
}

describe('delivery queue', () => {
  test('a claim leases rows and counts the attempt; leased rows are not claimed twice until the lease runs out', async () => {
    const w = await world();
    const alerts = rows(3);
    w.queue.enqueue(alerts, T0);
    const first = w.queue.claim(T0, T0 + 5000, 2, new Map(), 10);
    assert.equal(first.length, 2);
    assert.ok(first.every((d) => d.status === 'sending' && d.attempts === 1));
    const second = w.queue.claim(T0, T0 + 5000, 10, new Map(), 10);
    assert.deepEqual(second.map((d) => d.id), [ids(alerts)[2]]);
    assert.equal(w.queue.claim(T0 + 4999, T0 + 9000, 10, new Map(), 10).length, 0);
    const again = w.queue.claim(T0 + 5000, T0 + 9000, 10, new Map(), 10);
    assert.equal(again.length, 3, 'a lease that ran out (a crash) makes the row claimable again');
    assert.ok(again.every((d) => d.attempts === 2));
  });

  test('a lease that runs out past the retry window fails the row instead', async () => {
    const w = await world();
    w.queue.enqueue(rows(1, 'whk_a', undefined, T0 + 100), T0);
    for (let i = 0; i < 3; i++) assert.equal(w.queue.claim(T0 + i * 10, T0 + i * 10 + 5, 1, new Map(), 1).length, 1, 'inside the window a crashed attempt is retried');
    assert.equal(w.queue.claim(T0 + 1000, T0 + 2000, 1, new Map(), 1).length, 0);
    assert.deepEqual(w.queue.countByStatus(), { pending: 0, sending: 0, delivered: 0, failed: 1, cancelled: 0 });
  });

  test('per target and check, a later alert waits until the earlier one is finished', async () => {
    const w = await world();
    const line = rows(3, 'whk_a', 'chk_same');
    const elsewhere = rows(1, 'whk_b', 'chk_same');
    w.queue.enqueue([...line, ...elsewhere], T0);
    const first = w.queue.claim(T0, T0 + 5000, 10, new Map(), 10);
    assert.deepEqual(first.map((d) => d.id).sort(), [ids(line)[0], ids(elsewhere)[0]].sort(), 'one head per target');
    w.queue.settle([
      { id: ids(line)[0]!, outcome: { kind: 'retry', status: 503, error: 'receiver answered 503', nextAt: T0 + 60_000 } },
      { id: ids(elsewhere)[0]!, outcome: { kind: 'delivered', status: 200 } },
    ], T0);
    assert.equal(w.queue.claim(T0 + 1, T0 + 5000, 10, new Map(), 10).length, 0, 'the second waits behind the retrying first');
    const retried = w.queue.claim(T0 + 60_000, T0 + 65_000, 10, new Map(), 10);
    assert.deepEqual(retried.map((d) => d.id), [ids(line)[0]]);
    w.queue.settle([{ id: ids(line)[0]!, outcome: { kind: 'delivered', status: 200 } }], T0 + 60_000);
    assert.deepEqual(w.queue.claim(T0 + 60_000, T0 + 65_000, 10, new Map(), 10).map((d) => d.id), [ids(line)[1]]);
  });

  test("a retry that succeeds makes the target's other waiting retries due at once", async () => {
    const w = await world();
    const [a, b] = [rows(1), rows(1)];
    const other = rows(1, 'whk_other');
    w.queue.enqueue([...a!, ...b!, ...other], T0);
    w.queue.claim(T0, T0 + 5000, 10, new Map(), 10);
    const retry = (id: string, nextAt: number) => ({ id, outcome: { kind: 'retry' as const, status: null, error: 'connection refused', nextAt } });
    w.queue.settle([retry(ids(a!)[0]!, T0 + 10_000), retry(ids(b!)[0]!, T0 + 50_000), retry(ids(other)[0]!, T0 + 50_000)], T0);
    w.queue.claim(T0 + 10_000, T0 + 15_000, 10, new Map(), 10);
    w.queue.settle([{ id: ids(a!)[0]!, outcome: { kind: 'delivered', status: 200, recovered: true } }], T0 + 10_000);
    assert.equal(w.queue.byId(ids(b!)[0]!)!.nextAt, T0 + 10_000);
    assert.equal(w.queue.byId(ids(other)[0]!)!.nextAt, T0 + 50_000, 'other targets keep their backoff');
  });

  test('a failed delivery can be queued again with a new window; nothing else can', async () => {
    const w = await world();
    const alerts = rows(2);
    w.queue.enqueue(alerts, T0);
    w.queue.claim(T0, T0 + 5000, 10, new Map(), 10);
    w.queue.settle([
      { id: ids(alerts)[0]!, outcome: { kind: 'failed', status: 404, error: 'receiver answered 404' } },
      { id: ids(alerts)[1]!, outcome: { kind: 'delivered', status: 200 } },
    ], T0);
    assert.equal(w.queue.requeue(ids(alerts)[1]!, T0 + 1, T0 + DAY), false);
    assert.equal(w.queue.requeue(ids(alerts)[0]!, T0 + 1, T0 + 2 * DAY), true);
    const row = w.queue.byId(ids(alerts)[0]!)!;
    assert.deepEqual([row.status, row.nextAt, row.retryUntil, row.finishedAt], ['pending', T0 + 1, T0 + 2 * DAY, null]);
  });

  test('no target gets more than its share of slots', async () => {
    const w = await world();
    w.queue.enqueue([...rows(5, 'whk_slow'), ...rows(2, 'whk_fast')], T0);
    const claimed = w.queue.claim(T0, T0 + 1000, 10, new Map([['whk_slow', 1]]), 2);
    assert.deepEqual(claimed.map((d) => d.target).sort(), ['whk_fast', 'whk_fast', 'whk_slow']);
  });
});

describe('sender', () => {
  test('backoff: doubling from base with equal jitter, capped', () => {
    assert.deepEqual([1, 2, 3].map((a) => backoffMs(a, BASE, () => 0)), [500, 1000, 2000]);
    assert.deepEqual([1, 2, 3].map((a) => backoffMs(a, BASE, () => 0.5)), [750, 1500, 3000]);
    assert.equal(backoffMs(60, BASE, () => 0.999999) <= MAX_BACKOFF_MS, true);
    assert.equal(backoffMs(60, BASE, () => 0), MAX_BACKOFF_MS / 2);
  });

  test('retries go on until the window ends, the last one at its end, then failed', async () => {
    const w = await world();
    const ch = new ScriptedChannel(() => ({ kind: 'failed', status: 503, error: 'receiver answered 503', retryable: true }));
    // A 10 s window instead of 24 h: the schedule is injected, not waited for.
    const s = sender(w, ch, { retryForHours: 10_000 / 3_600_000 });
    w.queue.enqueue(rows(1, 'whk_a', undefined, s.retryUntil(T0)), T0);
    s.start();
    await s.idle();
    const id = ch.attempts[0]!.id;
    const times: number[] = [w.clock.now()];
    for (let i = 0; i < 20 && w.queue.byId(id)!.status === 'pending'; i++) {
      const next = w.queue.byId(id)!.nextAt;
      w.clock.set(next - 1);
      s.wake();
      await s.idle();
      assert.equal(ch.attempts.length, times.length, 'not before the backoff');
      w.clock.set(next);
      s.wake();
      await s.idle();
      times.push(next);
    }
    assert.deepEqual(times.map((t) => t - T0), [0, 500, 1500, 3500, 7500, 10_000]);
    const row = w.queue.byId(id)!;
    assert.equal(row.status, 'failed');
    assert.equal(row.attempts, 6);
    assert.equal(row.lastStatus, 503);
    assert.match(row.lastError ?? '', /gave up after 6 attempts/);
    w.clock.advance(DAY);
    s.wake();
    await s.idle();
    assert.equal(ch.attempts.length, 6, 'never again');
    await s.stop();
  });

  test("a receiver's Retry-After replaces the backoff", async () => {
    const w = await world();
    const ch = new ScriptedChannel(() => ({ kind: 'failed', status: 429, error: 'receiver answered 429', retryable: true, retryAfterMs: 120_000 }));
    const s = sender(w, ch);
    w.queue.enqueue(rows(1), T0);
    s.start();
    await s.idle();
    assert.equal(w.queue.byId(ch.attempts[0]!.id)!.nextAt, T0 + 120_000);
    await s.stop();
  });

  test('a retry that succeeds is delivered; a final answer (4xx) is not retried', async () => {
    const w = await world();
    let calls = 0;
    const ch = new ScriptedChannel((d) =>
      d.target === 'whk_gone' ? { kind: 'failed', status: 410, error: 'receiver answered 410', retryable: false }
      : ++calls === 1 ? { kind: 'failed', status: null, error: 'connection refused', retryable: true }
      : { kind: 'delivered', status: 204 },
    );
    const s = sender(w, ch);
    w.queue.enqueue([...rows(1), ...rows(1, 'whk_gone')], T0);
    s.start();
    await s.idle();
    w.clock.advance(BASE / 2);
    s.wake();
    await s.idle();
    assert.deepEqual(w.queue.countByStatus(), { pending: 0, sending: 0, delivered: 1, failed: 1, cancelled: 0 });
    assert.equal(ch.attempts.filter((d) => d.target === 'whk_gone').length, 1);
    await s.stop();
  });

  test('restart: delivered rows are never sent again; interrupted ones go back to pending and are sent once', async () => {
    const w = await world();
    w.queue.enqueue(rows(4), T0);
    const first = new ScriptedChannel((d) => (d.id.endsWith('1') || d.id.endsWith('2') ? { kind: 'delivered', status: 200 } : 'hold'));
    const a = sender(w, first);
    a.start();
    await waitFor(() => first.attempts.length >= 4, 'four attempts');
    await a.stop(0);
    const counts = w.queue.countByStatus();
    assert.equal(counts.delivered + counts.pending, 4);
    const deliveredBefore = counts.delivered;
    const heldIds = first.pending.map((p) => p.d.id);
    for (const id of heldIds) assert.equal(w.queue.byId(id)!.attempts, 0, 'the interrupted attempt is not counted');

    const second = new ScriptedChannel();
    const b = sender(w, second);
    b.start();
    await b.idle();
    assert.deepEqual(second.attempts.map((d) => d.id).sort(), heldIds.sort(), 'only what was not delivered, once each');
    assert.equal(w.queue.countByStatus().delivered, deliveredBefore + heldIds.length);
    await b.stop();
  });

  test('a deleted target cancels its deliveries', async () => {
    const w = await world();
    const ch = new ScriptedChannel(() => ({ kind: 'cancelled', error: 'webhook deleted' }));
    const s = sender(w, ch);
    w.queue.enqueue(rows(2), T0);
    s.start();
    await s.idle();
    assert.equal(w.queue.countByStatus().cancelled, 2);
    await s.stop();
  });

  test('old finished rows are pruned after keepDays', async () => {
    const w = await world();
    const s = sender(w, new ScriptedChannel(), { keepDays: 1 });
    w.queue.enqueue(rows(1), T0);
    s.start();
    await s.idle();
    await s.stop();
    assert.equal(w.queue.prune(T0 + 1), 1);
  });
});
