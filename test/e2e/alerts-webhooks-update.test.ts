import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import type { ProbeResult } from '../../src/domain/probe-types.js';
import { verifySignature } from '../../src/alerts/signing.js';
import pino from 'pino';
import { wheelRound, createFastCheck, createWebhook, receivedAt } from '../helpers/alerts-e2e.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { startReceiver, type Received, type Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { assertCaTrusted } from '../helpers/fixtures/alerts-tls.js';
import { assertError, assertStatus, newAccount, newKey, type Actor } from './util.js';

/**
 * Issue 23 item 6: PATCH /v1/public/alerts/webhooks/{id} over real HTTP: every field, the
 * create rules and error shapes, nothing changed by a refused body, and routing, URL and
 * enabled taking effect on real deliveries (scripted probes, a ManualClock, a local receiver).
 */

const HOOKS = '/v1/public/alerts/webhooks';
const DELIVERIES = '/v1/public/alerts/deliveries';
const ALL = ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'];
const clock = new ManualClock(Date.UTC(2026, 6, 1, 12));
const failing = new Set<string>();

let srv: TestServer;
let receiver: Receiver;
const logLines: string[] = [];

before(async () => {
  assertCaTrusted();
  receiver = await startReceiver();
  const dispatcher = new ScriptedDispatcher((task): Partial<ProbeResult> => (failing.has(task.url) ? { ok: false } : { ok: true }), () => clock.now());
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
  srv = await startServer({ plans: { pro: { minCheckIntervalMinutes: 0.05 } } }, clock, { dispatcher, autoTick: false, logger });
});
after(async () => {
  await srv.stop();
  await receiver.close();
});

const account = (): Actor => newAccount(srv, { tier: 'pro', scopes: ALL });
const patch = (a: Actor, id: string, body: unknown) => srv.request('PATCH', `${HOOKS}/${id}`, { key: a.key, body });
const listed = async (a: Actor, id: string) => (await srv.request('GET', HOOKS, { key: a.key })).body.data.find((w: { id: string }) => w.id === id);
const at = (prefix: string): Received[] => receivedAt(receiver, prefix);

/** The webhook's test message: where it went and how it was signed. */
async function testDelivery(a: Actor, id: string): Promise<Received> {
  const start = receiver.received.length;
  assertStatus(await srv.request('POST', `${HOOKS}/${id}/test`, { key: a.key }), 200);
  return receiver.received[start]!;
}

describe('PATCH changes only the fields sent', () => {
  test('name, events, enabled, routing, reminders, url, type and secret, one at a time; the answer has the create shape', async () => {
    const a = account();
    const c1 = await createFastCheck(srv, a.key, 'http://127.0.0.1:1/p1');
    const id = await createWebhook(srv, a.key, { url: receiver.url('/upd/one/t0ps3cret'), name: 'One', secret: 'first-secret' });
    const createdAt = (await listed(a, id)).createdAt;
    const view = { id, name: 'One', url: receiver.origin, webhookType: 'generic', events: ['website_down', 'website_up'], enabled: true, checkIds: [], folders: [], tags: [], remindEveryMinutes: null };
    const step = async (body: Record<string, unknown>, changes: Record<string, unknown>) => {
      const res = await patch(a, id, body);
      assertStatus(res, 200);
      Object.assign(view, changes);
      assert.deepEqual(res.body, { data: view }, JSON.stringify(body));
      assert.deepEqual(await listed(a, id), { ...view, createdAt });
    };
    await step({}, {});
    await step({ name: '  Two  ' }, { name: 'Two' });
    await step({ events: ['ssl_error', 'website_down', 'bogus', 'ssl_error'] }, { events: ['ssl_error', 'website_down'] });
    await step({ enabled: false }, { enabled: false });
    await step({ enabled: true }, { enabled: true });
    await step({ checkIds: [c1], folders: ['prod', 'prod'] }, { checkIds: [c1], folders: ['prod'] });
    await step({ checkIds: [] }, { checkIds: [] });
    await step({ remindEveryMinutes: 30 }, { remindEveryMinutes: 30 });
    await step({ remindEveryMinutes: null, folders: [] }, { remindEveryMinutes: null, folders: [] });

    let got = await testDelivery(a, id);
    assert.equal(got.path, '/upd/one/t0ps3cret');
    assert.ok(verifySignature('first-secret', got.raw, String(got.headers['x-vigil-signature'])), 'the secret survived every PATCH');
    await step({ url: receiver.url('/upd/two/n3wpath') }, {});
    got = await testDelivery(a, id);
    assert.equal(got.path, '/upd/two/n3wpath', 'the new URL is used');
    await step({ secret: 'second-secret' }, {});
    got = await testDelivery(a, id);
    assert.ok(verifySignature('second-secret', got.raw, String(got.headers['x-vigil-signature'])));
    assert.ok(!verifySignature('first-secret', got.raw, String(got.headers['x-vigil-signature'])));
    await step({ secret: null }, {});
    got = await testDelivery(a, id);
    assert.equal(got.headers['x-vigil-signature'], undefined, 'null removed the secret');
    await step({ webhookType: 'discord' }, { webhookType: 'discord' });
    got = await testDelivery(a, id);
    assert.equal(got.json.embeds[0].title, 'Test alert from Vigil', 'the new type formats the message');
  });

  test('a new URL: a detected type is detected again, a chosen one is kept', async () => {
    const a = account();
    const detected = await createWebhook(srv, a.key, { url: 'https://hooks.slack.com/services/T0/B0/X1' });
    const chosen = await createWebhook(srv, a.key, { url: 'https://hooks.slack.com/services/T0/B0/X2', webhookType: 'generic' });
    const pager = await createWebhook(srv, a.key, { url: 'https://events.pagerduty.com/v2/enqueue?routing_key=a', webhookType: 'pagerduty' });
    const type = async (id: string, body: Record<string, unknown>) => {
      const res = await patch(a, id, body);
      assertStatus(res, 200);
      return res.body.data.webhookType as string;
    };
    assert.equal(await type(detected, { url: 'https://discord.com/api/webhooks/1/x' }), 'discord');
    assert.equal(await type(detected, { url: 'https://example.net/plain' }), 'generic');
    assert.equal(await type(chosen, { url: 'https://hooks.slack.com/services/T0/B0/X3' }), 'generic');
    assert.equal(await type(pager, { url: 'https://events.pagerduty.com/v2/enqueue?routing_key=b' }), 'pagerduty');
    assert.equal(await type(pager, { url: 'https://ntfy.sh/topic', webhookType: 'ntfy' }), 'ntfy');
  });

  test('the log says which fields changed, with the URL cut and no secret', async () => {
    const a = account();
    const id = await createWebhook(srv, a.key, { url: receiver.url('/upd/log/hidd3n') });
    assertStatus(await patch(a, id, { url: receiver.url('/upd/log/hidd3n-too'), secret: 'l0g-secret' }), 200);
    const line = logLines.map((l) => JSON.parse(l)).find((l) => l.msg === 'webhook updated' && l.webhookId === id);
    assert.ok(line);
    assert.equal(line.url, receiver.origin);
    assert.deepEqual(line.changed, ['url', 'secret']);
    const text = logLines.join('');
    assert.ok(!text.includes('hidd3n') && !text.includes('l0g-secret'));
  });
});

