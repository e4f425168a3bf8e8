import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { verifySignature } from '../../src/alerts/signing.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { startLoggingServer } from '../helpers/alerts-e2e.js';
import { startReceiver, type Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { assertCaTrusted } from '../helpers/fixtures/alerts-tls.js';
import { assertError, assertStatus, externalWrite, newAccount, newKey, NO_PROBES, type Actor } from './util.js';

/** Webhooks (spec 2.9, 4.9, §7 webhook rows; decisions §8): list, create, test, delete. */

const HOOKS = '/v1/public/alerts/webhooks';
const ALERTS = ['alerts:read', 'alerts:write', 'checks:read'];

let server: TestServer;
let receiver: Receiver;
let logLines: string[] = [];

before(async () => {
  assertCaTrusted();
  receiver = await startReceiver();
  ({ server, logLines } = await startLoggingServer());
});
after(async () => {
  await server.stop();
  await receiver.close();
});

const fresh = (tier: 'free' | 'pro' = 'pro'): Actor => newAccount(server, { tier, scopes: ALERTS });
const create = (actor: Actor, body: unknown) => server.request('POST', HOOKS, { key: actor.key, body });
let seq = 0;
const hookUrl = (tag = 'generic') => receiver.url(`/hooks/${tag}/${++seq}/t0ps3cret`);

async function createOk(actor: Actor, body: Record<string, unknown>): Promise<string> {
  const res = await create(actor, body);
  assertStatus(res, 201);
  return res.body.data.id as string;
}

describe('create and list', () => {
  test('201 with the URL cut to scheme and host; defaults; list adds createdAt', async () => {
    const a = fresh();
    assert.deepEqual((await server.request('GET', HOOKS, { key: a.key })).body, { data: [] });
    const url = hookUrl();
    const res = await create(a, { url, name: 'Receiver', secret: 'shh' });
    assertStatus(res, 201);
    assert.match(res.body.data.id, /^whk_[0-9a-f]{20}$/);
    assert.deepEqual(res.body.data, {
      id: res.body.data.id, name: 'Receiver', url: receiver.origin, webhookType: 'generic',
      events: ['website_down', 'website_up'], enabled: true, checkIds: [], folders: [], tags: [], remindEveryMinutes: null,
    });
    const list = await server.request('GET', HOOKS, { key: a.key });
    assertStatus(list, 200);
    assert.equal(list.body.data.length, 1);
    assert.deepEqual(Object.keys(list.body.data[0]).sort(), ['checkIds', 'createdAt', 'enabled', 'events', 'folders', 'id', 'name', 'remindEveryMinutes', 'tags', 'url', 'webhookType']);
    assert.equal(typeof list.body.data[0].createdAt, 'number');
    assert.ok(!list.text.includes('t0ps3cret') && !res.text.includes('t0ps3cret'), 'no response carries the path');
    assert.ok(!list.text.includes('shh'), 'nor the secret');
  });

  test('type detection from the URL; an explicit type wins; events filtered', async () => {
    const a = fresh();
    const cases: Array<[string, string]> = [
      ['https://hooks.slack.com/services/T0/B0/X1', 'slack'],
      ['https://discord.com/api/webhooks/1/x', 'discord'],
      ['https://contoso.webhook.office.com/webhookb2/x', 'teams'],
      ['https://api.pumble.com/workspaces/1/x', 'pumble'],
      ['https://example.net/anything', 'generic'],
    ];
    for (const [url, type] of cases) {
      const res = await create(a, { url, name: type });
      assertStatus(res, 201);
      assert.equal(res.body.data.webhookType, type, url);
      assert.equal(res.body.data.url, new URL(url).origin);
    }
    const explicit = await create(a, { url: 'https://events.pagerduty.com/v2/enqueue?routing_key=abc', name: 'PD', webhookType: 'pagerduty', events: ['website_down', 'nonsense', 'ssl_error'] });
    assertStatus(explicit, 201);
    assert.equal(explicit.body.data.webhookType, 'pagerduty');
    assert.deepEqual(explicit.body.data.events, ['website_down', 'ssl_error']);
  });

  test('every 400: url, name, type, events, unknown fields', async () => {
    const a = fresh();
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'x' }, /url is required/],
      [{ url: 'http://example.net/hook', name: 'x' }, /https/],
      [{ url: 'not a url', name: 'x' }, /valid URL/],
      [{ url: 42, name: 'x' }, /url must be a string/],
      [{ url: 'https://example.net/hook' }, /name is required/],
      [{ url: 'https://example.net/hook', name: '' }, /name must not be empty/],
      [{ url: 'https://example.net/hook', name: '   ' }, /name must not be empty/],
      [{ url: 'https://example.net/hook', name: 'Ops\nforged line' }, /control characters/],
      [{ url: 'https://example.net/hook', name: 'n'.repeat(101) }, /name must be at most 100 characters/],
      [{ url: 'https://example.net/hook', name: 'x', webhookType: 'signal' }, /webhookType must be one of: slack, discord, teams, pumble, pagerduty, opsgenie, pushover, generic, ntfy, gotify, telegram, matrix, mattermost, rocketchat, googlechat/],
      [{ url: 'http://example.net/hook', name: 'x' }, /set alerts\.allowHttpWebhooks to true/],
      [{ url: 'https://example.net/hook', name: 'x', remindEveryMinutes: 4 }, /remindEveryMinutes/],
      [{ url: 'https://example.net/hook', name: 'x', remindEveryMinutes: 7.5 }, /remindEveryMinutes/],
      [{ url: 'https://example.net/hook', name: 'x', checkIds: ['chk_00000000000000000000'] }, /checkIds names no check of this account/],
      [{ url: 'https://example.net/hook', name: 'x', folders: [''] }, /folders must hold names/],
      [{ url: 'https://example.net/hook', name: 'x', events: ['bogus'] }, /events has no valid value/],
      [{ url: 'https://example.net/hook', name: 'x', events: 'website_down' }, /events must be an array/],
      [{ url: 'https://example.net/hook', name: 'x', headers: {} }, /headers is not a known field/],
    ];
    for (const [body, message] of cases) assertError(await create(a, body), 400, message);
    assertStatus(await create(a, { url: 'https://example.net/hook', name: 'n'.repeat(100) }), 201);
    assert.equal((await server.request('GET', HOOKS, { key: a.key })).body.data.length, 1);
  });

  test('409 for a duplicate URL (same after normalisation) and at the plan limit', async () => {
    const a = fresh('free');
    await createOk(a, { url: 'https://Example.net:443/dup?x=1', name: 'one' });
    assertError(await create(a, { url: 'https://example.net/dup?x=1', name: 'again' }), 409, /already exists/);
    await createOk(a, { url: 'https://example.net/dup?x=2', name: 'two' });
    assertError(await create(a, { url: 'https://example.net/dup?x=3', name: 'three' }), 409, /limit of 2 webhooks/);
    const other = fresh('free');
    await createOk(other, { url: 'https://example.net/dup?x=1', name: 'other account, same URL' });
  });

  test('an Idempotency-Key replays the first answer instead of creating a second webhook', async () => {
    const a = fresh();
    const body = { url: hookUrl(), name: 'once' };
    const headers = { 'idempotency-key': 'create-webhook-once' };
    const first = await server.request('POST', HOOKS, { key: a.key, body, headers });
    assertStatus(first, 201);
    const again = await server.request('POST', HOOKS, { key: a.key, body, headers });
    assertStatus(again, 201);
    assert.deepEqual(again.body, first.body);
    assert.equal((await server.request('GET', HOOKS, { key: a.key })).body.data.length, 1);
    assertError(await server.request('POST', HOOKS, { key: a.key, body: { ...body, name: 'other' }, headers }), 422);
  });

  test('the account response counts webhooks', async () => {
    const a = fresh();
    await createOk(a, { url: hookUrl(), name: 'count me' });
    const account = (await server.request('GET', '/v1/public/account', { key: a.key })).body.data;
    assert.equal(account.usage.webhooks, 1);
    assert.equal(account.alerts.webhookCount, 1);
  });
});

