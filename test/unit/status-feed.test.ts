import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PendingChanges, StatusFeed, type StatusChange } from '../../src/core/status-feed.js';

const change = (checkId: string, type: string, at: number): StatusChange => ({ checkId, accountId: 'acc', type, at });

test('changes of one turn are published once the writer has applied them, a check and type once at its latest time', async () => {
  const feed = new StatusFeed();
  const heard: StatusChange[] = [];
  feed.subscribe((c) => heard.push(c));
  let apply!: () => void;
  const changes = new PendingChanges(feed, () => new Promise<void>((resolve) => (apply = resolve)));
  changes.add(change('a', 'status', 1));
  changes.add(change('b', 'status', 2));
  changes.add(change('a', 'status', 3));
  changes.add(change('a', 'saved', 4));
  await new Promise((r) => setImmediate(r));
  assert.equal(heard.length, 0, 'nothing before the writes are applied');
  apply();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(heard.map((c) => [c.checkId, c.type, c.at]), [['a', 'status', 3], ['b', 'status', 2], ['a', 'saved', 4]]);

  changes.add(change('a', 'status', 5));
  await new Promise((r) => setImmediate(r));
  apply();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(heard.at(-1), change('a', 'status', 5), 'a later turn publishes again');
  assert.equal(heard.length, 4);
});
