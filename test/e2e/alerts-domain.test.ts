import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ManualClock } from '../../src/domain/clock.js';
import { RdapBootstrap } from '../../src/engine/domains/rdap-bootstrap.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { startReceiver, type Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { startRdapFixture, type RdapFixture } from '../helpers/fixtures/alerts-rdap.js';
import { assertCaTrusted } from '../helpers/fixtures/alerts-tls.js';
import { assertStatus, newAccount, type Actor } from './util.js';

/**
 * Domain expiry (issue 6 item 5): `domain` checks and website domain intelligence over RDAP,
 * against a local RDAP fixture registry (.zz is routed to it through `rdap.servers`).
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;
const ALL = ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'];
const DOMAIN_EVENTS = ['domain_expiring', 'domain_expired', 'domain_renewed'];
const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
const iso = (ms: number) => new Date(ms).toISOString();

let srv: TestServer;
let rdap: RdapFixture;
let receiver: Receiver;

before(async () => {
  assertCaTrusted();
  rdap = await startRdapFixture();
  receiver = await startReceiver();
  srv = await startServer({ rdap: { bootstrapUrl: null, servers: { zz: rdap.base } } }, clock, { dispatcher: new ScriptedDispatcher(), autoTick: false });
});
after(async () => {
  await srv.stop();
  await rdap.close();
  await receiver.close();
});

/** Moves time, lets the wheel fire, and waits for the lookups, their writes and deliveries. */
async function round(advance: number): Promise<void> {
  clock.advance(advance);
  srv.app.engine.tick();
  await srv.app.domains.idle();
  await srv.app.alerts.idle();
}

async function setup(tier: 'free' | 'nano' | 'pro', hookPath: string): Promise<Actor> {
  const a = await newAccount(srv, { tier, scopes: ALL });
  const res = await srv.request('POST', '/v1/public/alerts/webhooks', { key: a.key, body: { name: 'domains', url: receiver.url(hookPath), events: DOMAIN_EVENTS } });
  assertStatus(res, 201);
  return a;
}
async function createCheck(a: Actor, body: Record<string, unknown>): Promise<string> {
  const res = await srv.request('POST', '/v1/public/checks', { key: a.key, body });
  assertStatus(res, 201);
  return res.body.data.id as string;
}
const get = async (a: Actor, id: string) => (await srv.request('GET', `/v1/public/checks/${id}`, { key: a.key })).body.data;
const events = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => r.json);

