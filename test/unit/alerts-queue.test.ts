import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ManualClock } from '../../src/domain/clock.js';
import type { Delivery, NewAlert } from '../../src/store/alert-store.js';
import type { AlertChannel, AttemptOutcome } from '../../src/alerts/channel.js';
import { backoffMs, DeliverySender, MAX_ATTEMPTS } from '../../src/alerts/delivery/sender.js';
import { sqliteDeliveryQueue } from '../../src/store/sqlite/alerts/delivery-queue.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';

const T0 = Date.UTC(2026, 5, 1, 12);
const BASE = 1000;
const log = pino({ level: 'silent' });

function world() {
  const store = openSqliteStore(':memory:');
  store.accounts.insert({ id: 'acc_1', email: 'q@example.com', tier: 'pro', maxChecksOverride: null, claimed: true, createdAt: T0 });
  const queue = sqliteDeliveryQueue(store.db);
  const clock = new ManualClock(T0);
  return { store, queue, clock };
}

let n = 0;
function rows(count: number, target = 'whk_a'): NewAlert[] {
  return Array.from({ length: count }, () => ({
    accountId: 'acc_1',
    checkId: 'chk_1',
    event: 'website_down' as const,
    contentJson: JSON.stringify({ event: 'website_down' }),
    createdAt: T0,
    deliveries: [{ id: `dlv_${String(++n).padStart(20, '0')}`, channel: 'webhook' as const, target }],
  }));
}

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

function sender(w: ReturnType<typeof world>, channel: AlertChannel, over: Partial<ConstructorParameters<typeof DeliverySender>[0]['options']> = {}) {
  return new DeliverySender({
    queue: w.queue,
    channels: { webhook: channel, email: channel },
    clock: w.clock,
    log,
    options: { retryBaseMs: BASE, timeoutMs: 1000, concurrency: 8, perTargetConcurrency: 8, keepDays: 30, ...over },
  });
}

describe('delivery queue', () => {
  test('a claim leases rows and counts the attempt; leased rows are not claimed twice until the lease runs out', () => {
    const w = world();
    w.queue.enqueue(rows(3), T0);
    const first = w.queue.claim(T0, T0 + 5000, 2, new Map(), 10, MAX_ATTEMPTS);
    assert.equal(first.length, 2);
    assert.ok(first.every((d) => d.status === 'sending' && d.attempts === 1));
    const second = w.queue.claim(T0, T0 + 5000, 10, new Map(), 10, MAX_ATTEMPTS);
    assert.deepEqual(second.map((d) => d.id), [w.queue.forCheck('chk_1')[2]!.id]);
    assert.equal(w.queue.claim(T0 + 4999, T0 + 9000, 10, new Map(), 10, MAX_ATTEMPTS).length, 0);
    const again = w.queue.claim(T0 + 5000, T0 + 9000, 10, new Map(), 10, MAX_ATTEMPTS);
    assert.equal(again.length, 3, 'a lease that ran out (a crash) makes the row claimable again');
    assert.ok(again.every((d) => d.attempts === 2));
  });

  test('a lease that runs out on the last attempt fails the row instead', () => {
    const w = world();
    w.queue.enqueue(rows(1), T0);
    for (let i = 0; i < MAX_ATTEMPTS; i++) assert.equal(w.queue.claim(T0 + i * 10, T0 + i * 10 + 5, 1, new Map(), 1, MAX_ATTEMPTS).length, 1);
    assert.equal(w.queue.claim(T0 + 1000, T0 + 2000, 1, new Map(), 1, MAX_ATTEMPTS).length, 0);
    assert.deepEqual(w.queue.countByStatus(), { pending: 0, sending: 0, delivered: 0, failed: 1, cancelled: 0 });
  });

  test('no target gets more than its share of slots', () => {
    const w = world();
    w.queue.enqueue([...rows(5, 'whk_slow'), ...rows(2, 'whk_fast')], T0);
    const claimed = w.queue.claim(T0, T0 + 1000, 10, new Map([['whk_slow', 1]]), 2, MAX_ATTEMPTS);
    assert.deepEqual(claimed.map((d) => d.target).sort(), ['whk_fast', 'whk_fast', 'whk_slow']);
  });
});

describe('sender', () => {
  test('backoff: base, then four times base', () => {
    assert.deepEqual([1, 2].map((a) => backoffMs(a, BASE)), [1000, 4000]);
  });

  test('three attempts with backoff, then failed; each outcome recorded', async () => {
    const w = world();
    const ch = new ScriptedChannel(() => ({ kind: 'failed', status: 503, error: 'receiver answered 503', retryable: true }));
    const s = sender(w, ch);
    w.queue.enqueue(rows(1), T0);
    s.start();
    await s.idle();
    assert.equal(ch.attempts.length, 1);
    const id = ch.attempts[0]!.id;
    assert.equal(w.queue.byId(id)!.nextAt, T0 + BASE);
    w.clock.advance(BASE - 1);
    s.wake();
    await s.idle();
    assert.equal(ch.attempts.length, 1, 'not before the backoff');
    w.clock.advance(1);
    s.wake();
    await s.idle();
    assert.equal(ch.attempts.length, 2);
    w.clock.advance(4 * BASE);
    s.wake();
    await s.idle();
    assert.equal(ch.attempts.length, 3);
    const row = w.queue.byId(id)!;
    assert.equal(row.status, 'failed');
    assert.equal(row.attempts, 3);
    assert.equal(row.lastStatus, 503);
    w.clock.advance(60 * BASE);
    s.wake();
    await s.idle();
    assert.equal(ch.attempts.length, 3, 'never a fourth');
    await s.stop();
  });

  test('a retry that succeeds is delivered; a final answer (4xx) is not retried', async () => {
    const w = world();
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
    w.clock.advance(BASE);
    s.wake();
    await s.idle();
    assert.deepEqual(w.queue.countByStatus(), { pending: 0, sending: 0, delivered: 1, failed: 1, cancelled: 0 });
    assert.equal(ch.attempts.filter((d) => d.target === 'whk_gone').length, 1);
    await s.stop();
  });

  test('restart: delivered rows are never sent again; interrupted ones go back to pending and are sent once', async () => {
    const w = world();
    w.queue.enqueue(rows(4), T0);
    const first = new ScriptedChannel((d) => (d.id.endsWith('1') || d.id.endsWith('2') ? { kind: 'delivered', status: 200 } : 'hold'));
    const a = sender(w, first);
    a.start();
    while (first.attempts.length < 4) await new Promise((r) => setImmediate(r));
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
    const w = world();
    const ch = new ScriptedChannel(() => ({ kind: 'cancelled', error: 'webhook deleted' }));
    const s = sender(w, ch);
    w.queue.enqueue(rows(2), T0);
    s.start();
    await s.idle();
    assert.equal(w.queue.countByStatus().cancelled, 2);
    await s.stop();
  });

  test('old finished rows are pruned after keepDays', async () => {
    const w = world();
    const s = sender(w, new ScriptedChannel(), { keepDays: 1 });
    w.queue.enqueue(rows(1), T0);
    s.start();
    await s.idle();
    await s.stop();
    assert.equal(w.queue.prune(T0 + 1), 1);
  });
});
