import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { waitFor } from '../helpers/fixtures/probe-task.js';
import { assertError, assertStatus, KEY_PATTERN, newAccount, newKey, rawRequest } from './util.js';

/**
 * What the dashboard's status-page, key and list pages read (issue 23 item 7): the keys API,
 * the beat bars' recent results, `degraded` in the list rows, and "last checked" as the latest
 * probe in the list and on status pages. Probes are scripted on a manual clock.
 */
describe('dashboard pages: keys API, beats, degraded, last checked', { timeout: 60_000 }, () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 30));
  let answer: { ok: boolean; responseTime?: number } = { ok: true };
  const dispatcher = new ScriptedDispatcher(() => answer, () => clock.now());
  let srv: TestServer;

  before(async () => {
    srv = await startServer({ plans: { pro: { minCheckIntervalMinutes: 0.05 } } }, clock, { dispatcher, autoTick: false });
  });
  after(() => srv.stop());

  const create = async (body: Record<string, unknown>) => {
    const res = await srv.request('POST', '/v1/public/checks', {
      body: { checkFrequency: 0.05, downConfirmationAttempts: 1, immediateRecheckEnabled: false, ...body },
    });
    assertStatus(res, 201);
    return res.body.data.id as string;
  };
  /** One probe of every due check, at the clock's time: waits until its result is recorded and written. */
  const probe = async (id: string, next: typeof answer) => {
    answer = next;
    clock.advance(3_000);
    srv.app.engine.tick();
    await waitFor(() => srv.app.services.monitoring.lastProbe(id)?.at === clock.now(), 'the probe result');
    await srv.app.recorder.idle();
  };
  const row = async (id: string) => (await srv.request('GET', '/v1/public/checks/summary')).body.data.find((r: { id: string }) => r.id === id);

  describe('the keys API', () => {
    test('the admin key lists the account’s keys, never a secret, and knows which one it is', async () => {
      const res = await srv.request('GET', '/v1/public/keys');
      assertStatus(res, 200);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const admin = res.body.data.find((k: { current: boolean }) => k.current);
      assert.equal(admin.name, 'admin');
      assert.equal(admin.status, 'active');
      assert.equal(admin.access, null);
      assert.equal(res.body.meta.total, res.body.data.length);
      assert.ok(!res.text.includes('vigil_live_'), 'no secret in the list');
    });

    test('a key created with scopes and a restriction works at once, within them; its secret is shown once', async () => {
      const docs = await create({ url: 'http://127.0.0.1:9/docs', name: 'Docs' });
      const other = await create({ url: 'http://127.0.0.1:9/other', name: 'Other' });
      const res = await srv.request('POST', '/v1/public/keys', {
        body: { name: 'docs reader', scopes: ['checks:read'], checkIds: [docs], expiresAt: new Date(clock.now() + 86_400_000).toISOString() },
      });
      assertStatus(res, 201);
      const made = res.body.data;
      assert.match(made.key, KEY_PATTERN);
      assert.deepEqual(made.scopes, ['checks:read']);
      assert.deepEqual(made.access, { checkIds: [docs], folders: [] });
      assert.equal(made.status, 'active');
      assert.equal(made.current, false);

      const seen = await srv.request('GET', '/v1/public/checks', { key: made.key });
      assertStatus(seen, 200);
      assert.deepEqual(seen.body.data.map((c: { id: string }) => c.id), [docs]);
      assertError(await srv.request('GET', `/v1/public/checks/${other}`, { key: made.key }), 403);
      assertError(await srv.request('POST', `/v1/public/checks/${docs}/toggle`, { key: made.key, body: { disabled: true } }), 403);

      const listed = await srv.request('GET', '/v1/public/keys');
      assert.ok(!listed.text.includes(made.key), 'the secret is never shown again');
      assert.equal(listed.body.data.find((k: { id: string }) => k.id === made.id).name, 'docs reader');
    });

    test('bad input is a 400 naming the field; nothing is created', async () => {
      const before = (await srv.request('GET', '/v1/public/keys')).body.meta.total;
      assertError(await srv.request('POST', '/v1/public/keys', { body: { scopes: ['checks:everything'] } }), 400);
      assertError(await srv.request('POST', '/v1/public/keys', { body: { checkIds: ['chk_nope'] } }), 400, /chk_nope/);
      assertError(await srv.request('POST', '/v1/public/keys', { body: { expiresAt: '2020-01-01T00:00:00Z' } }), 400, /future/);
      assertError(await srv.request('POST', '/v1/public/keys', { body: { expiresAt: 'tomorrow' } }), 400, /ISO 8601/);
      assertError(await srv.request('POST', '/v1/public/keys', { body: { checkIds: [] } }), 400);
      assert.equal((await srv.request('GET', '/v1/public/keys')).body.meta.total, before);
    });

    test('only a credential with every scope, unrestricted, manages keys', async () => {
      const accountId = (await srv.app.services.accounts.accounts.findAccount('admin@localhost')).id;
      const writer = await newKey(srv, accountId, { scopes: ['checks:read', 'checks:write', 'checks:delete'] });
      assertError(await srv.request('GET', '/v1/public/keys', { key: writer.key }), 403, /every scope/);
      assertError(await srv.request('POST', '/v1/public/keys', { key: writer.key, body: { scopes: ['checks:read'] } }), 403);
      assertError(await srv.request('DELETE', `/v1/public/keys/${writer.id}`, { key: writer.key }), 403);
      const docs = (await srv.request('GET', '/v1/public/checks')).body.data[0].id;
      const restricted = await newKey(srv, accountId, { scopes: ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'], checkIds: [docs] });
      assertError(await srv.request('GET', '/v1/public/keys', { key: restricted.key }), 403);
      assertError(await srv.request('GET', '/v1/public/keys', { key: null }), 401);
    });

    test('a revoked key is refused at once; revoking again changes nothing; other accounts’ keys are not ours', async () => {
      const made = (await srv.request('POST', '/v1/public/keys', { body: { name: 'short-lived' } })).body.data;
      assertStatus(await srv.request('GET', '/v1/public/checks', { key: made.key }), 200);
      assertStatus(await srv.request('DELETE', `/v1/public/keys/${made.id}`), 204);
      assertError(await srv.request('GET', '/v1/public/checks', { key: made.key }), 401, /revoked/);
      assertStatus(await srv.request('DELETE', `/v1/public/keys/${made.id}`), 204);
      assert.equal((await srv.request('GET', '/v1/public/keys')).body.data.find((k: { id: string }) => k.id === made.id).status, 'revoked');
      assertError(await srv.request('DELETE', '/v1/public/keys/key_nope'), 404);
      const stranger = await newAccount(srv, { tier: 'pro', scopes: ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'] });
      assertError(await srv.request('DELETE', `/v1/public/keys/${made.id}`, { key: stranger.key }), 403);
      assert.ok(!(await srv.request('GET', '/v1/public/keys', { key: stranger.key })).body.data.some((k: { id: string }) => k.id === made.id));
    });

    test('the plan’s key allowance is kept', async () => {
      const free = await newAccount(srv, { tier: 'free', scopes: ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'] });
      assertError(await srv.request('POST', '/v1/public/keys', { key: free.key, body: {} }), 409, /revoke one first/);
    });

    test('the keys and beats endpoints are in the OpenAPI document', async () => {
      const doc = (await srv.request('GET', '/v1/openapi.json', { key: null })).body;
      for (const path of ['/v1/public/keys', '/v1/public/keys/{id}', '/v1/public/checks/beats']) assert.ok(doc.paths[path], path);
    });
  });

  describe('the list rows', () => {
    test('beats: the latest results of the checks asked for, oldest first; unknown and hidden ids left out', async () => {
      const id = await create({ url: 'http://127.0.0.1:9/beats', name: 'beats' });
      await probe(id, { ok: true });
      const first = clock.now();
      await probe(id, { ok: false });
      await probe(id, { ok: true });
      const res = await srv.request('GET', `/v1/public/checks/beats?ids=${id},chk_unknown&limit=10`);
      assertStatus(res, 200);
      assert.equal(res.body.data.length, 1);
      const beats = res.body.data[0];
      assert.equal(beats.id, id);
      assert.deepEqual(beats.status, ['up', 'down', 'up']);
      assert.deepEqual(beats.responseTime, [42, null, 42]);
      assert.deepEqual(beats.at, [first, first + 3_000, first + 6_000]);
      const two = await srv.request('GET', `/v1/public/checks/beats?ids=${id}&limit=2`);
      assert.deepEqual(two.body.data[0].status, ['down', 'up'], 'the newest ones');

      const stranger = await newAccount(srv, { tier: 'pro' });
      assert.deepEqual((await srv.request('GET', `/v1/public/checks/beats?ids=${id}`, { key: stranger.key })).body.data, []);
      const many = Array.from({ length: 101 }, (_, i) => `chk_${i}`).join(',');
      assertError(await srv.request('GET', `/v1/public/checks/beats?ids=${many}`), 400, /100/);
      assertError(await srv.request('GET', '/v1/public/checks/beats'), 400);
    });

    test('a check slower than responseTimeLimit is degraded in its row as on the status endpoint, and back', async () => {
      const id = await create({ url: 'http://127.0.0.1:9/slow', name: 'slow', responseTimeLimit: 500 });
      await probe(id, { ok: true, responseTime: 120 });
      assert.equal((await row(id)).degraded, false);
      await probe(id, { ok: true, responseTime: 900 });
      const status = (await srv.request('GET', '/v1/public/checks/status')).body.data.find((c: { id: string }) => c.id === id);
      assert.equal(status.status, 'degraded');
      const slow = await row(id);
      assert.equal(slow.status, 'up');
      assert.equal(slow.degraded, true);
      assert.equal(slow.lastResponseTime, 900);
      await probe(id, { ok: true, responseTime: 100 });
      assert.equal((await row(id)).degraded, false);
    });

    test('becoming slow is pushed to open dashboards like a status change', async () => {
      const id = await create({ url: 'http://127.0.0.1:9/slow-live', name: 'slow live', responseTimeLimit: 500 });
      await probe(id, { ok: true, responseTime: 100 });
      const pushed: unknown[] = [];
      const stop = srv.app.statusFeed.subscribe((change) => {
        if (change.checkId === id) pushed.push(change.type);
      });
      try {
        await probe(id, { ok: true, responseTime: 900 });
        await waitFor(() => pushed.includes('degraded'), 'a degraded change');
        await probe(id, { ok: true, responseTime: 950 });
        await probe(id, { ok: true, responseTime: 100 });
        await waitFor(() => pushed.filter((t) => t === 'degraded').length === 2, 'the change back');
      } finally {
        stop();
      }
    });

    test('"last checked" is the latest probe, in the list and on status pages, not the last status change', async () => {
      const id = await create({ url: 'http://127.0.0.1:9/steady', name: 'steady' });
      await probe(id, { ok: true });
      const wentUp = clock.now();
      await probe(id, { ok: true });
      await probe(id, { ok: true });
      const latest = clock.now();
      const detail = (await srv.request('GET', `/v1/public/checks/${id}`)).body.data;
      assert.equal(detail.lastChecked, new Date(wentUp).toISOString(), 'the record syncs on status changes (spec 2.2)');
      assert.equal(detail.lastProbe.at, new Date(latest).toISOString());
      assert.equal((await row(id)).lastChecked, new Date(latest).toISOString());

      assertStatus(await srv.request('POST', '/v1/public/status-pages', { body: { slug: 'steady', title: 'Steady', checkIds: [id] } }), 201);
      const json = await rawRequest(srv, 'GET', '/status/steady.json', {});
      assert.equal(json.body.checks[0].lastChecked, new Date(latest).toISOString());
      assert.equal(json.body.checks[0].responseTime, 42);
    });
  });
});
