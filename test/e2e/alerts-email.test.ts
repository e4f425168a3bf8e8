import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.js';
import { startSmtpSink, type SmtpSink } from '../helpers/fixtures/alerts-smtp.js';
import { assertError, assertStatus, externalWrite, newAccount, newKey, NO_PROBES, type Actor } from './util.js';

/** Email alert settings (spec 2.8, 4.8, §7 email rows): GET, PATCH, test over a real SMTP sink. */

const EMAIL = '/v1/public/alerts/email';
const ALERTS = ['alerts:read', 'alerts:write', 'checks:read'];

let server: TestServer;
let sink: SmtpSink;

before(async () => {
  sink = await startSmtpSink();
  server = await startServer({ smtp: { url: sink.url, from: 'Vigil <vigil@test.local>' } }, undefined, NO_PROBES);
});
after(async () => {
  await server.stop();
  await sink.close();
});

const fresh = async (): Promise<Actor> => (await newAccount(server, { tier: 'pro', scopes: ALERTS }));
const patch = (actor: Actor, body: unknown) => server.request('PATCH', EMAIL, { key: actor.key, body });

describe('settings', () => {
  test('GET is null before setup', async () => {
    const res = await server.request('GET', EMAIL, { key: (await fresh()).key });
    assertStatus(res, 200);
    assert.deepEqual(res.body, { data: null });
  });

  test('the first PATCH needs recipients, then events default to down/up and enabled to true', async () => {
    const a = await fresh();
    assertError(await patch(a, { enabled: true }), 400, /recipients is required/);
    assert.deepEqual((await server.request('GET', EMAIL, { key: a.key })).body, { data: null }, 'a refused first call writes nothing');
    const res = await patch(a, { recipients: ['Ops@Example.com', 'ops@example.com ', 'dev@example.com'] });
    assertStatus(res, 200);
    assert.deepEqual(res.body, {
      // The spec's four fields, then issue 17's routing and reminders (every check, none).
      data: {
        enabled: true, recipients: ['Ops@Example.com', 'dev@example.com'], events: ['website_down', 'website_up'], emailFormat: 'html',
        checkIds: [], folders: [], tags: [], remindEveryMinutes: null,
      },
    });
    const got = await server.request('GET', EMAIL, { key: a.key });
    assert.equal(typeof got.body.data.updatedAt, 'number');
    assert.deepEqual({ ...got.body.data, updatedAt: 0 }, { ...res.body.data, updatedAt: 0 });
  });

  test('later PATCHes change only what they send; unknown events are dropped', async () => {
    const a = await fresh();
    await patch(a, { recipients: ['a@example.com'] });
    const res = await patch(a, { events: ['ssl_error', 'made_up', 'domain_expiring'], emailFormat: 'text' });
    assertStatus(res, 200);
    assert.deepEqual(res.body.data, {
      enabled: true, recipients: ['a@example.com'], events: ['ssl_error', 'domain_expiring'], emailFormat: 'text', checkIds: [], folders: [], tags: [], remindEveryMinutes: null,
    });
    assert.deepEqual((await patch(a, { enabled: false })).body.data.enabled, false);
    assert.deepEqual((await patch(a, {})).body.data.recipients, ['a@example.com']);
  });

  test('every 400 of spec §7, and none of them changes anything', async () => {
    const a = await fresh();
    await patch(a, { recipients: ['keep@example.com'] });
    const before = (await server.request('GET', EMAIL, { key: a.key })).body.data;
    const cases: Array<[unknown, RegExp]> = [
      [{ recipients: 'keep@example.com' }, /recipients must be an array/],
      [{ recipients: Array.from({ length: 11 }, (_, i) => `u${i}@example.com`) }, /at most 10/],
      [{ recipients: ['not-an-address'] }, /invalid email address/],
      [{ recipients: [] }, /at least one/],
      [{ recipients: [42] }, /recipients\.0 must be a string/],
      [{ events: ['nope', 'never'] }, /events has no valid value/],
      [{ events: [] }, /events has no valid value/],
      [{ enabled: 'yes' }, /enabled must be a boolean/],
      [{ emailFormat: 'pdf' }, /emailFormat must be one of: html, text/],
      [{ sms: true }, /sms is not a known field/],
    ];
    for (const [body, message] of cases) assertError(await patch(a, body), 400, message);
    const raw = await server.request('PATCH', EMAIL, { key: a.key, rawBody: '{oops', headers: { 'content-type': 'application/json' } });
    assertError(raw, 400);
    assert.deepEqual((await server.request('GET', EMAIL, { key: a.key })).body.data, before);
  });

  test('403 without the scope or with a restricted key; 404 for no alerts endpoint', async () => {
    const readOnly = await newAccount(server, { tier: 'pro', scopes: ['checks:read', 'alerts:read'] });
    assertStatus(await server.request('GET', EMAIL, { key: readOnly.key }), 200);
    assertError(await patch(readOnly, { recipients: ['x@example.com'] }), 403, /alerts:write/);
    assertError(await server.request('POST', `${EMAIL}/test`, { key: readOnly.key }), 403, /alerts:write/);
    const noAlerts = await newAccount(server, { tier: 'pro', scopes: ['checks:read', 'checks:write'] });
    assertError(await server.request('GET', EMAIL, { key: noAlerts.key }), 403, /alerts:read/);
    const restricted = await newKey(server, readOnly.accountId, { scopes: ['alerts:read', 'alerts:write'], folders: ['ops'] });
    assertError(await server.request('GET', EMAIL, { key: restricted.key }), 403, /unrestricted/);
    assertError(await server.request('PATCH', EMAIL, { key: restricted.key, body: { enabled: true } }), 403, /unrestricted/);
    assertError(await server.request('POST', `${EMAIL}/test`, { key: restricted.key }), 403, /unrestricted/);
    assertError(await server.request('DELETE', EMAIL), 404, /No endpoint matches/);
    assertError(await server.request('GET', '/v1/public/alerts/sms'), 404, /No endpoint matches/);
    assertError(await server.request('GET', EMAIL, { key: null }), 401);
  });

  test('the account response reports the email setting', async () => {
    const a = await fresh();
    let account = (await server.request('GET', '/v1/public/account', { key: a.key })).body.data;
    assert.deepEqual(account.alerts, { emailConfigured: false, emailEnabled: false, webhookCount: 0 });
    await patch(a, { recipients: ['x@example.com'], enabled: false });
    account = (await server.request('GET', '/v1/public/account', { key: a.key })).body.data;
    assert.deepEqual(account.alerts, { emailConfigured: true, emailEnabled: false, webhookCount: 0 });
  });
});

