import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { TestServer } from '../helpers/server.js';
import type { Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { assertError, assertStatus, newAccount, type Actor } from './util.js';
import { createFastCheck, createWebhook, receivedAt, startProbedWorld, wheelRound, type ProbedWorld, type SwitchableTarget } from '../helpers/alerts-e2e.js';

/**
 * Check dependencies (issue 27 item 3) through the API and the tool server, with real probes of
 * a local HTTP target: a parent and its dependant going down send one alert (the parent's);
 * the dependant's alert goes out when the parent recovers first, and not at all when the
 * dependant recovered meanwhile; cycles, unknown ids and the check itself are refused.
 */

const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
const ALL = ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'];
const CHECKS = '/v1/public/checks';

let srv: TestServer;
let receiver: Receiver;
let target: SwitchableTarget;

let world: ProbedWorld;

before(async () => {
  world = await startProbedWorld(clock);
  ({ srv, receiver, target } = world);
});
after(() => world.close());

const account = async (): Promise<Actor> => (await newAccount(srv, { tier: 'pro', scopes: ALL }));
const round = () => wheelRound(srv, clock, 3_000);
const record = async (a: Actor, id: string) => (await srv.request('GET', `${CHECKS}/${id}`, { key: a.key })).body.data;
const statusOf = async (a: Actor, id: string) =>
  ((await srv.request('GET', `${CHECKS}/status`, { key: a.key })).body.data as { id: string; blockedBy: string[] }[]).find((s) => s.id === id)!;
/** A parent that goes down at its first failure and a dependant that needs two. */
async function family(a: Actor, name: string) {
  const parent = await createFastCheck(srv, a.key, `${target.origin}/${name}/router`, { name: `${name} router` });
  const child = await createFastCheck(srv, a.key, `${target.origin}/${name}/app`, { name: `${name} app`, downConfirmationAttempts: 2, immediateRecheckEnabled: false, dependsOn: [parent] });
  await createWebhook(srv, a.key, { url: receiver.url(`/dep/${name}`), events: ['website_down', 'website_up'] });
  await wheelRound(srv, clock, 0);
  return { parent, child, heard: () => receivedAt(receiver, `/dep/${name}`).map((r) => `${r.json.event} ${r.json.check.id === parent ? 'parent' : 'child'}`) };
}

/**
 * Issue 35 item 1: a parent that goes down at its first failure and a dependant that needs three,
 * both every 30 s with immediate re-checks; each placed on the wheel so that one is probed well
 * before the other (where checks sit in their intervals is otherwise up to their ids).
 */
async function racing(a: Actor, name: string, first: 'parent' | 'child') {
  const every = { checkFrequency: 0.5, immediateRecheckEnabled: true };
  const parent = await createFastCheck(srv, a.key, `${target.origin}/${name}/router`, { name: `${name} router`, ...every });
  const child = await createFastCheck(srv, a.key, `${target.origin}/${name}/app`, {
    name: `${name} app`, ...every, downConfirmationAttempts: 3, dependsOn: [parent],
  });
  await createWebhook(srv, a.key, { url: receiver.url(`/dep/${name}`), events: ['website_down', 'website_up', 'website_error'] });
  await wheelRound(srv, clock, 0);
  const wheel = srv.app.engine.wheel;
  const now = clock.now();
  wheel.schedule('probe', first === 'parent' ? parent : child, now + 5_000);
  wheel.schedule('probe', first === 'parent' ? child : parent, now + 20_000);
  const heard = () => receivedAt(receiver, `/dep/${name}`).map((r) => `${r.json.event} ${r.json.check.id === parent ? 'parent' : 'child'}`);
  return { parent, child, heard };
}

/** Ticks at the clock's time until nothing more happens (immediate re-checks, parents probed now), bounded. */
async function settle(): Promise<void> {
  for (let i = 0; i < 12; i++) {
    await wheelRound(srv, clock, 0);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a dependant and its parent failing together (issue 35 item 1)', () => {
  test('the dependant fails first and confirms down within a second: its parent is probed at once, only the parent pages', async () => {
    const a = await account();
    const { parent, child, heard } = await racing(a, 'race-child', 'child');
    target.broken.add('/race-child/router').add('/race-child/app');
    await wheelRound(srv, clock, 5_000); // the child's first failure, 15 s before its parent's turn
    await settle(); // its re-checks confirm it down; the parent is probed now
    await receiver.waitFor(() => heard().length >= 1);
    await settle();
    assert.deepEqual(heard(), ['website_down parent']);
    assert.equal((await record(a, child)).status, 'down');
    assert.deepEqual((await record(a, child)).blockedBy, [parent]);

    target.broken.delete('/race-child/router');
    await wheelRound(srv, clock, 30_000);
    await settle();
    await receiver.waitFor(() => heard().length >= 3);
    assert.deepEqual(heard().sort(), ['website_down child', 'website_down parent', 'website_up parent'], 'the parent back first: the child\'s alert goes out');
    target.broken.delete('/race-child/app');
  });

  test('the parent fails first: the dependant confirming down later is held', async () => {
    const a = await account();
    const { child, heard } = await racing(a, 'race-parent', 'parent');
    target.broken.add('/race-parent/router').add('/race-parent/app');
    await wheelRound(srv, clock, 5_000);
    await settle();
    await wheelRound(srv, clock, 15_000); // the child's turn
    await settle();
    await receiver.waitFor(() => heard().length >= 1);
    await settle();
    assert.deepEqual(heard(), ['website_down parent']);
    assert.equal((await record(a, child)).status, 'down');
    target.broken.delete('/race-parent/router');
    target.broken.delete('/race-parent/app');
  });

  test('the dependant fails alone: its parent probed at once answers up, and the dependant\'s alerts go out', async () => {
    const a = await account();
    const { parent, heard } = await racing(a, 'race-alone', 'child');
    target.broken.add('/race-alone/app');
    const probedBefore = (await record(a, parent)).lastProbe.at;
    await wheelRound(srv, clock, 5_000);
    await settle();
    await receiver.waitFor(() => heard().length >= 2);
    await settle();
    assert.deepEqual(heard(), ['website_error child', 'website_down child']);
    const parentNow = await record(a, parent);
    assert.equal(parentNow.status, 'up');
    assert.notEqual(parentNow.lastProbe.at, probedBefore, 'the parent was probed at once, not at its own turn 15 s later');
    target.broken.delete('/race-alone/app');
  });
});

describe('a check that depends on another', () => {
  test('parent and child down: one alert, the parent\'s; blockedBy on the record and the status object; the parent back first releases the child\'s alert', async () => {
    const a = await account();
    const { parent, child, heard } = await family(a, 'one');
    assert.deepEqual((await record(a, child)).dependsOn, [parent]);
    target.broken.add('/one/router').add('/one/app');
    await round(); // parent down; child's first failure
    await round(); // child down: held
    await receiver.waitFor(() => heard().length >= 1);
    await srv.app.alerts.idle();
    assert.deepEqual(heard(), ['website_down parent']);
    assert.equal((await record(a, child)).status, 'down', 'its status still changes');
    assert.deepEqual((await record(a, child)).blockedBy, [parent]);
    assert.deepEqual((await statusOf(a, child)).blockedBy, [parent]);
    assert.deepEqual((await statusOf(a, parent)).blockedBy, []);
    assertStatus(await srv.request('POST', '/v1/public/status-pages', { key: a.key, body: { slug: 'deps-one', title: 'Deps', checkIds: [parent, child] } }), 201);
    const page = (await (await fetch(`${srv.url}/status/deps-one.json`)).json()) as { checks: { id: string; blockedBy: string[] }[] };
    assert.deepEqual(page.checks.map((c) => c.blockedBy), [[], [parent]]);
    assert.match(await (await fetch(`${srv.url}/status/deps-one`)).text(), /blocked by one router/);

    target.broken.delete('/one/router');
    await round(); // parent up, child still down: the child's alert goes out now
    await receiver.waitFor(() => heard().length >= 3);
    assert.deepEqual(heard().sort(), ['website_down child', 'website_down parent', 'website_up parent']);
    assert.deepEqual((await record(a, child)).blockedBy, []);
    target.broken.delete('/one/app');
  });

  test('the child recovered while its parent was down: nothing of the child is sent', async () => {
    const a = await account();
    const { child, heard } = await family(a, 'two');
    target.broken.add('/two/router').add('/two/app');
    await round();
    await round();
    target.broken.delete('/two/app');
    await round(); // the child up while its parent is still down
    target.broken.delete('/two/router');
    await round();
    await receiver.waitFor(() => heard().length >= 2);
    await srv.app.alerts.idle();
    assert.deepEqual(heard(), ['website_down parent', 'website_up parent']);
    assert.equal((await record(a, child)).status, 'up');
  });

  test('cycles, unknown ids, another account\'s checks and the check itself are refused, naming them; MCP carries dependsOn', async () => {
    const a = await account();
    const [x, y, z] = [await createFastCheck(srv, a.key, `${target.origin}/c/x`), await createFastCheck(srv, a.key, `${target.origin}/c/y`, {}), await createFastCheck(srv, a.key, `${target.origin}/c/z`)];
    assertStatus(await srv.request('PATCH', `${CHECKS}/${y}`, { key: a.key, body: { dependsOn: [x] } }), 200);
    assertStatus(await srv.request('PATCH', `${CHECKS}/${z}`, { key: a.key, body: { dependsOn: [y] } }), 200);
    const cycle = await srv.request('PATCH', `${CHECKS}/${x}`, { key: a.key, body: { dependsOn: [z] } });
    assertError(cycle, 400, /cycle/);
    assert.match(cycle.body.error.message, new RegExp(`${x} -> ${z} -> ${y} -> ${x}`));
    assertError(await srv.request('PATCH', `${CHECKS}/${x}`, { key: a.key, body: { dependsOn: [x] } }), 400, /itself/);
    assertError(await srv.request('PATCH', `${CHECKS}/${x}`, { key: a.key, body: { dependsOn: ['chk_nope'] } }), 400, /chk_nope is not a check of this account/);
    const other = await account();
    const foreign = await createFastCheck(srv, other.key, `${target.origin}/c/foreign`);
    assertError(await srv.request('POST', CHECKS, { key: a.key, body: { url: `${target.origin}/c/new`, dependsOn: [foreign] } }), 400, /not a check of this account/);
    assertError(await srv.request('PATCH', `${CHECKS}/${x}`, { key: a.key, body: { dependsOn: Array.from({ length: 11 }, () => y) } }), 400);
    assert.deepEqual((await record(a, x)).dependsOn, [], 'refused changes wrote nothing');

    const client = new Client({ name: 'vigil-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp/v1`), { requestInit: { headers: { 'x-api-key': a.key } } }));
    try {
      const res = (await client.callTool({ name: 'update_check', arguments: { id: x, dependsOn: [z] } })) as { isError?: boolean; content: { text?: string }[] };
      assert.equal(res.isError, true);
      assert.match(res.content[0]!.text!, /cycle/);
      const got = (await client.callTool({ name: 'get_check', arguments: { id: z } })) as unknown as { structuredContent: { data: { dependsOn: string[]; blockedBy: string[] } } };
      assert.deepEqual([got.structuredContent.data.dependsOn, got.structuredContent.data.blockedBy], [[y], []]);
    } finally {
      await client.close();
    }
  });
});
