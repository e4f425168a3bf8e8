import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relayChanges, statusMessages } from '../../src/cluster/relay.js';
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

test('status changes reach the other central once, in order, and never come back to their sender', async () => {
  const bus = new InProcessBus();
  const log = { error: () => assert.fail('nothing fails') } as unknown as Logger;
  const central = (name: string) => {
    const feed = new StatusFeed();
    const heard: StatusChange[] = [];
    feed.subscribe((c) => heard.push(c));
    const checks = { observe: () => undefined, announce: () => undefined, announceDeleted: () => undefined };
    relayChanges({ bus, name, checks, repo: { byId: () => null }, feed, log });
    return { feed, heard };
  };
  const a = central('a');
  const b = central('b');
  const sent = Array.from({ length: 120 }, (_, n) => change(n, n % 2 ? 'ping' : 'down'));
  for (const c of sent) a.feed.publish(c);
  a.feed.publish(change(999, 'saved'));
  for (let turns = 0; b.heard.length < sent.length && turns < 100; turns++) await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(b.heard, sent, 'every change but the edit, once, in order');
  assert.equal(a.heard.length, sent.length + 1, 'the sender hears only its own');
  bus.close();
});