describe('test', () => {
  test('generic: a signed sample website_down with test: true; 200 with the status', async () => {
    const a = fresh();
    const id = await createOk(a, { url: hookUrl(), name: 'signed', secret: 'signing-secret' });
    const start = receiver.received.length;
    receiver.respond = () => 202;
    const res = await server.request('POST', `${HOOKS}/${id}/test`, { key: a.key });
    receiver.respond = () => 200;
    assertStatus(res, 200);
    assert.deepEqual(res.body.data, { message: `Test alert delivered to ${receiver.origin}`, status: 202 });
    const [got] = receiver.received.slice(start);
    assert.ok(got);
    assert.equal(got.method, 'POST');
    assert.match(got.path, /^\/hooks\/generic\/\d+\/t0ps3cret$/);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['x-vigil-event'], 'website_down');
    assert.match(String(got.headers['x-vigil-delivery']), /^dlv_[0-9a-f]{20}$/);
    assert.ok(verifySignature('signing-secret', got.raw, String(got.headers['x-vigil-signature'])), 'HMAC-SHA256 of the raw body');
    assert.equal(got.json.event, 'website_down');
    assert.equal(got.json.test, true);
    assert.deepEqual(Object.keys(got.json), ['event', 'test', 'timestamp', 'check', 'previousStatus', 'details']);
  });

  test('slack, discord, teams and pumble receive their own short message', async () => {
    const a = fresh();
    const shapes: Record<string, (json: any) => void> = { // eslint-disable-line @typescript-eslint/no-explicit-any
      slack: (j) => assert.ok(typeof j.text === 'string' && Array.isArray(j.attachments[0].blocks)),
      discord: (j) => assert.ok(j.embeds[0].title === 'Test alert from Vigil' && j.username === 'Vigil'),
      teams: (j) => assert.ok(j.type === 'message' && j.attachments[0].content.type === 'AdaptiveCard'),
      pumble: (j) => assert.ok(/Test alert from Vigil/.test(j.text)),
    };
    for (const [type, check] of Object.entries(shapes)) {
      const id = await createOk(a, { url: hookUrl(type), name: type, webhookType: type });
      const start = receiver.received.length;
      assertStatus(await server.request('POST', `${HOOKS}/${id}/test`, { key: a.key }), 200);
      const [got] = receiver.received.slice(start);
      assert.ok(got, type);
      assert.equal(got.headers['x-vigil-signature'], undefined, 'no secret, no signature');
      check(got.json);
    }
  });

  test('502: dashboard-only types, an error answer, no connection', async () => {
    const a = fresh();
    for (const type of ['pagerduty', 'opsgenie', 'pushover']) {
      const id = await createOk(a, { url: `${hookUrl(type)}?token=t&user=u&routing_key=r&apiKey=k`, name: type, webhookType: type });
      const start = receiver.received.length;
      assertError(await server.request('POST', `${HOOKS}/${id}/test`, { key: a.key }), 502, /only in the dashboard/);
      assert.equal(receiver.received.length, start, 'nothing was sent');
    }
    const failing = await createOk(a, { url: hookUrl('failing'), name: 'failing' });
    receiver.respond = () => 500;
    const res = await server.request('POST', `${HOOKS}/${failing}/test`, { key: a.key });
    receiver.respond = () => 200;
    assertError(res, 502, new RegExp(`^Webhook ${receiver.origin.replace(/\./g, '\\.')} answered 500$`));
    const closed = await startReceiver();
    const gone = closed.url('/gone/s3cr3t');
    await closed.close();
    const unreachable = await createOk(a, { url: gone, name: 'unreachable' });
    const down = await server.request('POST', `${HOOKS}/${unreachable}/test`, { key: a.key });
    assertError(down, 502, /could not be reached: connection refused/);
    assert.ok(!down.text.includes('s3cr3t'));
  });

  test('an unclaimed account gets 403 account_unclaimed', async () => {
    const a = fresh();
    const id = await createOk(a, { url: hookUrl(), name: 'x' });
    externalWrite(server, 'UPDATE accounts SET claimed = 0 WHERE id = ?', a.accountId);
    assertError(await server.request('POST', `${HOOKS}/${id}/test`, { key: a.key }), 403, /account_unclaimed/);
  });
});

