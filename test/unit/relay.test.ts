import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RELAY_EVERY_MS, relayChanges, statusMessages } from '../../src/cluster/relay.js';
import { StatusFeed, type StatusChange } from '../../src/core/status-feed.js';
import { InProcessBus } from '../../src/store/change-bus.js';
import type { Logger } from '../../src/log.js';

const change = (n: number, type = 'ping'): StatusChange => ({ checkId: `chk_${n}`, accountId: 'acc_é', type, at: 1_000 + n });

test('a turn of status changes goes out as few messages, each under the size limit, in order', () => {
  const changes = Array.from({ length: 200 }, (_, n) => change(n));
  const messages = statusMessages('central-a', changes);
  assert.ok(messages.length > 1 && messages.length < 20, `${messages.length} messages`);
  for (const m of messages) assert.ok(Buffer.byteLength(m) <= 6_000, `${Buffer.byteLength(m)} bytes`);
  const back = messages.flatMap((m) => (JSON.parse(m) as { from: string; changes: StatusChange[] }).changes);
  assert.deepEqual(back, changes);
  assert.deepEqual(statusMessages('central-a', []), []);
});

test('status changes reach the other central once (a check\'s latest of each type), in order, and never come back to their sender', async () => {
  const bus = new InProcessBus();
  const log = { error: () => assert.fail('nothing fails') } as unknown as Logger;
  const central = (name: string) => {
    const feed = new StatusFeed();
    const heard: StatusChange[] = [];
    feed.subscribe((c) => heard.push(c));
    const checks = { observe: () => undefined, announce: () => undefined, announceDeleted: () => undefined };
    relayChanges({ bus, name, checks, repo: { byId: async () => null }, feed, log });
    return { feed, heard };
  };
  const a = central('a');
  const b = central('b');
  const sent = Array.from({ length: 120 }, (_, n) => change(n, n % 2 ? 'ping' : 'down'));
  for (const c of sent) a.feed.publish(c);
  a.feed.publish(change(999, 'saved'));
  // A check pinging again before the changes go out: its latest ping goes, once, in its first place.
  const again = { ...change(1, 'ping'), at: 5_000 };
  a.feed.publish(again);
  const expected = sent.map((c) => (c.checkId === again.checkId && c.type === 'ping' ? again : c));
  for (let waits = 0; b.heard.length < expected.length && waits < 100; waits++) await new Promise((resolve) => setTimeout(resolve, RELAY_EVERY_MS / 4));
  await new Promise((resolve) => setTimeout(resolve, RELAY_EVERY_MS));
  assert.deepEqual(b.heard, expected, 'every change but the edit, a check\'s change of a type once, in order');
  assert.equal(a.heard.length, sent.length + 2, 'the sender hears only its own');
  bus.close();
});
