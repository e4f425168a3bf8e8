import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { verifySignature } from '../../src/alerts/signing.js';
import { ManualClock } from '../../src/domain/clock.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { startReceiver, type Received, type Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { assertCaTrusted } from '../helpers/fixtures/alerts-tls.js';
import { until } from '../helpers/until.js';
import { assertError, assertStatus, createCheck, newAccount, NO_PROBES, rawRequest, type Actor } from './util.js';

/**
 * Issue 34, item 2, as an attacker tries it: anonymous visitors of a public status page
 * subscribing webhooks. Two real servers on loopback and a real local HTTPS receiver: `strict`
 * runs the defaults (loopback, private and link-local targets refused at subscribe time and at
 * connect time), `open` sets statusPages.subscriberWebhooks.allowPrivateTargets (so its receiver
 * on 127.0.0.1 is reachable) and runs on a manual clock, to see pending subscriptions expire.
 * Clients are told apart by X-Forwarded-For (server.trustProxy).
 */
const HOUR = 3_600_000;
let receiver: Receiver;
let strict: TestServer;
let open: TestServer;
const clock = new ManualClock(Date.now());
let clients = 0;

/** How each path of the receiver answers a verification; anything else gets 200 `{"ok":true}`. */
const hanging = new Set<string>();
const echo = new Map<string, (challenge: string) => { status: number; body: string; headers?: Record<string, string> }>();

before(async () => {
  assertCaTrusted();
  receiver = await startReceiver();
  receiver.respond = (r) => {
    if (hanging.has(r.path)) return 'hang';
    const answer = r.json?.type === 'subscription.verify' ? echo.get(r.path) : undefined;
    return answer ? answer(r.json.challenge as string) : 200;
  };
  const common = { server: { trustProxy: true }, alerts: { retryBaseMs: 50 } };
  strict = await startServer(common, undefined, NO_PROBES);
  // A verification waits alerts.timeoutMs for its answer: short here, for the receiver that never answers.
  open = await startServer({ ...common, alerts: { ...common.alerts, timeoutMs: 1_500 }, statusPages: { subscriberWebhooks: { allowPrivateTargets: true } } }, clock, NO_PROBES);
});

after(async () => {
  await strict?.stop();
  await open?.stop();
  await receiver?.close();
});

interface Page { server: TestServer; owner: Actor; id: string; slug: string; checkId: string }

async function newPage(server: TestServer, slug: string, fields: Record<string, unknown> = { webhookSubscriptions: true }): Promise<Page> {
  const owner = await newAccount(server, { tier: 'pro' });
  const checkId = await createCheck(server, { url: 'https://api.example.com', name: 'API' }, owner.key);
  const res = await server.request('POST', '/v1/public/status-pages', { key: owner.key, body: { slug, title: slug, checkIds: [checkId], ...fields } });
  assertStatus(res, 201);
  return { server, owner, id: res.body.data.id, slug, checkId };
}

const subscribe = (page: Page, fields: Record<string, string>) =>
  rawRequest(page.server, 'POST', `/status/${page.slug}/subscribe`, {
    'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `198.51.100.${++clients}`,
  }, new URLSearchParams(fields).toString());
const subscribers = async (page: Page) =>
  (await page.server.request('GET', `/v1/public/status-pages/${page.id}/subscribers?limit=100`, { key: page.owner.key })).body;
const openIncident = async (page: Page, title: string) =>
  assertStatus(await page.server.request('POST', `/v1/public/status-pages/${page.id}/incidents`, { key: page.owner.key, body: { title, message: title, checkIds: [page.checkId] } }), 201);
const at = (path: string) => receiver.received.filter((r) => r.path === path);
const verifications = (path: string) => at(path).filter((r) => r.json?.type === 'subscription.verify');
const notices = (path: string) => at(path).filter((r) => r.json?.event !== undefined);
const secretIn = (html: string) => /<code id="secret">([0-9a-f]{64})<\/code>/.exec(html)?.[1];
/** A fresh receiver path per subscription: the per-URL limit is 3 an hour. */
const path = (name: string) => `/${name}-${randomBytes(4).toString('hex')}`;