describe('delete, ids and access', () => {
  test('delete answers {id, deleted: true}; the webhook is gone', async () => {
    const a = fresh();
    const id = await createOk(a, { url: hookUrl(), name: 'short-lived' });
    const res = await server.request('DELETE', `${HOOKS}/${id}`, { key: a.key });
    assertStatus(res, 200);
    assert.deepEqual(res.body, { data: { id, deleted: true } });
    assert.deepEqual((await server.request('GET', HOOKS, { key: a.key })).body.data, []);
    assertError(await server.request('DELETE', `${HOOKS}/${id}`, { key: a.key }), 404);
    assertError(await server.request('POST', `${HOOKS}/${id}/test`, { key: a.key }), 404);
  });

  test('400 for an invalid id, 404 for an unknown one, 403 for another account', async () => {
    const a = fresh();
    const b = fresh();
    const theirs = await createOk(b, { url: hookUrl(), name: 'theirs' });
    for (const method of ['DELETE', 'POST'] as const) {
      const suffix = method === 'POST' ? '/test' : '';
      assertError(await server.request(method, `${HOOKS}/nope${suffix}`, { key: a.key }), 400, /Invalid webhook id/);
      assertError(await server.request(method, `${HOOKS}/whk_${'0'.repeat(20)}${suffix}`, { key: a.key }), 404);
      assertError(await server.request(method, `${HOOKS}/${theirs}${suffix}`, { key: a.key }), 403, /another account/);
    }
    assert.equal((await server.request('GET', HOOKS, { key: b.key })).body.data.length, 1, 'still there');
  });

  test('403 without the scope or with a restricted key; 404 when no endpoint matches', async () => {
    const readOnly = newAccount(server, { tier: 'pro', scopes: ['checks:read', 'alerts:read'] });
    assertStatus(await server.request('GET', HOOKS, { key: readOnly.key }), 200);
    assertError(await create(readOnly, { url: hookUrl(), name: 'x' }), 403, /alerts:write/);
    const none = newAccount(server, { tier: 'pro', scopes: ['checks:read'] });
    assertError(await server.request('GET', HOOKS, { key: none.key }), 403, /alerts:read/);
    const restricted = newKey(server, readOnly.accountId, { scopes: ['alerts:read', 'alerts:write'], folders: ['ops'] });
    assertError(await server.request('GET', HOOKS, { key: restricted.key }), 403, /unrestricted/);
    assertError(await server.request('POST', HOOKS, { key: restricted.key, body: { url: hookUrl(), name: 'x' } }), 403, /unrestricted/);
    assertError(await server.request('GET', `${HOOKS}/whk_${'0'.repeat(20)}`), 404, /No endpoint matches/);
  });

  test('no log line carries a webhook URL past its host', () => {
    const text = logLines.join('');
    const about = logLines.filter((l) => /"msg":"webhook (created|deleted|test delivered|test failed)"/.test(l));
    assert.ok(about.length > 10, 'webhooks are logged');
    for (const line of about) assert.match(JSON.parse(line).url, /^https:\/\/[^/]+$/, 'scheme and host only');
    assert.ok(!text.includes('t0ps3cret'), 'paths stay out of the logs');
    assert.ok(!text.includes('s3cr3t'));
    assert.ok(!text.includes('signing-secret'));
  });
});

describe('blockPrivateAddresses (decisions §3: "webhooks included")', () => {
  let strict: TestServer;
  before(async () => {
    strict = await startServer({ probes: { blockPrivateAddresses: true } }, undefined, NO_PROBES);
  });
  after(() => strict.stop());

  test('a webhook on a private or loopback address is refused', async () => {
    const a = newAccount(strict, { tier: 'pro', scopes: ALERTS });
    for (const url of [receiver.url('/x'), 'https://10.1.2.3/hook', 'https://[::1]/hook', 'https://localhost/hook']) {
      assertError(await strict.request('POST', HOOKS, { key: a.key, body: { url, name: 'private' } }), 400, /private address/);
    }
  });
});
