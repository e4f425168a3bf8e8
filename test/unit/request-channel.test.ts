import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestChannel } from '../../src/util/request-channel.js';

test('answers settle their own request by id; a late or unknown answer is ignored', async () => {
  const sent: Array<[number, string]> = [];
  const channel = new RequestChannel<string, string>();
  const a = channel.request('a', (id) => sent.push([id, 'a']));
  const b = channel.request('b', (id) => sent.push([id, 'b']));
  assert.equal(sent.length, 2);
  assert.notEqual(sent[0]![0], sent[1]![0], 'each request has its own id');
  assert.equal(channel.meta(sent[1]![0]), 'b');
  assert.equal(channel.resolve(sent[1]![0], 'to b'), true);
  channel.reject(sent[0]![0], new Error('no a'));
  assert.equal(await b, 'to b');
  await assert.rejects(a, /no a/);
  assert.equal(channel.resolve(sent[1]![0], 'again'), false, 'a request settles once');
  assert.equal(channel.resolve(999, 'stray'), false);
  assert.equal(channel.pending, 0);
});

test('busy when the first request opens, idle when the last settles; rejectAll fails every open one', async () => {
  const signals: boolean[] = [];
  const channel = new RequestChannel<number>((busy) => signals.push(busy));
  const ids: number[] = [];
  const runs = [1, 2, 3].map(() => channel.request(undefined, (id) => ids.push(id)));
  assert.deepEqual(signals, [true]);
  channel.resolve(ids[0]!, 1);
  assert.deepEqual(signals, [true], 'still busy while two wait');
  channel.rejectAll(new Error('the other side exited'));
  assert.deepEqual(signals, [true, false]);
  assert.equal(await runs[0], 1);
  await assert.rejects(runs[1]!, /exited/);
  await assert.rejects(runs[2]!, /exited/);
  assert.equal(channel.pending, 0);
});

test('a send that throws rejects its request and leaves nothing open', async () => {
  const signals: boolean[] = [];
  const channel = new RequestChannel<number>((busy) => signals.push(busy));
  await assert.rejects(channel.request(undefined, () => { throw new Error('cannot post'); }), /cannot post/);
  assert.equal(channel.pending, 0);
  assert.deepEqual(signals, [true, false]);
});