describe('strict (the defaults): no subscriber webhook reaches inside', () => {
  let page: Page;
  before(async () => {
    page = await newPage(strict, 'strict-page');
  });

  test('an anonymous subscriber aiming at loopback, private or link-local addresses is refused and nothing is sent', async () => {
    const targets = [
      receiver.url(path('inward')),
      `https://localhost:${receiver.port}/inward`,
      `https://[::1]:${receiver.port}/inward`,
      'https://10.0.0.7/hook',
      'https://192.168.1.1/hook',
      'https://169.254.169.254/latest/meta-data/',
    ];
    for (const url of targets) {
      const res = await subscribe(page, { kind: 'webhook', url });
      assert.equal(res.status, 400, url);
      assert.match(res.text, /status page subscriber webhooks may not reach \(statusPages\.subscriberWebhooks\.allowPrivateTargets\)/, url);
    }
    assert.deepEqual((await subscribers(page)).meta, { page: 1, limit: 100, email: 0, webhook: 0, pending: 0 }, 'nothing was stored');
    assert.equal(receiver.received.filter((r) => r.path.startsWith('/inward')).length, 0, 'nothing was sent');
  });

  test('a subscriber already stored with a private target (from before) is refused at connect time: the receiver hears nothing', async () => {
    // As a webhook subscribed before issue 34 was stored: confirmed, pointing at loopback.
    const target = path('stored');
    await strict.app.store.subscribers.add({
      id: `sub_${randomBytes(8).toString('hex')}`, pageId: page.id, kind: 'webhook', address: receiver.url(target), secret: 'a-secret-of-enough-length',
      token: randomBytes(32).toString('hex'), confirmedAt: Date.now(), createdAt: Date.now(),
    }, 100, { email: 0, webhook: 0 });
    await openIncident(page, 'Reaching inside');
    const deliveries = () => strict.app.store.alerts.deliveries.forCheck(page.id);
    await until('the delivery attempted and refused', async () => (await deliveries()).some((d) => d.attempts >= 1 && d.lastError !== null) || undefined, 150);
    const [delivery] = await deliveries();
    assert.match(delivery!.lastError!, /private address/);
    assert.equal(delivery!.lastStatus, null, 'no receiver answered');
    assert.equal(at(target).length, 0, 'the loopback receiver got nothing');
  });

  test('a page takes webhook subscriptions only when its owner turns them on; email always', async () => {
    const off = await newPage(strict, 'strict-off', {});
    assert.equal((await strict.request('GET', `/v1/public/status-pages/${off.id}`, { key: off.owner.key })).body.data.webhookSubscriptions, false, 'off by default');
    const refused = await subscribe(off, { kind: 'webhook', url: 'https://hooks.example.com/status' });
    assert.equal(refused.status, 403);
    assert.match(refused.text, /does not take webhook subscriptions/);
    const email = await subscribe(off, { kind: 'email', email: 'reader@example.com' });
    assert.equal(email.status, 200);
    assert.deepEqual((await subscribers(off)).meta, { page: 1, limit: 100, email: 0, webhook: 0, pending: 1 }, 'the email waits for its link; no webhook');
    const html = async (p: Page) => (await rawRequest(strict, 'GET', `/status/${p.slug}`, {})).text;
    assert.doesNotMatch(await html(off), /name="kind" value="webhook"/, 'the form offers no webhook');
    assert.match(await html(page), /name="kind" value="webhook"/);

    const on = await strict.request('PATCH', `/v1/public/status-pages/${off.id}`, { key: off.owner.key, body: { webhookSubscriptions: true } });
    assertStatus(on, 200);
    assert.equal(on.body.data.webhookSubscriptions, true);
    assert.match(await html(off), /name="kind" value="webhook"/, 'the cached page is rendered again with the webhook form');
    assert.equal((await subscribe(off, { kind: 'webhook', url: receiver.url(path('turned-on')) })).status, 400, 'now taken, and refused for its loopback target');
  });

  test('webhookSubscriptions must be a boolean; a bad value changes nothing', async () => {
    for (const value of ['yes', 1, null]) {
      assertError(await strict.request('PATCH', `/v1/public/status-pages/${page.id}`, { key: page.owner.key, body: { webhookSubscriptions: value } }), 400);
      assertError(await strict.request('POST', '/v1/public/status-pages', { key: page.owner.key, body: { slug: 'bad-field', title: 'Bad', webhookSubscriptions: value } }), 400);
    }
    assert.equal((await strict.request('GET', `/v1/public/status-pages/${page.id}`, { key: page.owner.key })).body.data.webhookSubscriptions, true);
    assert.equal((await strict.request('GET', '/v1/public/status-pages/bad-field', { key: page.owner.key })).status, 404);
    const spec = (await strict.request('GET', '/v1/openapi.json')).body;
    assert.equal(JSON.stringify(spec).includes('webhookSubscriptions'), true, 'the OpenAPI document has the field');
  });
});