describe('a domain check', () => {
  test('filled from RDAP, then domain_expiring 30 days before, domain_expired, domain_renewed: once each', async () => {
    const a = await setup('nano', '/d1');
    const expires = clock.now() + 90 * DAY;
    rdap.domains.set('shop.zz', { expiresAt: iso(expires), registrar: 'Fixture Registrar, Inc.', updatedAt: '2025-05-01T10:00:00Z' });
    const id = await createCheck(a, { type: 'domain', url: 'Shop.ZZ' });
    await round(0);
    let check = await get(a, id);
    assert.deepEqual(check.domain, { name: 'shop.zz', registrar: 'Fixture Registrar, Inc.', expiresAt: iso(expires), updatedAt: '2025-05-01T10:00:00.000Z' });
    assert.equal(check.status, 'up');
    assert.deepEqual(events('/d1'), [], 'three months left: nothing to say');

    await round(59 * DAY);
    assert.deepEqual(events('/d1'), [], 'still 31 days');
    await round(DAY);
    assert.deepEqual(events('/d1').map((e) => e.event), ['domain_expiring']);
    const [expiring] = events('/d1');
    assert.equal(expiring.check.id, id);
    assert.equal(expiring.details.error, `Domain shop.zz expires on ${iso(expires).slice(0, 10)}`);
    for (let i = 0; i < 5; i++) await round(DAY);
    assert.equal(events('/d1').length, 1, 'checked daily, alerted once');

    await round(expires - clock.now());
    assert.deepEqual(events('/d1').map((e) => e.event), ['domain_expiring', 'domain_expired']);
    check = await get(a, id);
    assert.equal(check.status, 'down');
    assert.equal(check.lastError, `Domain shop.zz expired on ${iso(expires).slice(0, 10)}`);
    await round(DAY);
    assert.equal(events('/d1').length, 2);

    const renewed = expires + 365 * DAY;
    rdap.domains.set('shop.zz', { expiresAt: iso(renewed), registrar: 'Fixture Registrar, Inc.' });
    await round(DAY);
    assert.deepEqual(events('/d1').map((e) => e.event), ['domain_expiring', 'domain_expired', 'domain_renewed']);
    check = await get(a, id);
    assert.equal(check.status, 'up');
    assert.equal(check.domain.expiresAt, iso(renewed));
    const history = (await srv.request('GET', `/v1/public/checks/${id}/history?limit=100`, { key: a.key })).body.data;
    assert.ok(history.length >= 10, 'each daily lookup is in the history');
    assert.ok(history.some((h: { status: string }) => h.status === 'down'));
  });

  test('a name the registry does not know is recorded and retried; the status stays pending', async () => {
    const a = await setup('nano', '/d2');
    const id = await createCheck(a, { type: 'domain', url: 'missing.zz' });
    await round(0);
    const check = await get(a, id);
    assert.equal(check.status, 'pending');
    const [entry] = (await srv.request('GET', `/v1/public/checks/${id}/history`, { key: a.key })).body.data;
    assert.equal(entry.error, 'missing.zz is not in the registry');
    const before = rdap.lookups.filter((d) => d === 'missing.zz').length;
    await round(HOUR);
    assert.equal(rdap.lookups.filter((d) => d === 'missing.zz').length, before + 1, 'a failed lookup is tried again within the hour');
  });

  test('no domain alert during maintenance; what is still true afterwards alerts then', async () => {
    const a = await setup('nano', '/d3');
    rdap.domains.set('quiet.zz', { expiresAt: iso(clock.now() + 40 * DAY) });
    const id = await createCheck(a, { type: 'domain', url: 'quiet.zz' });
    await round(0);
    assertStatus(await srv.request('POST', `/v1/public/checks/${id}/maintenance`, { key: a.key, body: { enabled: true } }), 200);
    await round(15 * DAY);
    assert.deepEqual(events('/d3'), []);
    assertStatus(await srv.request('POST', `/v1/public/checks/${id}/maintenance`, { key: a.key, body: { enabled: false } }), 200);
    await round(DAY);
    assert.deepEqual(events('/d3').map((e) => e.event), ['domain_expiring']);
  });

  test('below nano a domain check is refused (403)', async () => {
    const a = await newAccount(srv, { tier: 'indie', scopes: ALL });
    const res = await srv.request('POST', '/v1/public/checks', { key: a.key, body: { type: 'domain', url: 'nope.zz' } });
    assert.equal(res.status, 403);
  });
});

