import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { verifySignature } from '../../src/alerts/signing.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { startSmtpSink, type SmtpSink } from '../helpers/fixtures/alerts-smtp.js';
import { startReceiver, type Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { assertCaTrusted } from '../helpers/fixtures/alerts-tls.js';
import { waitFor } from '../helpers/fixtures/probe-task.js';
import { assertError, assertStatus, createCheck, newAccount, newKey, NO_PROBES, rawRequest, type Actor } from './util.js';

/**
 * Subscriptions to a status page (issue 29) against a real SMTP sink (smtp-server) and a local
 * HTTPS receiver: email double opt-in (nothing before the link is used, one message per update
 * after it, unsubscribe in one POST), webhook subscribers receiving signed notices once verified,
 * and the form's abuse refused. Clients are told apart by X-Forwarded-For (server.trustProxy), so
 * each test has its own per-client budget. The receiver is on loopback, which subscriber webhooks
 * may reach only with statusPages.subscriberWebhooks.allowPrivateTargets (issue 34; the refusal
 * and the verification's failures are in status-page-webhook-verification.test.ts); it echoes
 * every verification challenge.
 */
let server: TestServer;
let sink: SmtpSink;
let receiver: Receiver;
let owner: Actor;
let pageId: string;
let checkId: string;
let clients = 0;
const SLUG = 'followed';
const MAX = 6;

before(async () => {
  assertCaTrusted();
  sink = await startSmtpSink();
  receiver = await startReceiver();
  receiver.respond = (r) => (r.json?.type === 'subscription.verify' ? { status: 200, headers: { 'content-type': 'text/plain' }, body: r.json.challenge } : 200);
  server = await startServer(
    {
      smtp: { url: sink.url, from: 'Vigil <vigil@test.local>' }, server: { trustProxy: true }, alerts: { retryBaseMs: 50 },
      statusPages: { maxSubscribers: MAX, subscriberWebhooks: { allowPrivateTargets: true } },
    },
    undefined,
    NO_PROBES,
  );
  owner = await newAccount(server, { tier: 'pro' });
  checkId = await createCheck(server, { url: 'https://api.example.com', name: 'API' }, owner.key);
  const page = await server.request('POST', '/v1/public/status-pages', { key: owner.key, body: { slug: SLUG, title: 'Followed', checkIds: [checkId], webhookSubscriptions: true } });
  assertStatus(page, 201);
  pageId = page.body.data.id;
});

after(async () => {
  await server.stop();
  await sink.close();
  await receiver.close();
});

const newClient = () => `203.0.113.${++clients}`;
const form = (fields: Record<string, string>, client: string, slug = SLUG) =>
  rawRequest(server, 'POST', `/status/${slug}/subscribe`, { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': client }, new URLSearchParams(fields).toString());
const openIncident = async (title: string) => {
  const res = await server.request('POST', `/v1/public/status-pages/${pageId}/incidents`, { key: owner.key, body: { title, message: `${title} started`, checkIds: [checkId] } });
  assertStatus(res, 201);
  return res.body.data.id as string;
};
const postUpdate = async (id: string, status: string, message: string) =>
  assertStatus(await server.request('POST', `/v1/public/status-pages/${pageId}/incidents/${id}/updates`, { key: owner.key, body: { status, message } }), 201);
/** Every notice queued so far settled (delivered, cancelled or failed): what a negative check waits on. */
const settled = async (count: number) => {
  const deliveries = () => server.app.store.alerts.deliveries.forCheck(pageId);
  await waitFor(async () => (await deliveries()).length >= count && (await deliveries()).every((d) => d.status !== 'pending' && d.status !== 'sending'), `${count} notice deliveries settled`, 15_000);
};
/** A message's header block, folded lines unfolded. */
const headOf = (raw: string) => raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
const linkIn = (text: string, action: string) => new RegExp(`${server.app.config.publicUrl}/status-subscription/[0-9a-f]{64}/${action}`).exec(text)?.[0];
/** Notices a receiver path got (the verification request is not one). */
const notices = (path: string) => receiver.received.filter((r) => r.path === path && r.json?.event !== undefined);
const verified = () => server.app.services.pages.subscriptions.verificationsSettled();
const subscribers = async () => (await server.request('GET', `/v1/public/status-pages/${pageId}/subscribers?limit=100`, { key: owner.key })).body;

describe('email subscribers', () => {
  test('double opt-in: nothing before the link is used, one message per update after it, unsubscribe in one POST', async () => {
    const res = await form({ kind: 'email', email: 'Reader@Example.com' }, newClient());
    assertStatus(res, 200);
    assert.match(res.text, /Check your inbox/);
    await sink.waitFor(1);
    const confirmation = sink.mails[0]!;
    assert.deepEqual(confirmation.to, ['reader@example.com']);
    assert.match(confirmation.subject, /Confirm your subscription to Followed/);
    const confirmUrl = linkIn(confirmation.text!, 'confirm')!;
    assert.ok(confirmUrl, confirmation.text!);
    // Issue 35: the confirmation has its way out too, and says it is automatic (RFC 3834).
    const confirmationHead = headOf(confirmation.raw);
    assert.match(confirmationHead, new RegExp(`^List-Unsubscribe: <${linkIn(confirmation.text!, 'unsubscribe')}>$`, 'm'));
    assert.match(confirmationHead, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    assert.match(confirmationHead, /^Auto-Submitted: auto-generated$/m);
    assert.deepEqual((await subscribers()).meta, { page: 1, limit: 100, email: 0, webhook: 0, pending: 1 });

    const first = await openIncident('Database slow');
    await settled(1);
    const local = (url: string) => url.replace(server.app.config.publicUrl, '');
    const shown = await rawRequest(server, 'GET', local(confirmUrl), {});
    assert.match(shown.text, /<form method="post"><button type="submit">Confirm<\/button>/, 'opening the link shows a button; mail scanners confirm nothing');
    assert.equal((await subscribers()).meta.pending, 1);
    const confirmed = await rawRequest(server, 'POST', local(confirmUrl), { 'content-type': 'application/x-www-form-urlencoded' }, '');
    assertStatus(confirmed, 200);
    assert.match(confirmed.text, /You will receive an email/);
    assert.deepEqual((await subscribers()).meta, { page: 1, limit: 100, email: 1, webhook: 0, pending: 0 });

    await postUpdate(first, 'identified', 'An index was missing.\nWe are adding it.');
    await sink.waitFor(2);
    await settled(2);
    assert.equal(sink.mails.length, 2, 'the incident opened before the confirmation was not sent');
    const update = sink.mails[1]!;
    assert.equal(update.subject, '[Followed] Database slow: Identified');
    assert.match(update.text!, /An index was missing\.\nWe are adding it\./);
    const unsubscribeUrl = linkIn(update.text!, 'unsubscribe')!;
    assert.ok(unsubscribeUrl, 'every message has an unsubscribe link');
    const head = headOf(update.raw);
    assert.match(head, new RegExp(`^List-Unsubscribe: <${unsubscribeUrl}>$`, 'm'));
    assert.match(head, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    assert.match(head, /^Auto-Submitted: auto-generated$/m);

    await postUpdate(first, 'resolved', 'Fixed.');
    await sink.waitFor(3);
    assert.equal(sink.mails[2]!.subject, '[Followed] Database slow: Resolved', 'one message per update');

    // What a mail client's one-click button sends (RFC 8058).
    const gone = await rawRequest(server, 'POST', local(unsubscribeUrl), { 'content-type': 'application/x-www-form-urlencoded' }, 'List-Unsubscribe=One-Click');
    assertStatus(gone, 200);
    assert.match(gone.text, /no longer receive updates of <b>Followed<\/b>/);
    assert.equal((await subscribers()).meta.email, 0);
    await openIncident('After unsubscribing');
    await settled(3);
    assert.equal(sink.mails.length, 3, 'nothing after unsubscribing');
  });
});

describe('email subscribers: the way out before confirming', () => {
  test('the confirmation\'s unsubscribe link forgets an address not confirmed yet (issue 35)', async () => {
    const before = sink.mails.length;
    assertStatus(await form({ kind: 'email', email: 'unsure@example.com' }, newClient()), 200);
    await sink.waitFor(before + 1);
    const confirmation = sink.mails[before]!;
    assert.deepEqual(confirmation.to, ['unsure@example.com']);
    assert.equal((await subscribers()).meta.pending, 1);
    const unsubscribeUrl = linkIn(confirmation.text!, 'unsubscribe')!;
    assert.ok(unsubscribeUrl, confirmation.text!);
    const gone = await rawRequest(server, 'POST', unsubscribeUrl.replace(server.app.config.publicUrl, ''), { 'content-type': 'application/x-www-form-urlencoded' }, 'List-Unsubscribe=One-Click');
    assertStatus(gone, 200);
    assert.equal((await subscribers()).meta.pending, 0, 'the address is forgotten');
    const confirmUrl = linkIn(confirmation.text!, 'confirm')!;
    await rawRequest(server, 'POST', confirmUrl.replace(server.app.config.publicUrl, ''), { 'content-type': 'application/x-www-form-urlencoded' }, '');
    assert.deepEqual([(await subscribers()).meta.email, (await subscribers()).meta.pending], [0, 0], 'its confirm link confirms nothing any more');
  });
});

describe('webhook subscribers', () => {
  test('a verified webhook receives signed JSON notices; the generated secret and the way out are shown once', async () => {
    const client = newClient();
    const res = await form({ kind: 'webhook', url: receiver.url('/status-hook') }, client);
    assertStatus(res, 202);
    assert.match(res.text, /subscription\.verify/, 'the answer says what the receiver must answer');
    const secret = /<code id="secret">([0-9a-f]{64})<\/code>/.exec(res.text)?.[1];
    assert.ok(secret, 'the generated secret is shown');
    const unsubscribe = /<code id="unsubscribe">([^<]+)<\/code>/.exec(res.text)![1]!;
    const chosen = await form({ kind: 'webhook', url: receiver.url('/chosen-hook'), secret: 'my-own-secret-of-24-chars' }, client);
    assertStatus(chosen, 202);
    assert.doesNotMatch(chosen.text, /id="secret"/, 'a chosen secret is not echoed');
    await verified();
    assertStatus(await form({ kind: 'webhook', url: receiver.url('/status-hook') }, client), 409);

    const id = await openIncident('Webhooks hear this');
    await receiver.waitFor(() => notices('/status-hook').length + notices('/chosen-hook').length >= 2);
    const got = notices('/status-hook')[0]!;
    assert.ok(verifySignature(secret!, got.raw, got.headers['x-vigil-signature'] as string), 'signed with the generated secret');
    const mine = notices('/chosen-hook')[0]!;
    assert.ok(verifySignature('my-own-secret-of-24-chars', mine.raw, mine.headers['x-vigil-signature'] as string), 'signed with the chosen secret');
    assert.equal(got.headers['x-vigil-event'], 'incident_opened');
    assert.equal(got.json.event, 'incident_opened');
    assert.equal(got.json.page.id, pageId);
    assert.equal(got.json.incident.id, id);
    assert.equal(got.json.incident.update.message, 'Webhooks hear this started');
    assert.deepEqual(got.json.incident.checks, [{ id: checkId, name: 'API' }]);

    const ended = await rawRequest(server, 'POST', unsubscribe.replace(server.app.config.publicUrl, ''), {}, '');
    assertStatus(ended, 200);
    await postUpdate(id, 'resolved', 'Done.');
    await receiver.waitFor(() => notices('/chosen-hook').length === 2);
    const resolved = notices('/chosen-hook')[1]!;
    assert.equal(resolved.json.event, 'incident_resolved');
    await settled(1);
    assert.equal(notices('/status-hook').length, 1, 'the unsubscribed webhook hears nothing more');
  });
});

describe('scheduled maintenance', () => {
  test('subscribers hear when a window of the page\'s checks starts and when it ends', async () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    const hook = () => notices('/chosen-hook').filter((r) => String(r.json.event).startsWith('maintenance_'));
    const now = Date.now();
    const made = await server.request('POST', '/v1/public/maintenance-windows', {
      key: owner.key, body: { title: 'Database upgrade', checkIds: [checkId], startsAt: iso(now - 60_000), endsAt: iso(now + 3_600_000) },
    });
    assertStatus(made, 201);
    await receiver.waitFor(() => hook().length === 1);
    const started = hook()[0]!.json;
    assert.equal(started.event, 'maintenance_started');
    assert.equal(started.maintenance.title, 'Database upgrade');
    assert.deepEqual(started.maintenance.checks, [{ id: checkId, name: 'API' }]);
    assert.equal(started.maintenance.startsAt, iso(now - 60_000));
    assert.equal(started.maintenance.endsAt, iso(now + 3_600_000));

    const ended = await server.request('PATCH', `/v1/public/maintenance-windows/${made.body.data.id}`, { key: owner.key, body: { endsAt: iso(Date.now()) } });
    assertStatus(ended, 200);
    await receiver.waitFor(() => hook().length === 2);
    assert.equal(hook()[1]!.json.event, 'maintenance_ended');
    assert.equal(hook()[1]!.headers['x-vigil-event'], 'maintenance_ended');
  });
});

describe('the form refuses abuse', () => {
  test('bad addresses and header injection are a 400 page', async () => {
    const client = newClient();
    for (const email of ['', 'not-an-address', 'a@b', 'reader@example.com\r\nBcc: victim@example.com', 'reader@example.com\nSubject: spam', '"quoted"@example.com', 'two@@example.com']) {
      const res = await form({ kind: 'email', email }, client);
      assert.equal(res.status, 400, email);
      assert.match(res.text, /email must be an email address/);
    }
    assert.equal((await form({ kind: 'pigeon' }, newClient())).status, 400);
    assert.equal((await form({ kind: 'webhook', url: 'ftp://example.com/' }, newClient())).status, 400);
    assert.equal((await form({ kind: 'webhook', url: receiver.url('/x'), secret: 'short' }, newClient())).status, 400);
    assert.equal((await form({ kind: 'webhook', url: receiver.url('/x'), secret: `${'s'.repeat(20)}\r\nX: y` }, newClient())).status, 400);
    assert.equal((await form({ kind: 'email', email: 'x@example.com' }, newClient(), 'no-such-page')).status, 404);
  });

  test('per-client and per-address rate limits answer 429 with Retry-After', async () => {
    for (const slug of ['flood', 'again']) {
      assertStatus(await server.request('POST', '/v1/public/status-pages', { key: owner.key, body: { slug, title: slug, checkIds: [] } }), 201);
    }
    const client = newClient();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await form({ kind: 'email', email: `flood${i}@example.com` }, client, 'flood')).status);
    assert.deepEqual(statuses.slice(0, 10).every((s) => s !== 429), true);
    assert.equal(statuses[10], 429, 'the 11th attempt from one client in 10 minutes');
    const limited = await form({ kind: 'email', email: 'other@example.com' }, client, 'flood');
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);

    const same: number[] = [];
    for (let i = 0; i < 4; i++) same.push((await form({ kind: 'email', email: 'again@example.com' }, newClient(), 'again')).status);
    assert.deepEqual(same, [200, 200, 200, 429], 'three attempts per address per hour, from any client');
  });

  test('a page holds at most statusPages.maxSubscribers', async () => {
    const page = await server.request('POST', '/v1/public/status-pages', { key: owner.key, body: { slug: 'small', title: 'Small', checkIds: [] } });
    const statuses: number[] = [];
    for (let i = 0; i <= MAX; i++) statuses.push((await form({ kind: 'email', email: `fan${i}@example.com` }, newClient(), 'small')).status);
    assert.deepEqual(statuses, [...Array(MAX).fill(200), 409]);
    const full = await form({ kind: 'email', email: 'late@example.com' }, newClient(), 'small');
    assert.match(full.text, /as many subscribers as it may have/);
    const list = await server.request('GET', `/v1/public/status-pages/${page.body.data.id}/subscribers`, { key: owner.key });
    assert.equal(list.body.meta.pending, MAX);
  });
});

describe('owners list and remove subscribers', () => {
  test('the list with counts; removing one; scopes and restricted keys', async () => {
    const res = await form({ kind: 'webhook', url: receiver.url('/owner-hook?token=secret-in-url') }, newClient());
    assertStatus(res, 202);
    await verified();
    const list = await subscribers();
    const hook = list.data.find((s: { address: string; kind: string }) => s.kind === 'webhook' && s.address === receiver.origin);
    assert.ok(hook, 'webhook URLs are cut to scheme and host');
    assert.ok(!JSON.stringify(list).includes('secret-in-url'));
    assert.equal(hook.confirmed, true);
    const reader = await newKey(server, owner.accountId, { scopes: ['checks:read'] });
    assertStatus(await server.request('GET', `/v1/public/status-pages/${pageId}/subscribers`, { key: reader.key }), 200);
    assertError(await server.request('DELETE', `/v1/public/status-pages/${pageId}/subscribers/${hook.id}`, { key: reader.key }), 403);
    const restricted = await newKey(server, owner.accountId, { scopes: ['checks:read', 'checks:write'], checkIds: [checkId] });
    assertError(await server.request('GET', `/v1/public/status-pages/${pageId}/subscribers`, { key: restricted.key }), 403);
    const stranger = await newAccount(server);
    assertError(await server.request('GET', `/v1/public/status-pages/${pageId}/subscribers`, { key: stranger.key }), 403);
    assertStatus(await server.request('DELETE', `/v1/public/status-pages/${pageId}/subscribers/${hook.id}`, { key: owner.key }), 200);
    assertError(await server.request('DELETE', `/v1/public/status-pages/${pageId}/subscribers/${hook.id}`, { key: owner.key }), 404);
    assert.ok(!(await subscribers()).data.some((s: { id: string }) => s.id === hook.id));
  });
});
