import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import type { ProbeResult, SslInfo } from '../../src/domain/probe-types.js';
import { verifySignature } from '../../src/alerts/signing.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { startReceiver, waitFor, type Received, type Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { startSmtpSink, type SmtpSink } from '../helpers/fixtures/alerts-smtp.js';
import { assertCaTrusted } from '../helpers/fixtures/alerts-tls.js';
import { assertStatus, externalWrite, newAccount, type Actor } from './util.js';
import { createFastCheck, createWebhook, receivedAt, wheelRound } from '../helpers/alerts-e2e.js';

/**
 * The alert pipeline end to end: state machine events -> email settings and webhooks -> the
 * persisted queue -> senders with retries, against a real HTTPS receiver and SMTP sink. Probes
 * are scripted and time is a ManualClock, so every transition is exact.
 */

const DAY = 86_400_000;
const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
const INTERVAL = 3_000;
const answers = new Map<string, () => Partial<ProbeResult>>();
const dispatcher = new ScriptedDispatcher((task) => (answers.get(task.url) ?? (() => ({ ok: true })))(), () => clock.now());
const ALL = ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'];

/** The retry window, shortened from 24 hours so the test moves the clock a few seconds. */
const WINDOW_MS = 10_000;

let srv: TestServer;
let receiver: Receiver;
let sink: SmtpSink;

before(async () => {
  assertCaTrusted();
  receiver = await startReceiver();
  sink = await startSmtpSink();
  srv = await startServer(
    { smtp: { url: sink.url }, plans: { pro: { minCheckIntervalMinutes: 0.05 } }, alerts: { retryBaseMs: 1000, timeoutMs: 1000, retryForHours: WINDOW_MS / 3_600_000 } },
    clock,
    { dispatcher, autoTick: false },
  );
});
after(async () => {
  await srv.stop();
  await receiver.close();
  await sink.close();
});

/** One round of the wheel at the clock's time, then everything queued sent. */
const round = (advance = INTERVAL) => wheelRound(srv, clock, advance);
const at = (prefix: string): Received[] => receivedAt(receiver, prefix);

async function account(): Promise<Actor> {
  return newAccount(srv, { tier: 'pro', scopes: ALL });
}
const webhook = (a: Actor, body: Record<string, unknown>) => createWebhook(srv, a.key, body);
const check = (a: Actor, url: string, extra: Record<string, unknown> = {}) => createFastCheck(srv, a.key, url, { name: 'Shop', ...extra });
const statusOf = async (a: Actor, id: string) => (await srv.request('GET', `/v1/public/checks/${id}`, { key: a.key })).body.data.status as string;

