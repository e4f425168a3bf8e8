import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AlertEvent } from '../../src/domain/events.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { ProbeResult } from '../../src/domain/probe-types.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { startReceiver, waitFor, type Received, type Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { startSmtpSink, type SmtpSink } from '../helpers/fixtures/alerts-smtp.js';
import { assertCaTrusted } from '../helpers/fixtures/alerts-tls.js';
import { assertError, assertStatus, newAccount, newKey, type Actor } from './util.js';
import { createFastCheck, createWebhook, receivedAt, wheelRound } from '../helpers/alerts-e2e.js';

/**
 * Issue 17 end to end against a real server on loopback: retries that outlast an outage (in
 * order, once each, across a restart), the delivery log and its retry, per-check routing,
 * reminders, and plain-http receivers. Time is a ManualClock; probes are scripted.
 */

const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
const INTERVAL = 3_000;
const MINUTE = 60_000;
const answers = new Map<string, () => Partial<ProbeResult>>();
const dispatcher = () => new ScriptedDispatcher((task) => (answers.get(task.url) ?? (() => ({ ok: true })))(), () => clock.now());
const ALL = ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'];
const OVERRIDES = { plans: { pro: { minCheckIntervalMinutes: 0.05 } }, alerts: { retryBaseMs: 1000, timeoutMs: 1000 } };
const DELIVERIES = '/v1/public/alerts/deliveries';

let srv: TestServer;
let receiver: Receiver;
let sink: SmtpSink;
const servers: TestServer[] = [];

before(async () => {
  assertCaTrusted();
  receiver = await startReceiver();
  sink = await startSmtpSink();
  srv = await startServer({ ...OVERRIDES, smtp: { url: sink.url } }, clock, { dispatcher: dispatcher(), autoTick: false });
  servers.push(srv);
});
after(async () => {
  for (const s of servers) await s.app.stop().catch(() => {});
  await receiver.close();
  await sink.close();
  for (const s of servers) rmSync(s.dataDir, { recursive: true, force: true });
});

const round = (advance = INTERVAL) => wheelRound(srv, clock, advance);
const at = (prefix: string): Received[] => receivedAt(receiver, prefix);
const account = async (): Promise<Actor> => (await newAccount(srv, { tier: 'pro', scopes: ALL }));
const webhook = (a: Actor, body: Record<string, unknown>, server = srv) => createWebhook(server, a.key, body);
const check = (a: Actor, url: string, extra: Record<string, unknown> = {}, server = srv) => createFastCheck(server, a.key, url, extra);
const REGIONS = { primary: 'vps-eu-1', peer: null, regionsTotal: 1, regionsDown: 1, confirmedDown: false };
/** A transition handed to the event sink, as the state machine raises it. */
function transition(type: 'website_down' | 'website_up', at: number): AlertEvent {
  const down = type === 'website_down';
  return {
    type, at, previousStatus: down ? 'up' : 'down', status: down ? 'down' : 'up', error: down ? 'Expected status 200, got 500' : null,
    statusCode: down ? 500 : 200, responseTime: down ? null : 12, regions: REGIONS, ssl: null,
  };
}

describe('retries that outlast an outage', () => {
  test('a receiver down for a while (and a restart meanwhile): every alert arrives once, in order per target and check', async () => {
    const probe = await startReceiver();
    const port = probe.port;
    await probe.close(); // nothing listens: every attempt gets "connection refused"
    const first = await startServer(OVERRIDES, clock, { dispatcher: dispatcher(), autoTick: false });
    servers.push(first);
    const a = await newAccount(first, { tier: 'pro', scopes: ALL });
    for (const n of [1, 2]) await webhook(a, { url: `https://127.0.0.1:${port}/outage/${n}` }, first);
    const checks = [await check(a, 'http://127.0.0.1:1/o1', {}, first), await check(a, 'http://127.0.0.1:1/o2', {}, first)];
    // Each check flaps three times: down, up, down, up, down, up, one ms apart.
    const t0 = clock.now();
    for (let i = 0; i < 6; i++) {
      for (const id of checks) first.app.alerts.handle({ id, accountId: a.accountId }, transition(i % 2 === 0 ? 'website_down' : 'website_up', t0 + i));
    }
    await first.app.alerts.idle();
    // Ten minutes of outage: heads of line retried with backoff, the rest wait behind them.
    for (let i = 0; i < 20; i++) {
      clock.advance(30_000);
      first.app.alerts.sender.wake();
      await first.app.alerts.idle();
    }
    const counts = await first.app.alerts.repos.deliveries.countByStatus();
    assert.equal(counts.pending + counts.sending, 24, 'nothing lost, nothing failed');
    const log = await first.request('GET', `${DELIVERIES}?status=pending&limit=100`, { key: a.key });
    assertStatus(log, 200);
    const heads = log.body.data.filter((d: { attempts: number }) => d.attempts > 0);
    assert.equal(heads.length, 4, 'only the head of each target and check line was tried');
    for (const d of heads) {
      assert.equal(d.lastError, 'connection refused');
      assert.ok(d.nextAttemptAt > clock.now(), 'its next attempt is scheduled');
    }
    await first.stop(true);

    const back = await startReceiver(port);
    try {
      const second = await startServer(OVERRIDES, clock, { dispatcher: dispatcher(), autoTick: false, dataDir: first.dataDir });
      servers.push(second);
      // Retries due within the backoff ceiling: move past it and let everything drain.
      for (let i = 0; i < 10 && back.received.length < 24; i++) {
        clock.advance(5 * MINUTE);
        second.app.alerts.sender.wake();
        await second.app.alerts.idle();
      }
      await back.waitFor(() => back.received.length >= 24);
      await second.app.alerts.idle();
      assert.equal(back.received.length, 24, 'every alert once');
      assert.equal(new Set(back.received.map((r) => r.headers['x-vigil-delivery'])).size, 24, 'none twice');
      for (const n of [1, 2]) {
        for (const id of checks) {
          const seen = back.received.filter((r) => r.path === `/outage/${n}` && r.json.check.id === id).map((r) => Date.parse(r.json.timestamp) - t0);
          assert.deepEqual(seen, [0, 1, 2, 3, 4, 5], `target ${n}, check ${id}: in the order raised`);
        }
      }
      assert.deepEqual((await second.app.alerts.repos.deliveries.countByStatus()), { pending: 0, sending: 0, delivered: 24, failed: 0, cancelled: 0 });
      await second.stop(true);
    } finally {
      await back.close();
    }
  });

  test("a receiver's Retry-After sets the next attempt; the log shows the answer", async () => {
    const a = await account();
    const hook = await webhook(a, { url: receiver.url('/retry-after/x') });
    receiver.respond = (r) => (r.path.startsWith('/retry-after/') ? { status: 429, headers: { 'retry-after': '120' } } : 200);
    const id = await check(a, 'http://127.0.0.1:1/ra');
    srv.app.alerts.handle({ id, accountId: a.accountId }, transition('website_down', clock.now()));
    await receiver.waitFor(() => at('/retry-after/').length === 1);
    await srv.app.alerts.idle();
    const log = await srv.request('GET', `${DELIVERIES}?webhookId=${hook}`, { key: a.key });
    assertStatus(log, 200);
    const [d] = log.body.data;
    assert.equal(d.status, 'pending');
    assert.equal(d.lastStatus, 429);
    assert.equal(d.nextAttemptAt, clock.now() + 120_000);
    receiver.respond = () => 200;
    clock.advance(120_000);
    srv.app.alerts.sender.wake();
    await receiver.waitFor(() => at('/retry-after/').length === 2);
    await srv.app.alerts.idle();
  });
});

describe('delivery log', () => {
  test('filters, cursor pagination, URLs cut; a failed delivery retried on request', async () => {
    const a = await account();
    const good = await webhook(a, { url: receiver.url('/log/good/s3cr3t-path') });
    const bad = await webhook(a, { url: receiver.url('/log/bad/s3cr3t-path') });
    receiver.respond = (r) => (r.path.startsWith('/log/bad/') ? 404 : 200);
    const c1 = await check(a, 'http://127.0.0.1:1/l1');
    const c2 = await check(a, 'http://127.0.0.1:1/l2');
    for (const id of [c1, c2, c1]) srv.app.alerts.handle({ id, accountId: a.accountId }, transition('website_down', clock.now()));
    await receiver.waitFor(() => at('/log/').length === 6);
    await srv.app.alerts.idle();

    const all = await srv.request('GET', `${DELIVERIES}?includeTotal=true`, { key: a.key });
    assertStatus(all, 200);
    assert.equal(all.body.meta.total, 6);
    assert.ok(!all.text.includes('s3cr3t'), 'no URL path, let alone a secret, in the log');
    const entry = all.body.data.find((d: { webhookId: string }) => d.webhookId === good);
    assert.deepEqual(Object.keys(entry).sort(), [
      'attempts', 'channel', 'checkId', 'createdAt', 'event', 'finishedAt', 'id', 'lastError', 'lastStatus', 'nextAttemptAt',
      'reminder', 'retryUntil', 'status', 'target', 'webhookId',
    ]);
    assert.equal(entry.target, receiver.origin);
    assert.deepEqual([entry.status, entry.attempts, entry.lastStatus, entry.nextAttemptAt, entry.event, entry.reminder], ['delivered', 1, 200, null, 'website_down', false]);

    const failed = await srv.request('GET', `${DELIVERIES}?status=failed`, { key: a.key });
    assert.equal(failed.body.data.length, 3);
    assert.ok(failed.body.data.every((d: { webhookId: string; lastStatus: number; lastError: string }) => d.webhookId === bad && d.lastStatus === 404 && d.lastError === 'receiver answered 404'));
    assert.equal((await srv.request('GET', `${DELIVERIES}?checkId=${c1}`, { key: a.key })).body.data.length, 4);
    assert.equal((await srv.request('GET', `${DELIVERIES}?checkId=${c1}&webhookId=${good}&status=delivered`, { key: a.key })).body.data.length, 2);

    // Newest first, two at a time, by cursor: every delivery exactly once.
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 5; i++) {
      const page: Awaited<ReturnType<typeof srv.request>> = await srv.request('GET', `${DELIVERIES}?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key: a.key });
      assertStatus(page, 200);
      seen.push(...page.body.data.map((d: { id: string }) => d.id));
      cursor = page.body.meta.cursor;
      if (!cursor) break;
    }
    assert.deepEqual(seen, all.body.data.map((d: { id: string }) => d.id));

    const target = failed.body.data[0];
    receiver.respond = () => 200;
    const retried = await srv.request('POST', `${DELIVERIES}/${target.id}/retry`, { key: a.key });
    assertStatus(retried, 200);
    assert.equal(retried.body.data.status, 'pending');
    assert.equal(retried.body.data.retryUntil, clock.now() + 24 * 3_600_000);
    await receiver.waitFor(() => at('/log/bad/').length === 4);
    await srv.app.alerts.idle();
    const after = (await srv.request('GET', `${DELIVERIES}?status=delivered&webhookId=${bad}`, { key: a.key })).body.data;
    assert.deepEqual(after.map((d: { id: string; attempts: number }) => [d.id, d.attempts]), [[target.id, 2]]);

    assertError(await srv.request('POST', `${DELIVERIES}/${target.id}/retry`, { key: a.key }), 409, /Only a failed delivery/);
    assertError(await srv.request('POST', `${DELIVERIES}/dlv_00000000000000000000/retry`, { key: a.key }), 404);
    assertError(await srv.request('POST', `${DELIVERIES}/nope/retry`, { key: a.key }), 400, /Invalid delivery id/);
    assertError(await srv.request('GET', `${DELIVERIES}?status=lost`, { key: a.key }), 400);
    assertError(await srv.request('GET', `${DELIVERIES}?webhookId=bogus`, { key: a.key }), 400, /Invalid webhookId/);
    assertError(await srv.request('GET', `${DELIVERIES}?cursor=garbage`, { key: a.key }), 400, /cursor/);
    const other = await account();
    assertError(await srv.request('POST', `${DELIVERIES}/${target.id}/retry`, { key: other.key }), 403);
    assert.equal((await srv.request('GET', DELIVERIES, { key: other.key })).body.data.length, 0, "another account's log is its own");
    const readOnly = await newKey(srv, a.accountId, { scopes: ['alerts:read'] });
    assertError(await srv.request('POST', `${DELIVERIES}/${target.id}/retry`, { key: readOnly.key }), 403, /alerts:write/);
  });

  test('a restricted key sees and retries only the deliveries of checks in its reach', async () => {
    const a = await account();
    await webhook(a, { url: receiver.url('/reach/x') });
    receiver.respond = (r) => (r.path.startsWith('/reach/') ? 404 : 200);
    const mine = await check(a, 'http://127.0.0.1:1/r1', { folder: 'team' });
    const theirs = await check(a, 'http://127.0.0.1:1/r2');
    for (const id of [mine, theirs]) srv.app.alerts.handle({ id, accountId: a.accountId }, transition('website_down', clock.now()));
    await receiver.waitFor(() => at('/reach/').length === 2);
    await srv.app.alerts.idle();
    receiver.respond = () => 200;
    const restricted = await newKey(srv, a.accountId, { scopes: ALL, folders: ['team'] });
    const log = await srv.request('GET', DELIVERIES, { key: restricted.key });
    assertStatus(log, 200);
    assert.deepEqual(log.body.data.map((d: { checkId: string }) => d.checkId), [mine]);
    const all = (await srv.request('GET', DELIVERIES, { key: a.key })).body.data as Array<{ id: string; checkId: string }>;
    const outside = all.find((d) => d.checkId === theirs)!;
    assertError(await srv.request('POST', `${DELIVERIES}/${outside.id}/retry`, { key: restricted.key }), 403);
    const retry = (key: string, id: string) => srv.request('POST', `${DELIVERIES}/${id}/retry`, { key, headers: { 'Idempotency-Key': `retry-${id}` } });
    const first = await retry(restricted.key, log.body.data[0].id);
    assertStatus(first, 200);
    assert.deepEqual((await retry(restricted.key, log.body.data[0].id)).body, first.body, 'a replay answers the same');
    // The account's full key retries the other one under the same kind of key; the restricted key's replay of it is refused.
    assertStatus(await retry(a.key, outside.id), 200);
    assertError(await retry(restricted.key, outside.id), 403);
    // The spec's alert settings endpoints stay unrestricted-only (spec §5.6).
    assertError(await srv.request('PATCH', '/v1/public/alerts/email', { key: restricted.key, body: { recipients: ['x@example.com'] } }), 403);
  });
});

describe('per-check routing', () => {
  test('an event goes to the webhooks and email whose checkIds or folders match it; no route means every check', async () => {
    const a = await account();
    const c1 = await check(a, 'http://127.0.0.1:1/route1');
    const c2 = await check(a, 'http://127.0.0.1:1/route2', { folder: 'prod' });
    const c3 = await check(a, 'http://127.0.0.1:1/route3', { folder: 'staging' });
    await webhook(a, { url: receiver.url('/route/byid'), checkIds: [c1] });
    await webhook(a, { url: receiver.url('/route/byfolder'), folders: ['prod'] });
    await webhook(a, { url: receiver.url('/route/both'), checkIds: [c3], folders: ['prod'] });
    await webhook(a, { url: receiver.url('/route/all') });
    const email = await srv.request('PATCH', '/v1/public/alerts/email', { key: a.key, body: { recipients: ['route@example.com'], checkIds: [c2] } });
    assertStatus(email, 200);
    assert.deepEqual([email.body.data.checkIds, email.body.data.folders], [[c2], []]);
    const mailsBefore = sink.mails.length;
    for (const id of [c1, c2, c3]) srv.app.alerts.handle({ id, accountId: a.accountId }, transition('website_down', clock.now()));
    await receiver.waitFor(() => at('/route/').length === 7);
    await srv.app.alerts.idle();
    const heard = (path: string) => at(path).map((r) => r.json.check.id).sort();
    assert.deepEqual(heard('/route/byid'), [c1]);
    assert.deepEqual(heard('/route/byfolder'), [c2]);
    assert.deepEqual(heard('/route/both'), [c2, c3].sort());
    assert.deepEqual(heard('/route/all'), [c1, c2, c3].sort());
    await waitFor(() => sink.mails.length === mailsBefore + 1);
    assert.match(sink.mails.at(-1)!.subject, /is down/);
    assert.deepEqual(sink.mails.at(-1)!.to, ['route@example.com']);
    const list = await srv.request('GET', '/v1/public/alerts/webhooks', { key: a.key });
    assert.deepEqual(list.body.data.map((w: { checkIds: string[]; folders: string[] }) => [w.checkIds, w.folders]), [[[c1], []], [[], ['prod']], [[c3], ['prod']], [[], []]]);
  });

  test('restricted keys may only route within their reach (service layer, which every adapter goes through)', async () => {
    const a = await account();
    const inside = await check(a, 'http://127.0.0.1:1/in', { folder: 'team' });
    const outside = await check(a, 'http://127.0.0.1:1/out');
    const acc = (await srv.app.store.accounts.byId(a.accountId))!;
    const access = { checkIds: [], folders: ['team'] };
    const hooks = srv.app.alerts.webhooks;
    await assert.rejects(hooks.create(acc, { url: receiver.url('/r/1'), name: 'x', checkIds: [outside] }, access), /not allowed to route alerts of check/);
    await assert.rejects(hooks.create(acc, { url: receiver.url('/r/2'), name: 'x', folders: ['other'] }, access), /not allowed to route alerts of folder/);
    await assert.rejects(hooks.create(acc, { url: receiver.url('/r/3'), name: 'x' }, access), /give checkIds or folders within its reach/);
    const ok = await hooks.create(acc, { url: receiver.url('/r/4'), name: 'x', checkIds: [inside], folders: ['team'] }, access);
    assert.deepEqual([ok.checkIds, ok.folders], [[inside], ['team']]);
    await assert.rejects(async () => srv.app.alerts.email.update(a.accountId, { recipients: ['r@example.com'], checkIds: [outside] }, access), /not allowed/);
    const other = await account();
    const foreign = await check(other, 'http://127.0.0.1:1/foreign');
    assertError(await srv.request('POST', '/v1/public/alerts/webhooks', { key: a.key, body: { name: 'x', url: receiver.url('/r/5'), checkIds: [foreign] } }), 400, /names no check of this account/);
  });
});

describe('reminders', () => {
  test('while a check stays down, website_down again every remindEveryMinutes, marked as a reminder; none after recovery, pause or maintenance', async () => {
    const a = await account();
    const hook = await webhook(a, { url: receiver.url('/remind/generic'), remindEveryMinutes: 5 });
    await webhook(a, { url: receiver.url('/remind/slack'), webhookType: 'slack', remindEveryMinutes: 10 });
    await webhook(a, { url: receiver.url('/remind/never') });
    const patch = await srv.request('PATCH', '/v1/public/alerts/email', { key: a.key, body: { recipients: ['remind@example.com'], remindEveryMinutes: 5 } });
    assert.equal(patch.body.data.remindEveryMinutes, 5);
    const target = 'http://127.0.0.1:1/remind';
    const id = await check(a, target);
    await round(0);
    answers.set(target, () => ({ ok: false }));
    await round();
    await receiver.waitFor(() => at('/remind/').length === 3);
    const mails = () => sink.mails.filter((m) => m.to.includes('remind@example.com'));
    await waitFor(() => mails().length === 1);

    const sweep = async (advance: number) => {
      clock.advance(advance);
      await srv.app.alerts.reminders.sweep();
      await srv.app.alerts.idle();
    };
    await sweep(4 * MINUTE);
    assert.equal(at('/remind/').length, 3, 'not before the interval');
    await sweep(MINUTE);
    await receiver.waitFor(() => at('/remind/generic').length === 2);
    const reminder = at('/remind/generic')[1]!;
    assert.equal(reminder.json.event, 'website_down');
    assert.equal(reminder.json.reminder, true);
    assert.equal(reminder.headers['x-vigil-reminder'], 'true');
    assert.equal(at('/remind/generic')[0]!.json.reminder, undefined, 'the first alert keeps the documented shape');
    await waitFor(() => mails().length === 2);
    assert.match(mails()[1]!.subject, /Reminder: .* is still down/);
    await sweep(5 * MINUTE);
    await receiver.waitFor(() => at('/remind/generic').length === 3 && at('/remind/slack').length === 2);
    assert.match(JSON.stringify(at('/remind/slack')[1]!.json), /Reminder: .* is still down/);
    assert.equal(at('/remind/never').length, 1, 'no reminders unless asked for');
    const log = await srv.request('GET', `${DELIVERIES}?webhookId=${hook}`, { key: a.key });
    assert.deepEqual(log.body.data.map((d: { reminder: boolean }) => d.reminder), [true, true, false]);

    // Maintenance silences them; so does a pause; recovery ends them.
    assertStatus(await srv.request('POST', `/v1/public/checks/${id}/maintenance`, { key: a.key, body: { enabled: true } }), 200);
    await sweep(10 * MINUTE);
    assert.equal(at('/remind/generic').length, 3, 'none in maintenance');
    assertStatus(await srv.request('POST', `/v1/public/checks/${id}/maintenance`, { key: a.key, body: { enabled: false } }), 200);
    assertStatus(await srv.request('POST', `/v1/public/checks/${id}/toggle`, { key: a.key, body: { disabled: true } }), 200);
    await sweep(10 * MINUTE);
    assert.equal(at('/remind/generic').length, 3, 'none while paused');
    assertStatus(await srv.request('POST', `/v1/public/checks/${id}/toggle`, { key: a.key, body: { disabled: false } }), 200);
    answers.delete(target);
    await round();
    await round();
    await sweep(30 * MINUTE);
    assert.ok(at('/remind/generic').every((r) => r.json.event === 'website_up' || r.json.check.id === id));
    const afterUp = at('/remind/generic').length;
    await sweep(30 * MINUTE);
    assert.equal(at('/remind/generic').length, afterUp, 'none after recovery');
  });
});

describe('plain-http receivers', () => {
  test('alerts.allowHttpWebhooks lets an http:// webhook be created and delivered to', async () => {
    const got: Array<{ path: string; body: string }> = [];
    const plain: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        got.push({ path: req.url ?? '', body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (plain.address() as AddressInfo).port;
      const open = await startServer({ ...OVERRIDES, alerts: { ...OVERRIDES.alerts, allowHttpWebhooks: true } }, clock, { dispatcher: dispatcher(), autoTick: false });
      servers.push(open);
      const a = await newAccount(open, { tier: 'pro', scopes: ALL });
      const res = await open.request('POST', '/v1/public/alerts/webhooks', { key: a.key, body: { name: 'lan', url: `http://127.0.0.1:${port}/lan/hook` } });
      assertStatus(res, 201);
      assert.equal(res.body.data.url, `http://127.0.0.1:${port}`);
      const test = await open.request('POST', `/v1/public/alerts/webhooks/${res.body.data.id}/test`, { key: a.key });
      assertStatus(test, 200);
      assert.equal(test.body.data.status, 204);
      assert.equal(got[0]!.path, '/lan/hook');
      assert.equal(JSON.parse(got[0]!.body).test, true);
      assertError(await open.request('POST', '/v1/public/alerts/webhooks', { key: a.key, body: { name: 'ftp', url: 'ftp://127.0.0.1/x' } }), 400, /https URL or an http URL/);
      await open.stop(true);
    } finally {
      await new Promise<void>((r) => plain.close(() => r()));
    }
    const strict = await account();
    assertError(
      await srv.request('POST', '/v1/public/alerts/webhooks', { key: strict.key, body: { name: 'lan', url: 'http://127.0.0.1:9/x' } }),
      400,
      'url must be an https URL; to allow plain http receivers (on a private network), set alerts.allowHttpWebhooks to true in the server config',
    );
  });
});