describe('errors: the create rules, and a refused PATCH changes nothing', () => {
  test('every 400 names its field; the webhook keeps name, URL, secret and the rest', async () => {
    const a = account();
    const id = await createWebhook(srv, a.key, { url: receiver.url('/upd/keep/x'), name: 'Kept', secret: 'kept-secret', remindEveryMinutes: 10 });
    const before = await listed(a, id);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ url: 'http://example.net/hook' }, /set alerts\.allowHttpWebhooks to true/],
      [{ url: 'not a url' }, /valid URL/],
      [{ url: 42 }, /url must be a string/],
      [{ url: '' }, /url must not be empty/],
      [{ name: '' }, /name must not be empty/],
      [{ name: '   ' }, /name must not be empty/],
      [{ name: 'Ops\nforged line' }, /control characters/],
      [{ name: 'n'.repeat(101) }, /name must be at most 100 characters/],
      [{ name: null }, /name must be a string/],
      [{ webhookType: 'signal' }, /webhookType must be one of: slack, discord/],
      [{ events: ['bogus'] }, /events has no valid value/],
      [{ events: 'website_down' }, /events must be an array/],
      [{ enabled: 'yes' }, /enabled must be a boolean/],
      [{ remindEveryMinutes: 4 }, /remindEveryMinutes/],
      [{ remindEveryMinutes: 7.5 }, /remindEveryMinutes/],
      [{ checkIds: ['chk_00000000000000000000'] }, /checkIds names no check of this account/],
      [{ folders: [''] }, /folders must hold names/],
      [{ secret: '' }, /secret must not be empty/],
      [{ secret: 42 }, /secret must be a string or null/],
      [{ secret: 's'.repeat(257) }, /secret must be at most 256 characters/],
      [{ headers: {} }, /headers is not a known field/],
      [{ id: 'whk_00000000000000000000' }, /id is not a known field/],
    ];
    for (const [bad, message] of cases) {
      // Each bad field travels with good ones: none of them may be applied.
      assertError(await patch(a, id, { name: 'Changed', enabled: false, url: receiver.url('/upd/moved/x'), secret: 'other', ...bad }), 400, message);
    }
    assertError(await srv.request('PATCH', `${HOOKS}/${id}`, { key: a.key, body: '[1, 2]' }), 400);
    assert.deepEqual(await listed(a, id), before);
    const got = await testDelivery(a, id);
    assert.equal(got.path, '/upd/keep/x');
    assert.ok(verifySignature('kept-secret', got.raw, String(got.headers['x-vigil-signature'])));
  });

  test('409 for another webhook\'s URL (after normalisation); its own URL is fine', async () => {
    const a = account();
    await createWebhook(srv, a.key, { url: 'https://Example.net:443/taken?x=1' });
    const id = await createWebhook(srv, a.key, { url: 'https://example.net/mine' });
    assertError(await patch(a, id, { url: 'https://example.net/taken?x=1', name: 'Renamed' }), 409, /already exists/);
    assert.equal((await listed(a, id)).name, 'hook');
    assertStatus(await patch(a, id, { url: 'https://EXAMPLE.net/mine' }), 200);
  });

  test('400 for a malformed id, 404 for an unknown one, 403 for another account, a restricted key or no alerts:write', async () => {
    const a = account();
    const b = account();
    const theirs = await createWebhook(srv, b.key, { url: receiver.url('/upd/theirs/x'), name: 'Theirs' });
    assertError(await patch(a, 'nope', { name: 'x' }), 400, /Invalid webhook id/);
    assertError(await patch(a, `whk_${'0'.repeat(20)}`, { name: 'x' }), 404, /not found/);
    assertError(await patch(a, theirs, { name: 'x' }), 403, /another account/);
    const restricted = newKey(srv, b.accountId, { scopes: ALL, folders: ['ops'] });
    assertError(await srv.request('PATCH', `${HOOKS}/${theirs}`, { key: restricted.key, body: { name: 'x' } }), 403, /unrestricted/);
    const reader = newKey(srv, b.accountId, { scopes: ['alerts:read'] });
    assertError(await srv.request('PATCH', `${HOOKS}/${theirs}`, { key: reader.key, body: { name: 'x' } }), 403, /alerts:write/);
    assert.equal((await listed(b, theirs)).name, 'Theirs');
  });
});