describe('domain intelligence for website checks', () => {
  test('on a plan with domainIntel the website check gets its domain within the hour, one lookup per domain', async () => {
    const a = await setup('pro', '/w1');
    rdap.domains.set('site.zz', { expiresAt: iso(clock.now() + 200 * DAY), registrar: 'Site Registrar' });
    const one = await createCheck(a, { url: 'https://www.site.zz/' });
    const two = await createCheck(a, { url: 'https://api.site.zz/health' });
    const before = rdap.lookups.filter((d) => d === 'site.zz').length;
    await round(HOUR);
    for (const id of [one, two]) {
      const check = await get(a, id);
      assert.equal(check.domain.name, 'site.zz');
      assert.equal(check.domain.registrar, 'Site Registrar');
    }
    assert.equal(rdap.lookups.filter((d) => d === 'site.zz').length, before + 1, 'checks on one domain share a lookup');
  });

  test('a plan without domainIntel gets no lookups', async () => {
    const a = await setup('free', '/w2');
    rdap.domains.set('free.zz', { expiresAt: iso(clock.now() + 5 * DAY) });
    const id = await createCheck(a, { url: 'https://free.zz/' });
    await round(HOUR);
    await round(DAY);
    assert.ok(!rdap.lookups.includes('free.zz'));
    assert.equal((await get(a, id)).domain.name, null);
    assert.deepEqual(events('/w2'), []);
  });

  test('a website domain close to expiry alerts like a domain check', async () => {
    const a = await setup('pro', '/w3');
    rdap.domains.set('soon.zz', { expiresAt: iso(clock.now() + 10 * DAY) });
    await createCheck(a, { url: 'https://soon.zz/' });
    await round(HOUR);
    assert.deepEqual(events('/w3').map((e) => [e.event, e.check.type]), [['domain_expiring', 'website']]);
  });

  test("a website has one live entry, the engine's: its domain lookups use it rather than a second one", async () => {
    const a = await setup('pro', '/w4');
    rdap.domains.set('one.zz', { expiresAt: iso(clock.now() + 200 * DAY) });
    const id = await createCheck(a, { url: 'https://one.zz/' });
    const entry = srv.app.liveChecks.get(id);
    assert.ok(entry, 'the engine put its entry in the registry');
    const size = srv.app.liveChecks.size;
    await round(HOUR);
    assert.equal((await get(a, id)).domain.name, 'one.zz');
    assert.equal(srv.app.liveChecks.get(id), entry, 'the lookup recorded on the same entry');
    assert.equal(srv.app.liveChecks.size, size);
  });
});

describe('the IANA bootstrap registry', () => {
  const log = pino({ level: 'silent' });

  test('a refresh from bootstrapUrl replaces the shipped copy', async () => {
    rdap.bootstrap = { version: '1.0', publication: '2026-06-01T00:00:00Z', services: [[['yy'], [rdap.base]]] };
    const b = new RdapBootstrap({ overrides: {}, url: `${rdap.base}dns.json`, timeoutMs: 5000, clock, log });
    assert.equal(b.serverFor('shop.yy'), null);
    await b.refreshIfStale();
    assert.equal(b.serverFor('shop.yy'), rdap.base);
    assert.equal(b.source, '2026-06-01T00:00:00Z');
    const fetches = rdap.bootstrapFetches;
    await b.refreshIfStale();
    assert.equal(rdap.bootstrapFetches, fetches, 'at most once a day');
  });

  test('a failed refresh fails soft: the copy already loaded stays', async () => {
    rdap.bootstrap = null;
    const b = new RdapBootstrap({ overrides: {}, url: `${rdap.base}dns.json`, timeoutMs: 5000, clock, log });
    await b.refreshIfStale();
    assert.equal(b.source, 'shipped');
    assert.equal(b.serverFor('example.com'), 'https://rdap.verisign.com/com/v1/');
    const unreachable = new RdapBootstrap({ overrides: {}, url: 'http://127.0.0.1:1/dns.json', timeoutMs: 5000, clock, log });
    await unreachable.refreshIfStale();
    assert.equal(unreachable.serverFor('example.net'), 'https://rdap.verisign.com/net/v1/');
  });
});