describe('a check going down and up', () => {
  const target = 'http://127.0.0.1:1/shop';
  let a: Actor;
  let checkId: string;

  before(async () => {
    a = await account();
    assertStatus(await srv.request('PATCH', '/v1/public/alerts/email', { key: a.key, body: { recipients: ['oncall@example.com'] } }), 200);
    await webhook(a, { url: receiver.url('/t1/generic'), secret: 'k3y' });
    for (const type of ['slack', 'discord', 'teams', 'pumble']) await webhook(a, { url: receiver.url(`/t1/${type}`), webhookType: type });
    await webhook(a, { url: receiver.url('/t1/pd/v2/enqueue?routing_key=RK'), webhookType: 'pagerduty' });
    await webhook(a, { url: receiver.url('/t1/og/v2/alerts?apiKey=GK'), webhookType: 'opsgenie' });
    await webhook(a, { url: receiver.url('/t1/po/1/messages.json?token=APP&user=USR'), webhookType: 'pushover' });
    checkId = await check(a, target);
  });

  test('website_down then website_up, once each, on every channel', async () => {
    await round(0);
    assert.equal(await statusOf(a, checkId), 'up');
    assert.equal(at('/t1/').length, 0, 'pending -> up is not an alert');

    answers.set(target, () => ({ ok: false, statusCode: 503, error: 'Expected status 200, got 503' }));
    await round();
    assert.equal(await statusOf(a, checkId), 'down');
    await receiver.waitFor(() => at('/t1/').length === 8);
    await sink.waitFor(1);

    answers.delete(target);
    await round();
    await receiver.waitFor(() => at('/t1/').length === 16);
    await sink.waitFor(2);
    for (let i = 0; i < 3; i++) await round();
    assert.equal(at('/t1/').length, 16, 'a stable check sends nothing more');
    assert.equal(sink.mails.filter((m) => m.to.includes('oncall@example.com')).length, 2);

    const generic = at('/t1/generic');
    assert.deepEqual(generic.map((r) => r.headers['x-vigil-event']), ['website_down', 'website_up']);
    assert.notEqual(generic[0]!.headers['x-vigil-delivery'], generic[1]!.headers['x-vigil-delivery']);
    for (const r of generic) assert.ok(verifySignature('k3y', r.raw, String(r.headers['x-vigil-signature'])));
    const [down, up] = generic.map((r) => r.json);
    assert.deepEqual(
      { event: down.event, test: down.test, check: down.check, previousStatus: down.previousStatus },
      { event: 'website_down', test: false, check: { id: checkId, name: 'Shop', url: target, type: 'website', status: 'down' }, previousStatus: 'up' },
    );
    assert.deepEqual(down.details, {
      statusCode: 503, responseTime: null, error: 'Expected status 200, got 503', region: 'vps-eu-1',
      regions: { primary: 'vps-eu-1', peer: null, regionsTotal: 1, regionsDown: 1, confirmedDown: false },
    });
    assert.equal(down.timestamp, new Date(clock.now() - 4 * INTERVAL).toISOString());
    assert.deepEqual([up.event, up.previousStatus, up.check.status, up.details.responseTime], ['website_up', 'down', 'up', 42]);
  });

  test('each vendor got its own format', () => {
    const [slackDown] = at('/t1/slack').map((r) => r.json);
    assert.match(slackDown.text, /Shop is down/);
    const [discordDown] = at('/t1/discord').map((r) => r.json);
    assert.equal(discordDown.embeds[0].title, 'Shop is down');
    const [teamsDown] = at('/t1/teams').map((r) => r.json);
    assert.equal(teamsDown.attachments[0].content.body[0].text, 'Shop is down');
    assert.match(at('/t1/pumble')[1]!.json.text, /Shop is up again/);

    const pd = at('/t1/pd');
    assert.deepEqual(pd.map((r) => r.path), ['/t1/pd/v2/enqueue', '/t1/pd/v2/enqueue'], 'the routing key left the URL');
    assert.deepEqual(pd.map((r) => [r.json.event_action, r.json.routing_key]), [['trigger', 'RK'], ['resolve', 'RK']]);
    assert.equal(pd[0]!.json.dedup_key, `vigil-${checkId}`);
    assert.equal(pd[1]!.json.dedup_key, pd[0]!.json.dedup_key);

    const og = at('/t1/og');
    assert.deepEqual(og.map((r) => r.path), ['/t1/og/v2/alerts', `/t1/og/v2/alerts/vigil-${checkId}/close?identifierType=alias`]);
    assert.ok(og.every((r) => r.headers.authorization === 'GenieKey GK'));
    assert.equal(og[0]!.json.alias, `vigil-${checkId}`);

    const po = at('/t1/po');
    assert.deepEqual(po.map((r) => [r.path, r.json.token, r.json.user, r.json.priority]), [
      ['/t1/po/1/messages.json', 'APP', 'USR', 1],
      ['/t1/po/1/messages.json', 'APP', 'USR', 0],
    ]);
  });

  test('the email alerts read well in html and text', () => {
    const [down, up] = sink.mails.filter((m) => m.to.includes('oncall@example.com'));
    assert.equal(down!.subject, '[Vigil ALERT] Shop is down');
    assert.equal(up!.subject, '[Vigil RESOLVED] Shop is up again');
    assert.match(down!.html!, /<h1[^>]*>Shop is down<\/h1>/);
    assert.match(down!.html!, /Expected status 200, got 503/);
    assert.match(down!.text!, /^Shop is down\n/);
    assert.match(down!.text!, /URL: +http:\/\/127\.0\.0\.1:1\/shop/);
    assert.match(up!.text!, /It answers again \(42 ms\)/);
  });

  test('every delivery is recorded as delivered', async () => {
    const rows = await srv.app.alerts.repos.deliveries.forCheck(checkId);
    assert.equal(rows.length, 18);
    assert.ok(rows.every((r) => r.status === 'delivered' && r.attempts === 1));
  });
});

describe('text email format', () => {
  test('an account that chose text gets text-only alert mails', async () => {
    const a = await account();
    await srv.request('PATCH', '/v1/public/alerts/email', { key: a.key, body: { recipients: ['plain@example.com'], emailFormat: 'text' } });
    const target = 'http://127.0.0.1:1/plain';
    await check(a, target);
    await round(0);
    answers.set(target, () => ({ ok: false }));
    await round();
    answers.delete(target);
    const mine = () => sink.mails.filter((m) => m.to.includes('plain@example.com'));
    await waitFor(() => mine().length === 1);
    assert.equal(mine()[0]!.html, null);
    assert.match(mine()[0]!.contentType, /^text\/plain/);
    assert.match(mine()[0]!.text!, /Shop is down/);
    await round();
  });
});

