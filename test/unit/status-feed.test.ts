import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PendingChanges, StatusFeed, StatusPublisher, type StatusChange } from '../../src/core/status-feed.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { CheckObserver } from '../../src/domain/check-observer.js';
import type { Check } from '../../src/domain/records.js';
import type { AlertEvent } from '../../src/domain/events.js';
import type { ChangeSink, EventSink } from '../../src/monitor/recorder.js';
import { RenderCache, PublicRenders } from '../../src/api/render-cache.js';
import type { PageChanged } from '../../src/status-pages/status-pages-service.js';

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

test("the publisher subscribes itself to the recorder's events and changes and to check edits, and publishes each once written", async () => {
  const feed = new StatusFeed();
  const heard: StatusChange[] = [];
  feed.subscribe((c) => heard.push(c));
  const events: EventSink[] = [];
  const changes: ChangeSink[] = [];
  const observers: CheckObserver[] = [];
  let applied = 0;
  new StatusPublisher({
    feed,
    applied: async () => void applied++,
    recorder: { onEvent: (sink) => void events.push(sink), onChange: (sink) => void changes.push(sink) },
    checks: { observe: (o) => void observers.push(o) },
    clock: new ManualClock(1_000),
  });
  assert.deepEqual([events.length, changes.length, observers.length], [1, 1, 1], 'subscribed where it lives');
  const ref = { id: 'chk_a', accountId: 'acc', seq: 1 };
  events[0]!(ref, { type: 'down' } as unknown as AlertEvent);
  changes[0]!(ref, 'ping');
  observers[0]!.checkEdited!({ id: 'chk_b', accountId: 'acc' } as Check);
  observers[0]!.checkDeleted({ id: 'chk_c', accountId: 'acc', folder: 'ops' } as Check);
  assert.equal(heard.length, 0, 'nothing before the writer has applied it');
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  assert.equal(applied, 1);
  assert.deepEqual(heard, [
    { checkId: 'chk_a', accountId: 'acc', type: 'down', at: 1_000 },
    { checkId: 'chk_a', accountId: 'acc', type: 'ping', at: 1_000 },
    { checkId: 'chk_b', accountId: 'acc', type: 'saved', at: 1_000 },
    { checkId: 'chk_c', accountId: 'acc', type: 'deleted', at: 1_000, folder: 'ops' },
  ]);
});

test('public renders drop what shows a check when it changes (not on a ping) and a page when it is edited', async () => {
  const clock = new ManualClock(1_000);
  const feed = new StatusFeed();
  let pageChanged: PageChanged = () => {};
  const renders = new PublicRenders(clock, feed, { statusPages: { onChange: (l) => void (pageChanged = l) }, incidents: { onChange: () => {} } });
  const keep = (cache: RenderCache, key: string, slug: string | null, checkIds: string[]) =>
    cache.reply(key, { headers: {} }, async () => ({ status: 200, contentType: 'text/plain', text: key, slug, checkIds }));
  let renderedAgain = 0;
  const again = (cache: RenderCache, key: string) =>
    cache.reply(key, { headers: {} }, async () => (renderedAgain++, { status: 200, contentType: 'text/plain', text: key, slug: null, checkIds: [] }));
  await keep(renders.pages, 'page-a', 'a', ['chk_1']);
  await keep(renders.badges, 'badge-1', null, ['chk_1']);
  await keep(renders.pages, 'page-b', 'b', ['chk_2']);
  feed.publish(change('chk_1', 'ping', 1));
  await again(renders.pages, 'page-a');
  assert.equal(renderedAgain, 0, 'a ping keeps the page');
  feed.publish(change('chk_1', 'down', 2));
  await again(renders.pages, 'page-a');
  await again(renders.badges, 'badge-1');
  assert.equal(renderedAgain, 2, "the page and the badge showing the check are rendered again");
  pageChanged(null, { slug: 'b', checkIds: [] } as never);
  await again(renders.pages, 'page-b');
  assert.equal(renderedAgain, 3, 'an edited page is rendered again');
});