describe('across a restart', () => {
  test('what was alerted stays alerted; the daily round resumes from the last lookup', async () => {
    const local = new ManualClock(clock.now());
    const overrides = { rdap: { bootstrapUrl: null, servers: { zz: rdap.base } } };
    const first = await startServer(overrides, local, { dispatcher: new ScriptedDispatcher(), autoTick: false });
    const a = await newAccount(first, { tier: 'nano', scopes: ALL });
    assertStatus(await first.request('POST', '/v1/public/alerts/webhooks', { key: a.key, body: { name: 'd', url: receiver.url('/r1'), events: DOMAIN_EVENTS } }), 201);
    rdap.domains.set('again.zz', { expiresAt: iso(local.now() + 10 * DAY) });
    assertStatus(await first.request('POST', '/v1/public/checks', { key: a.key, body: { type: 'domain', url: 'again.zz' } }), 201);
    const step = async (s: TestServer, ms: number) => {
      local.advance(ms);
      s.app.engine.tick();
      await s.app.domains.idle();
      await s.app.alerts.idle();
    };
    await step(first, 0);
    assert.deepEqual(events('/r1').map((e) => e.event), ['domain_expiring']);
    await first.stop(true);
    const lookups = rdap.lookups.filter((d) => d === 'again.zz').length;

    const second = await startServer(overrides, local, { dispatcher: new ScriptedDispatcher(), autoTick: false, dataDir: first.dataDir });
    try {
      await step(second, HOUR);
      assert.equal(rdap.lookups.filter((d) => d === 'again.zz').length, lookups, 'not due again before a day has passed');
      await step(second, DAY);
      assert.equal(rdap.lookups.filter((d) => d === 'again.zz').length, lookups + 1);
      assert.deepEqual(events('/r1').map((e) => e.event), ['domain_expiring'], 'no second domain_expiring after the restart');
    } finally {
      await second.stop();
    }
  });
});

describe('a domain check in the statistics', () => {
  test('its 90-day statistics (rollups) agree with its raw history, lookup by lookup', async () => {
    const a = await setup('nano', '/d9');
    rdap.domains.set('stats.zz', { expiresAt: iso(clock.now() + 400 * DAY) });
    const id = await createCheck(a, { type: 'domain', url: 'stats.zz' });
    const from = clock.now();
    await round(0);
    // Daily lookups for 95 days; the registry forgets the name on every seventh day (a failed lookup, retried within the hour).
    for (let day = 1; day <= 95; day++) {
      if (day % 7 === 0) rdap.domains.delete('stats.zz');
      await round(DAY);
      if (day % 7 === 0) {
        rdap.domains.set('stats.zz', { expiresAt: iso(clock.now() + 400 * DAY) });
        await round(HOUR);
      }
    }
    // Half an hour after the last lookup: no lookup sits on a window's edge.
    clock.advance(HOUR / 2);
    const to = clock.now();
    const history: Array<{ type: string; status: string; createdAt: string }> = [];
    for (let page = 1; ; page++) {
      const res = await srv.request('GET', `/v1/public/checks/${id}/history?limit=100&page=${page}&from=${iso(to - 90 * DAY)}&to=${iso(to)}`, { key: a.key });
      history.push(...res.body.data.filter((h: { type: string }) => h.type === 'probe'));
      if (res.body.data.length < 100) break;
    }
    const up = history.filter((h) => h.status === 'up').length;
    const down = history.filter((h) => h.status === 'down').length;
    assert.ok(down >= 12 && up >= 80, `lookups of both outcomes in the window (${up} up, ${down} down)`);
    assert.ok(from < to - 90 * DAY, 'the window is inside the check\'s life');

    const single = (await srv.request('GET', `/v1/public/checks/${id}/stats?from=${iso(to - 90 * DAY)}&to=${iso(to)}`, { key: a.key })).body.data;
    assert.deepEqual(
      { total: single.uptime.totalChecks, ok: single.uptime.successfulChecks, failed: single.uptime.failedChecks },
      { total: up + down, ok: up, failed: down },
    );
    const multi = (await srv.request('GET', `/v1/public/checks/${id}/stats?ranges=90d&to=${iso(to)}`, { key: a.key })).body.data;
    assert.deepEqual({ online: multi['90d'].onlineChecks, offline: multi['90d'].offlineChecks }, { online: up, offline: down });
    // Short ranges are read from raw history: they agree with the long one's edges.
    const day = (await srv.request('GET', `/v1/public/checks/${id}/stats?from=${iso(to - DAY)}&to=${iso(to)}`, { key: a.key })).body.data;
    const lastDay = history.filter((h) => Date.parse(h.createdAt) >= to - DAY).length;
    assert.equal(day.uptime.totalChecks, lastDay);
  });
});
