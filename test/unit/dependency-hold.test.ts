import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DependencyHold, type HeldAlert } from '../../src/alerts/dependency-hold.js';
import { FreshVerdicts, settled } from '../../src/engine/fresh-verdicts.js';
import type { AlertEvent, MonitorStatus } from '../../src/domain/events.js';

/** Issue 35 item 1: a dependant's alert waits for its parents' fresh verdicts, whatever their place in their intervals. */

const child = { id: 'chk_child', accountId: 'acc', dependsOn: ['chk_parent'] };
const alert = (type: AlertEvent['type']): HeldAlert => ({ ref: { id: child.id, accountId: 'acc' }, event: { type } as AlertEvent });
const turn = () => new Promise((r) => setImmediate(r));

/** A hold over statuses the test sets, whose parent verdicts the test answers. */
function world() {
  const status = new Map<string, MonitorStatus>([['chk_parent', 'up'], [child.id, 'down']]);
  const asked: Array<(s: MonitorStatus | null) => void> = [];
  const hold = new DependencyHold(async (id) => status.get(id) ?? null, () => new Promise((resolve) => asked.push(resolve)));
  const due: string[] = [];
  hold.onDue((alerts) => due.push(...alerts.map((a) => a.event.type)));
  return { status, asked, hold, due };
}

test('parents looking up: the dependant\'s alerts wait for a probe of them made now; found down, they are held until it recovers', async () => {
  const { status, asked, hold, due } = world();
  assert.equal(await hold.intercept(alert('website_error'), child), true);
  assert.equal(await hold.intercept(alert('website_down'), child), true, 'the down confirmed meanwhile waits for the same verdicts');
  assert.equal(asked.length, 1, 'the parent is asked once');
  status.set('chk_parent', 'down');
  asked[0]!('down');
  await turn();
  assert.deepEqual(due, []);
  status.set('chk_parent', 'up');
  assert.deepEqual((await hold.released('chk_parent')).map((a) => a.event.type), ['website_down']);
});

test('parents found up: the error and the down go out; a dependant back up meanwhile sends nothing', async () => {
  const a = world();
  await a.hold.intercept(alert('website_error'), child);
  await a.hold.intercept(alert('website_down'), child);
  a.asked[0]!('up');
  await turn();
  assert.deepEqual(a.due, ['website_error', 'website_down']);
  assert.equal(a.hold.size, 0);

  const b = world();
  await b.hold.intercept(alert('website_down'), child);
  assert.equal(await b.hold.intercept(alert('website_up'), child), true, 'its up is dropped with its down');
  b.asked[0]!('up');
  await turn();
  assert.deepEqual(b.due, []);
});

test('no verdict to be had (a heartbeat parent, no answer): the parent\'s known status decides', async () => {
  const { status, asked, hold, due } = world();
  await hold.intercept(alert('website_down'), child);
  status.set('chk_parent', 'down');
  asked[0]!(null);
  await turn();
  assert.deepEqual(due, []);
  assert.equal(hold.size, 1, 'held');
});

test('a parent already down holds at once; a check with no parents is never asked about', async () => {
  const { status, asked, hold } = world();
  status.set('chk_parent', 'down');
  assert.equal(await hold.intercept(alert('website_down'), child), true);
  assert.equal(asked.length, 0);
  assert.equal(await hold.intercept(alert('website_down'), { ...child, dependsOn: [] }), false);
});

test('a verdict is settled by a down or by a result counting no failure, not by a failure being confirmed', async () => {
  assert.equal(settled({ status: 'up', consecutiveFailures: 0 }), true);
  assert.equal(settled({ status: 'down', consecutiveFailures: 1 }), true);
  assert.equal(settled({ status: 'up', consecutiveFailures: 1 }), false);
  assert.equal(settled({ status: 'pending', consecutiveFailures: 2 }), false);
  const verdicts = new FreshVerdicts();
  const answer = verdicts.wait('chk_p', 5_000, 2);
  assert.equal(verdicts.recorded('chk_p', { status: 'up', consecutiveFailures: 1 }), true, 'probe again now');
  assert.equal(verdicts.recorded('chk_p', { status: 'up', consecutiveFailures: 2 }), true);
  assert.equal(verdicts.recorded('chk_p', { status: 'up', consecutiveFailures: 3 }), false, 'as many probes as its confirmation takes, no more');
  verdicts.recorded('chk_p', { status: 'down', consecutiveFailures: 4 });
  assert.equal(await answer, 'down');
  assert.equal(verdicts.size, 0);
  assert.equal(await verdicts.wait('chk_q', 10, 1), null, 'no result in time');
});