describe('open (allowPrivateTargets): a webhook is confirmed only when its receiver echoes the signed challenge', () => {
  let page: Page;
  const settled = () => open.app.services.pages.subscriptions.verificationsSettled();
  // The owner's list cuts webhook URLs to scheme and host: the store tells the receiver's paths apart.
  const byPath = async (p: string) =>
    (await open.app.store.subscribers.list(page.id, { limit: 100, offset: 0 })).filter((s) => s.address === receiver.url(p)).map((s) => ({ id: s.id, confirmed: s.confirmedAt !== null }));
  const confirmedCount = async () => (await subscribers(page)).meta.webhook as number;
  const silent = { plain: path('silent'), hang: path('hang'), wrong: path('wrong'), error: path('error'), jsonWrong: path('json-wrong') };
  const good = { plain: path('echo-plain'), json: path('echo-json') };
  const secrets = new Map<string, string>();

  before(async () => {
    page = await newPage(open, 'open-page');
    hanging.add(silent.hang);
    echo.set(silent.wrong, () => ({ status: 200, body: 'not-the-challenge', headers: { 'content-type': 'text/plain' } }));
    echo.set(silent.error, (c) => ({ status: 500, body: c, headers: { 'content-type': 'text/plain' } }));
    echo.set(silent.jsonWrong, (c) => ({ status: 200, body: JSON.stringify({ challenge: `${c}x` }) }));
    echo.set(good.plain, (c) => ({ status: 200, body: `${c}\n`, headers: { 'content-type': 'text/plain' } }));
    echo.set(good.json, (c) => ({ status: 200, body: JSON.stringify({ challenge: c }) }));
  });

  test('the subscribe call answers 202: pending, the secret and the way out shown once; only the signed verification is sent', async () => {
    for (const p of [...Object.values(silent), ...Object.values(good)]) {
      const res = await subscribe(page, { kind: 'webhook', url: receiver.url(p) });
      assert.equal(res.status, 202, p);
      assert.match(res.text, /subscription\.verify/);
      secrets.set(p, secretIn(res.text)!);
    }
    await settled();
    for (const p of [...Object.values(silent), ...Object.values(good)]) {
      const [only, ...more] = at(p);
      assert.equal(more.length, 0, `${p}: one request`);
      const req = only as Received;
      assert.equal(req.method, 'POST');
      assert.deepEqual(Object.keys(req.json).sort(), ['challenge', 'type']);
      assert.equal(req.json.type, 'subscription.verify');
      assert.match(req.json.challenge, /^[0-9a-f]{64}$/);
      assert.equal(req.headers['x-vigil-event'], 'subscription.verify');
      assert.ok(verifySignature(secrets.get(p)!, req.raw, req.headers['x-vigil-signature'] as string), `${p}: signed with the subscriber's secret`);
    }
    const challenges = new Set([...secrets.keys()].map((p) => at(p)[0]!.json.challenge));
    assert.equal(challenges.size, secrets.size, 'a challenge per subscription');
  });

  test('a receiver that echoes the challenge (plain text or JSON) is confirmed and hears incidents; one that does not (or never answers), never', async () => {
    for (const p of Object.values(good)) assert.equal((await byPath(p))[0].confirmed, true, p);
    for (const p of Object.values(silent)) assert.equal((await byPath(p))[0].confirmed, false, p);
    assert.equal(await confirmedCount(), 2);
    assert.equal((await subscribers(page)).meta.pending, 5);

    await openIncident(page, 'Heard by the verified');
    await receiver.waitFor(() => notices(good.plain).length === 1 && notices(good.json).length === 1);
    const got = notices(good.json)[0]!;
    assert.equal(got.json.event, 'incident_opened');
    assert.ok(verifySignature(secrets.get(good.json)!, got.raw, got.headers['x-vigil-signature'] as string));
    // Notices for one incident are queued together: the verified ones have theirs, so nobody else got one.
    const deliveries = await open.app.store.alerts.deliveries.forCheck(page.id);
    assert.equal(deliveries.length, 2, 'queued for the two verified webhooks only');
    for (const p of Object.values(silent)) assert.deepEqual(at(p).map((r) => r.json.type), ['subscription.verify'], `${p}: nothing but the verification`);
  });

  test('sending the form again retries a failed verification: the pending subscription is replaced', async () => {
    const p = silent.wrong;
    const before = (await byPath(p))[0];
    const again = await subscribe(page, { kind: 'webhook', url: receiver.url(p) });
    assert.equal(again.status, 202, 'a pending URL is no conflict');
    await settled();
    assert.equal(verifications(p).length, 2, 'a new challenge');
    assert.notEqual(verifications(p)[1]!.json.challenge, verifications(p)[0]!.json.challenge);
    const now = await byPath(p);
    assert.equal(now.length, 1, 'one subscription for the URL');
    assert.notEqual(now[0].id, before.id, 'the new one took its place');
    assert.equal(now[0].confirmed, false, 'still the wrong answer');

    echo.set(p, (c) => ({ status: 200, body: c }));
    assertStatus(await subscribe(page, { kind: 'webhook', url: receiver.url(p) }), 202);
    await settled();
    assert.equal((await byPath(p))[0].confirmed, true, 'the receiver fixed: confirmed');
    assert.equal((await subscribe(page, { kind: 'webhook', url: receiver.url(p) })).status, 429, 'retries count against the 3 attempts a URL has an hour');
  });

  test('an unverified subscription expires after 24 hours (the subscribers-expiry job); confirmed ones stay', async () => {
    const sweep = async () => {
      const runs = () => open.app.jobs.readings().find((r) => r.name === 'subscribers-expiry')!;
      const before = runs().runs;
      open.app.jobs.runNow('subscribers-expiry');
      await until('the sweep ran', () => (runs().runs > before && !runs().running) || undefined, 50);
    };
    const pending = () => subscribers(page).then((b) => b.meta.pending as number);
    const waiting = await pending();
    assert.ok(waiting >= 3, 'the silent ones are still pending');
    clock.advance(24 * HOUR - 60_000);
    await sweep();
    assert.equal(await pending(), waiting, 'not yet');
    clock.advance(2 * 60_000);
    await sweep();
    await sweep();
    assert.equal(await pending(), 0, 'gone, and a second run finds nothing');
    assert.equal(await confirmedCount(), 3, 'verified webhooks stay');
    for (const p of [silent.plain, silent.hang, silent.error, silent.jsonWrong]) assert.deepEqual(await byPath(p), [], p);
    assertStatus(await subscribe(page, { kind: 'webhook', url: receiver.url(silent.error) }), 202);
    await settled();
    assert.equal((await byPath(silent.error)).length, 1, 'an expired URL may subscribe again');
  });
});