describe('suppression', () => {
  test('no alert in maintenance (and the status holds)', async () => {
    const a = await account();
    await webhook(a, { url: receiver.url('/t2/maint') });
    const target = 'http://127.0.0.1:1/maint';
    const id = await check(a, target);
    await round(0);
    assertStatus(await srv.request('POST', `/v1/public/checks/${id}/maintenance`, { key: a.key, body: { enabled: true } }), 200);
    answers.set(target, () => ({ ok: false }));
    for (let i = 0; i < 3; i++) await round();
    assert.equal(await statusOf(a, id), 'up');
    assert.equal(at('/t2/').length, 0);
    answers.delete(target);
  });

  test('no alert on any channel for an unclaimed account; monitoring goes on', async () => {
    const a = await account();
    await srv.request('PATCH', '/v1/public/alerts/email', { key: a.key, body: { recipients: ['unclaimed@example.com'] } });
    await webhook(a, { url: receiver.url('/t3/unclaimed') });
    const target = 'http://127.0.0.1:1/unclaimed';
    const id = await check(a, target);
    await round(0);
    await externalWrite(srv, 'UPDATE accounts SET claimed = 0 WHERE id = ?', a.accountId);
    answers.set(target, () => ({ ok: false }));
    await round();
    assert.equal(await statusOf(a, id), 'down');
    assert.equal(at('/t3/').length, 0);
    assert.equal(sink.mails.filter((m) => m.to.includes('unclaimed@example.com')).length, 0);
    assert.equal((await srv.app.alerts.repos.deliveries.forCheck(id)).length, 0, 'nothing queued either');
    answers.delete(target);
  });
});

describe('retries', () => {
  test('retried with backoff until the window ends, one delivery id; a 4xx other than 408 and 429 is final', async () => {
    const a = await account();
    await webhook(a, { url: receiver.url('/t4/flaky') });
    await webhook(a, { url: receiver.url('/t4/broken') });
    await webhook(a, { url: receiver.url('/t4/gone') });
    let flaky = 0;
    receiver.respond = (r) =>
      r.path === '/t4/broken' ? 500 : r.path === '/t4/gone' ? 410 : r.path === '/t4/flaky' ? (++flaky <= 2 ? (flaky === 1 ? 503 : 429) : 200) : 200;
    const target = 'http://127.0.0.1:1/retry';
    const id = await check(a, target);
    await round(0);
    answers.set(target, () => ({ ok: false }));
    await round();
    await receiver.waitFor(() => at('/t4/').length === 3);
    await round(499);
    assert.equal(at('/t4/').length, 3, 'the first retry waits at least half of retryBaseMs');
    // Past the whole window, a second at a time: each retry falls due on the way.
    for (let t = 0; t <= WINDOW_MS; t += 500) {
      clock.advance(500);
      srv.app.alerts.sender.wake();
      await srv.app.alerts.idle();
    }
    const broken = at('/t4/broken').length;
    clock.advance(3_600_000);
    srv.app.alerts.sender.wake();
    await srv.app.alerts.idle();
    receiver.respond = () => 200;
    assert.equal(at('/t4/flaky').length, 3, '503, 429, then delivered');
    assert.equal(at('/t4/gone').length, 1, '410 is final');
    assert.ok(broken >= 4, `a receiver failing with 500 is retried through the window (${broken} attempts)`);
    assert.equal(at('/t4/broken').length, broken, 'nothing after the window');
    assert.equal(new Set(at('/t4/flaky').map((r) => r.headers['x-vigil-delivery'])).size, 1, 'a retry is the same delivery');
    const rows = await srv.app.alerts.repos.deliveries.forCheck(id);
    assert.deepEqual(rows.map((r) => [r.status, r.attempts, r.lastStatus]).sort(), [['delivered', 3, 200], ['failed', 1, 410], ['failed', broken, 500]]);
    answers.delete(target);
    await round();
  });
});

describe('deleting a webhook', () => {
  test('cancels its pending deliveries; the other webhooks still get theirs', async () => {
    const a = await account();
    const doomed = await webhook(a, { url: receiver.url('/t8/doomed') });
    await webhook(a, { url: receiver.url('/t8/kept') });
    receiver.respond = (r) => (r.path === '/t8/doomed' ? 503 : 200);
    const target = 'http://127.0.0.1:1/cancel';
    const id = await check(a, target);
    await round(0);
    answers.set(target, () => ({ ok: false }));
    await round();
    await receiver.waitFor(() => at('/t8/').length === 2);
    assertStatus(await srv.request('DELETE', `/v1/public/alerts/webhooks/${doomed}`, { key: a.key }), 200);
    receiver.respond = () => 200;
    clock.advance(60_000);
    srv.app.alerts.sender.wake();
    await srv.app.alerts.idle();
    assert.equal(at('/t8/doomed').length, 1, 'no retry after the delete');
    const rows = await srv.app.alerts.repos.deliveries.forCheck(id);
    assert.deepEqual(rows.map((r) => r.status).sort(), ['cancelled', 'delivered']);
    answers.delete(target);
    await round();
  });
});