describe('test email', () => {
  test('html format: every recipient gets an html mail with a plain-text twin', async () => {
    const a = await fresh();
    await patch(a, { recipients: ['one@example.com', 'two@example.com'] });
    const start = sink.mails.length;
    const res = await server.request('POST', `${EMAIL}/test`, { key: a.key });
    assertStatus(res, 200);
    assert.deepEqual(res.body.data.delivered, ['one@example.com', 'two@example.com']);
    assert.match(res.body.data.message, /2 recipients/);
    const mails = sink.mails.slice(start);
    assert.deepEqual(mails.map((m) => m.to[0]).sort(), ['one@example.com', 'two@example.com']);
    for (const m of mails) {
      assert.equal(m.subject, '[Vigil] Test alert from Vigil');
      assert.match(m.contentType, /multipart\/alternative/);
      assert.ok(m.html && /<h1[^>]*>Test alert from Vigil<\/h1>/.test(m.html), 'html part with a heading');
      assert.ok(m.text && m.text.startsWith('Test alert from Vigil\n'), 'text part reads on its own');
      assert.match(m.text!, /Vigil alerts will reach this channel/);
      // Automatic (RFC 3834): out-of-office replies leave it alone (issue 35).
      assert.match(m.raw.slice(0, m.raw.indexOf('\r\n\r\n')), /^Auto-Submitted: auto-generated$/m);
    }
  });

  test('text format: a plain-text mail only', async () => {
    const a = await fresh();
    await patch(a, { recipients: ['plain@example.com'], emailFormat: 'text' });
    const start = sink.mails.length;
    assertStatus(await server.request('POST', `${EMAIL}/test`, { key: a.key }), 200);
    const [m] = sink.mails.slice(start);
    assert.ok(m);
    assert.match(m.contentType, /^text\/plain/);
    assert.equal(m.html, null);
    assert.match(m.text!, /Test alert from Vigil/);
  });

  test('a partial failure is 502 and lists who received it', async () => {
    const a = await fresh();
    sink.refuse.add('bounce@example.com');
    await patch(a, { recipients: ['ok@example.com', 'bounce@example.com', 'fine@example.com'] });
    const res = await server.request('POST', `${EMAIL}/test`, { key: a.key });
    assertError(res, 502 as number, /1 of 3/);
    // The standard error body carries the addresses that did get it (spec 4.8).
    assert.deepEqual(res.body.error.delivered, ['ok@example.com', 'fine@example.com']);
  });

  test('412 without settings or recipients', async () => {
    assertError(await server.request('POST', `${EMAIL}/test`, { key: (await fresh()).key }), 412, /no recipients/);
  });

  test('an unclaimed account gets 403 account_unclaimed', async () => {
    const a = await fresh();
    await patch(a, { recipients: ['x@example.com'] });
    await externalWrite(server, 'UPDATE accounts SET claimed = 0 WHERE id = ?', a.accountId);
    const res = await server.request('POST', `${EMAIL}/test`, { key: a.key });
    assertError(res, 403, /account_unclaimed/);
  });
});

describe('without SMTP', () => {
  let bare: TestServer;
  before(async () => {
    bare = await startServer({}, undefined, NO_PROBES);
  });
  after(() => bare.stop());

  test('test is 503 once there are recipients (412 comes first without them)', async () => {
    const a = await newAccount(bare, { tier: 'pro', scopes: ALERTS });
    assertError(await bare.request('POST', `${EMAIL}/test`, { key: a.key }), 412);
    assertStatus(await bare.request('PATCH', EMAIL, { key: a.key, body: { recipients: ['x@example.com'] } }), 200);
    assertError(await bare.request('POST', `${EMAIL}/test`, { key: a.key }), 503, /smtp\.url/);
  });
});