describe('changes take effect on deliveries', () => {
  const INTERVAL = 3_000;
  const round = () => wheelRound(srv, clock, INTERVAL);
  /** Every listed check goes down, then back up; returns the check ids the receiver heard about under `prefix`. */
  async function outage(prefix: string, targets: string[]): Promise<string[]> {
    const start = at(prefix).length;
    for (const t of targets) failing.add(t);
    await round();
    for (const t of targets) failing.delete(t);
    await round();
    return at(prefix).slice(start).filter((r) => r.json.event === 'website_down').map((r) => r.json.check.id as string).sort();
  }

  test('routing by checkIds and folders, disabling, and a new URL', async () => {
    const a = account();
    const [u1, u2, u3] = ['http://127.0.0.1:1/r1', 'http://127.0.0.1:1/r2', 'http://127.0.0.1:1/r3'];
    const c1 = await createFastCheck(srv, a.key, u1, { folder: 'prod' });
    const c2 = await createFastCheck(srv, a.key, u2);
    const c3 = await createFastCheck(srv, a.key, u3, { folder: 'prod' });
    await wheelRound(srv, clock, 0);
    const id = await createWebhook(srv, a.key, { url: receiver.url('/route-upd/a') });
    const all = [u1, u2, u3];
    assert.deepEqual(await outage('/route-upd/', all), [c1, c2, c3].sort(), 'account-wide at first');
    assertStatus(await patch(a, id, { checkIds: [c2] }), 200);
    assert.deepEqual(await outage('/route-upd/', all), [c2]);
    assertStatus(await patch(a, id, { checkIds: [], folders: ['prod'] }), 200);
    assert.deepEqual(await outage('/route-upd/', all), [c1, c3].sort());
    assertStatus(await patch(a, id, { checkIds: [c2] }), 200);
    assert.deepEqual(await outage('/route-upd/', all), [c1, c2, c3].sort(), 'a check listed or one in a listed folder');
    assertStatus(await patch(a, id, { enabled: false }), 200);
    assert.deepEqual(await outage('/route-upd/', all), [], 'disabled: nothing sent');
    assertStatus(await patch(a, id, { enabled: true, folders: [], checkIds: [], url: receiver.url('/route-upd/b') }), 200);
    const before = at('/route-upd/a').length;
    assert.deepEqual(await outage('/route-upd/b', all), [c1, c2, c3].sort(), 'every check again, at the new URL');
    assert.equal(at('/route-upd/a').length, before, 'nothing more to the old URL');
  });

  test('a failed delivery retried after the URL changed goes to the new URL', async () => {
    const a = account();
    const url = 'http://127.0.0.1:1/retry-upd';
    await createFastCheck(srv, a.key, url);
    await wheelRound(srv, clock, 0);
    const id = await createWebhook(srv, a.key, { url: receiver.url('/retry-upd/old') });
    receiver.respond = (r) => (r.path === '/retry-upd/old' ? 404 : 200);
    failing.add(url);
    await round();
    failing.delete(url);
    await srv.app.alerts.idle();
    receiver.respond = () => 200;
    const failed = (await srv.request('GET', `${DELIVERIES}?status=failed&webhookId=${id}`, { key: a.key })).body.data;
    assert.equal(failed.length, 1);
    assertStatus(await patch(a, id, { url: receiver.url('/retry-upd/new') }), 200);
    assertStatus(await srv.request('POST', `${DELIVERIES}/${failed[0].id}/retry`, { key: a.key }), 200);
    await receiver.waitFor(() => at('/retry-upd/new').length === 1);
    assert.equal(at('/retry-upd/new')[0]!.json.event, 'website_down');
  });
});