describe('deliveries never block probing', () => {
  test('a receiver that never answers holds up neither probes nor other deliveries', async () => {
    const a = await account();
    await webhook(a, { url: receiver.url('/t5/hang') });
    await webhook(a, { url: receiver.url('/t5/fast') });
    receiver.respond = (r) => (r.path === '/t5/hang' ? 'hang' : 200);
    const target = 'http://127.0.0.1:1/nonblocking';
    const id = await check(a, target);
    await round(0);
    answers.set(target, () => ({ ok: false }));
    clock.advance(INTERVAL);
    srv.app.engine.tick();
    await receiver.waitFor(() => at('/t5/fast').length === 1);
    answers.delete(target);
    clock.advance(INTERVAL);
    srv.app.engine.tick();
    await srv.app.engine.idle();
    assert.equal(await statusOf(a, id), 'up', 'the next probe ran and was recorded while the hung delivery is in flight');
    await receiver.waitFor(() => at('/t5/fast').length === 2);
    assert.deepEqual(at('/t5/fast').map((r) => r.headers['x-vigil-event']), ['website_down', 'website_up']);
    receiver.respond = () => 200;
    await srv.app.alerts.idle();
  });
});

describe('heartbeats', () => {
  test('a missed heartbeat alerts through the same pipeline; the ping token stays out of the payload', async () => {
    const a = await account();
    await webhook(a, { url: receiver.url('/t6/hb') });
    const res = await srv.request('POST', '/v1/public/checks', { key: a.key, body: { type: 'heartbeat', checkFrequency: 1, name: 'Nightly job' } });
    assertStatus(res, 201);
    const id = res.body.data.id as string;
    const pingUrl = (await srv.request('GET', `/v1/public/checks/${id}`, { key: a.key })).body.data.url as string;
    const token = pingUrl.split('/').pop()!;
    assert.equal((await fetch(srv.url + new URL(pingUrl).pathname)).status, 200);
    await round(61_000);
    await receiver.waitFor(() => at('/t6/').length === 1);
    const [down] = at('/t6/');
    assert.equal(down!.json.event, 'website_down');
    assert.equal(down!.json.check.type, 'heartbeat');
    assert.equal(down!.json.details.error, 'No ping within 1 min');
    assert.ok(!down!.raw.includes(token), 'the ping token is a credential');
    assert.equal((await fetch(srv.url + new URL(pingUrl).pathname)).status, 200);
    await receiver.waitFor(() => at('/t6/').length === 2);
    assert.equal(at('/t6/')[1]!.json.event, 'website_up');
  });
});

describe('certificate events', () => {
  const target = 'https://127.0.0.1:1/tls';
  const cert = (fingerprint: string, validTo: number, valid = true): SslInfo => ({
    valid, error: valid ? null : 'self-signed certificate', issuer: 'CN=Test CA', subject: 'CN=shop', validFrom: new Date(clock.now() - 80 * DAY).toISOString(),
    validTo: new Date(validTo).toISOString(), serialNumber: '01', fingerprint,
  });

  test('ssl_warning 14 days before expiry and ssl_error: once per certificate and threshold, not per probe', async () => {
    const a = await account();
    await webhook(a, { url: receiver.url('/t7/ssl'), events: ['ssl_warning', 'ssl_error'] });
    let ssl = cert('AA', clock.now() + 30 * DAY);
    answers.set(target, () => ({ ssl }));
    await check(a, target);
    await round(0);
    await round();
    assert.equal(at('/t7/').length, 0, 'a month left: nothing');
    ssl = cert('AA', clock.now() + 10 * DAY + 60_000);
    for (let i = 0; i < 4; i++) await round();
    await receiver.waitFor(() => at('/t7/').length === 1);
    ssl = cert('BB', clock.now() + 12 * DAY);
    for (let i = 0; i < 3; i++) await round();
    await receiver.waitFor(() => at('/t7/').length === 2);
    ssl = cert('BB', clock.now() - 1000);
    for (let i = 0; i < 3; i++) await round();
    await receiver.waitFor(() => at('/t7/').length === 3);
    ssl = cert('CC', clock.now() + 300 * DAY, false);
    for (let i = 0; i < 3; i++) await round();
    await receiver.waitFor(() => at('/t7/').length === 4);
    for (let i = 0; i < 3; i++) await round();
    const seen = at('/t7/').map((r) => r.json);
    assert.deepEqual(seen.map((j) => j.event), ['ssl_warning', 'ssl_warning', 'ssl_error', 'ssl_error']);
    assert.match(seen[0].details.error, /^Certificate expires in 10 days/);
    assert.match(seen[3].details.error, /self-signed certificate/);
    answers.delete(target);
  });
});
