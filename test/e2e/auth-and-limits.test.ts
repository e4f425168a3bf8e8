import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import { startServer, type TestResponse, type TestServer } from '../helpers/server.js';
import { assert401, assertError, assertStatus, createCheck, newAccount, newKey, NO_PROBES, type Actor } from './util.js';

/** Authentication, scopes, restricted keys, the account endpoint and rate limits (spec 2.7, 5, 7, 8; decisions §2, §7). */

let server: TestServer;
const clock = new ManualClock(Date.UTC(2026, 4, 1, 8, 0, 0));
const UPGRADE_URL = 'https://billing.example.com/upgrade';
const ALL_SCOPES = ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'];

before(async () => {
  server = await startServer(
    {
      billing: { upgradeUrl: UPGRADE_URL },
      plans: { pro: { maxChecks: 777, maxWebhooks: 44 } },
    },
    clock,
    NO_PROBES,
  );
});
after(async () => {
  await server.stop();
});
beforeEach(() => clock.advance(61_000));

describe('401 with WWW-Authenticate', () => {
  const wellFormedUnknown = `vigil_live_${'ab'.repeat(32)}`;
  const cases: Array<[string, Record<string, string>]> = [
    ['no credential', {}],
    ['malformed X-Api-Key', { 'x-api-key': 'not-a-key' }],
    ['X-Api-Key with the svc_ prefix', { 'x-api-key': `svc_live_${'ab'.repeat(32)}` }],
    ['X-Api-Key one hex short', { 'x-api-key': `vigil_live_${'a'.repeat(63)}` }],
    ['X-Api-Key with upper-case hex', { 'x-api-key': `vigil_live_${'AB'.repeat(32)}` }],
    ['well-formed unknown X-Api-Key', { 'x-api-key': wellFormedUnknown }],
    ['empty X-Api-Key', { 'x-api-key': '' }],
    ['unknown Bearer token', { authorization: 'Bearer vigil_at_doesnotexist' }],
    ['Basic authorization', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['Bearer without a token', { authorization: 'Bearer ' }],
  ];
  for (const [what, headers] of cases) {
    test(what, async () => {
      for (const [method, path, body] of [
        ['GET', '/v1/public/checks', undefined],
        ['GET', '/v1/public/account', undefined],
        ['POST', '/v1/public/checks', { url: 'https://unauth.example.com' }],
        ['GET', '/v1/public/checks/chk_00000000000000000000', undefined],
      ] as const) {
        const res = await server.request(method, path, { key: null, headers, body });
        assert401(res);
      }
    });
  }

  test('an unknown route is 404 even without a credential', async () => {
    assertError(await server.request('GET', '/v1/public/nothing-here', { key: null }), 404);
  });

  test('authentication comes before body validation', async () => {
    const res = await server.request('POST', '/v1/public/checks', { key: null, rawBody: '{broken', headers: { 'content-type': 'application/json' } });
    assert401(res);
  });

  test('a key expires at its expiresAt', async () => {
    const actor = await newAccount(server, { tier: 'pro', expiresAt: new Date(clock.now() + 60 * 60_000).toISOString() });
    assertStatus(await server.request('GET', '/v1/public/account', { key: actor.key }), 200);
    clock.advance(60 * 60_000 + 1_000);
    assert401(await server.request('GET', '/v1/public/account', { key: actor.key }));
    assert401(await server.request('GET', '/v1/public/checks', { key: actor.key }));
  });
});

describe('an API key sent as Authorization: Bearer', () => {
  const bearer = (key: string) => ({ key: null, headers: { authorization: `Bearer ${key}` } });

  test('is the same principal as X-Api-Key: scopes, restriction, account and writes', async () => {
    const owner = await newAccount(server, { tier: 'pro', scopes: ALL_SCOPES });
    const inOps = await createCheck(server, { url: 'https://ops.bearer.example.com', folder: 'ops' }, owner.key);
    const outside = await createCheck(server, { url: 'https://other.bearer.example.com' }, owner.key);
    const ops = await newKey(server, owner.accountId, { scopes: ['checks:read'], folders: ['ops'] });

    const account = await server.request('GET', '/v1/public/account', bearer(ops.key));
    assertStatus(account, 200);
    assert.deepEqual(account.body.data.key.access, { checkIds: [], folders: ['ops'] });
    const list = await server.request('GET', '/v1/public/checks', bearer(ops.key));
    assert.deepEqual(list.body.data.map((c: { id: string }) => c.id), [inOps]);
    assertError(await server.request('GET', `/v1/public/checks/${outside}`, bearer(ops.key)), 403);
    assertError(await server.request('POST', '/v1/public/checks', { ...bearer(ops.key), body: { url: 'https://x.bearer.example.com' } }), 403, 'checks:write');

    const created = await server.request('POST', '/v1/public/checks', { ...bearer(owner.key), body: { url: 'https://new.bearer.example.com' } });
    assertStatus(created, 201);
  });

  test('a revoked, malformed or unknown key is a 401 with the challenge, as with X-Api-Key', async () => {
    const owner = await newAccount(server);
    const revoked = { id: owner.keyId, key: owner.key };
    assertStatus(await server.request('GET', '/v1/public/checks', bearer(revoked.key)), 200);
    await server.app.services.accounts.accounts.revokeKey(revoked.id);
    const res = await server.request('GET', '/v1/public/checks', bearer(revoked.key));
    assert401(res);
    assert.match(res.body.error.message, /revoked/);
    assert401(await server.request('GET', '/v1/public/checks', bearer(`vigil_live_${'cd'.repeat(32)}`)));
    assert401(await server.request('GET', '/v1/public/checks', bearer(`vigil_live_${'c'.repeat(63)}`)));
  });
});

describe('scopes', () => {
  let owner: Actor;
  let checkId: string;
  before(async () => {
    owner = await newAccount(server, { tier: 'pro', scopes: ALL_SCOPES });
    checkId = await createCheck(server, { url: 'https://scoped.example.com', name: 'scoped' }, owner.key);
  });

  test('checks:read only: reads work; create, update, toggle, maintenance and delete are 403 and change nothing', async () => {
    const reader = await newKey(server, owner.accountId, { scopes: ['checks:read'] });
    assertStatus(await server.request('GET', '/v1/public/checks', { key: reader.key }), 200);
    assertStatus(await server.request('GET', `/v1/public/checks/${checkId}`, { key: reader.key }), 200);
    assertStatus(await server.request('GET', '/v1/public/account', { key: reader.key }), 200);

    const before = (await server.request('GET', `/v1/public/checks/${checkId}`, { key: owner.key })).body.data;
    assertError(await server.request('POST', '/v1/public/checks', { key: reader.key, body: { url: 'https://reader.example.com' } }), 403);
    assertError(await server.request('PATCH', `/v1/public/checks/${checkId}`, { key: reader.key, body: { name: 'changed' } }), 403);
    assertError(await server.request('POST', `/v1/public/checks/${checkId}/toggle`, { key: reader.key, body: { disabled: true } }), 403);
    assertError(await server.request('POST', `/v1/public/checks/${checkId}/maintenance`, { key: reader.key, body: { enabled: true } }), 403);
    assertError(await server.request('DELETE', `/v1/public/checks/${checkId}`, { key: reader.key }), 403);
    const after = (await server.request('GET', `/v1/public/checks/${checkId}`, { key: owner.key })).body.data;
    assert.deepEqual(after, before);
    const list = await server.request('GET', '/v1/public/checks?includeTotal=true', { key: owner.key });
    assert.equal(list.body.meta.total, 1, 'no check was created');
  });

  test('checks:write without checks:delete: writes work, DELETE is 403', async () => {
    const writer = await newKey(server, owner.accountId, { scopes: ['checks:read', 'checks:write'] });
    const id = await createCheck(server, { url: 'https://writer.example.com' }, writer.key);
    assertStatus(await server.request('PATCH', `/v1/public/checks/${id}`, { key: writer.key, body: { name: 'w' } }), 200);
    assertStatus(await server.request('POST', `/v1/public/checks/${id}/toggle`, { key: writer.key, body: { disabled: true } }), 200);
    assertStatus(await server.request('POST', `/v1/public/checks/${id}/maintenance`, { key: writer.key, body: { enabled: true } }), 200);
    assertError(await server.request('DELETE', `/v1/public/checks/${id}`, { key: writer.key }), 403);
    assertStatus(await server.request('GET', `/v1/public/checks/${id}`, { key: writer.key }), 200);
    assertStatus(await server.request('DELETE', `/v1/public/checks/${id}`, { key: owner.key }), 200);
  });

  test('checks:delete without checks:read: DELETE works; reads and the account are 403', async () => {
    const deleter = await newKey(server, owner.accountId, { scopes: ['checks:delete'] });
    const id = await createCheck(server, { url: 'https://deleter.example.com' }, owner.key);
    assertError(await server.request('GET', `/v1/public/checks/${id}`, { key: deleter.key }), 403);
    assertError(await server.request('GET', '/v1/public/checks', { key: deleter.key }), 403);
    assertError(await server.request('GET', '/v1/public/account', { key: deleter.key }), 403);
    assertStatus(await server.request('DELETE', `/v1/public/checks/${id}`, { key: deleter.key }), 200);
  });

  test('a key created without scopes reports ["checks:read"] and cannot write', async () => {
    const k = await newKey(server, owner.accountId);
    const account = await server.request('GET', '/v1/public/account', { key: k.key });
    assertStatus(account, 200);
    assert.deepEqual(account.body.data.scopes, ['checks:read']);
    assertError(await server.request('POST', '/v1/public/checks', { key: k.key, body: { url: 'https://noscope.example.com' } }), 403);
  });
});

describe('restricted keys', () => {
  let owner: Actor;
  let c1: string, c2: string, c3: string;
  let byCheck: { id: string; key: string };
  let byFolder: { id: string; key: string };
  before(async () => {
    owner = await newAccount(server, { tier: 'pro', scopes: ALL_SCOPES });
    c1 = await createCheck(server, { url: 'https://c1.restricted.example.com' }, owner.key);
    c2 = await createCheck(server, { url: 'https://c2.restricted.example.com' }, owner.key);
    c3 = await createCheck(server, { url: 'https://c3.restricted.example.com', folder: 'ops' }, owner.key);
    byCheck = await newKey(server, owner.accountId, { scopes: ['checks:read', 'checks:write', 'checks:delete'], checkIds: [c1] });
    byFolder = await newKey(server, owner.accountId, { scopes: ['checks:read', 'checks:write', 'checks:delete'], folders: ['ops'] });
  });

  const ids = (res: TestResponse) => res.body.data.map((c: { id: string }) => c.id) as string[];

  test('--checks: lists only its checks; every other check of the account is 403', async () => {
    const list = await server.request('GET', '/v1/public/checks?includeTotal=true', { key: byCheck.key });
    assertStatus(list, 200);
    assert.deepEqual(ids(list), [c1]);
    assert.equal(list.body.meta.total, 1);
    assertStatus(await server.request('GET', `/v1/public/checks/${c1}`, { key: byCheck.key }), 200);
    assertStatus(await server.request('PATCH', `/v1/public/checks/${c1}`, { key: byCheck.key, body: { name: 'mine' } }), 200);

    assertStatus(await server.request('GET', `/v1/public/checks/${c1}/history`, { key: byCheck.key }), 200);
    for (const other of [c2, c3]) {
      assertError(await server.request('GET', `/v1/public/checks/${other}`, { key: byCheck.key }), 403);
      assertError(await server.request('GET', `/v1/public/checks/${other}/history`, { key: byCheck.key }), 403);
      assertError(await server.request('PATCH', `/v1/public/checks/${other}`, { key: byCheck.key, body: { name: 'x' } }), 403);
      assertError(await server.request('POST', `/v1/public/checks/${other}/toggle`, { key: byCheck.key, body: { disabled: true } }), 403);
      assertError(await server.request('POST', `/v1/public/checks/${other}/maintenance`, { key: byCheck.key, body: { enabled: true } }), 403);
      assertError(await server.request('DELETE', `/v1/public/checks/${other}`, { key: byCheck.key }), 403);
    }
    const c2Now = (await server.request('GET', `/v1/public/checks/${c2}`, { key: owner.key })).body.data;
    assert.equal(c2Now.status, 'pending');
    assert.equal(c2Now.name, 'https://c2.restricted.example.com');
  });

  test('--folders: lists only the folder; checks outside it are 403', async () => {
    const list = await server.request('GET', '/v1/public/checks', { key: byFolder.key });
    assert.deepEqual(ids(list), [c3]);
    assertStatus(await server.request('GET', `/v1/public/checks/${c3}`, { key: byFolder.key }), 200);
    assertError(await server.request('GET', `/v1/public/checks/${c1}`, { key: byFolder.key }), 403);
    assertError(await server.request('DELETE', `/v1/public/checks/${c2}`, { key: byFolder.key }), 403);
  });

  test('a folder key may create inside its folder (and then sees it), not outside', async () => {
    const id = await createCheck(server, { url: 'https://new.restricted.example.com', folder: 'ops' }, byFolder.key);
    const list = await server.request('GET', '/v1/public/checks', { key: byFolder.key });
    assert.deepEqual(ids(list), [c3, id]);
    assertError(await server.request('POST', '/v1/public/checks', { key: byFolder.key, body: { url: 'https://outside.restricted.example.com' } }), 403);
    assertError(
      await server.request('POST', '/v1/public/checks', { key: byFolder.key, body: { url: 'https://other.restricted.example.com', folder: 'dev' } }),
      403,
    );
    assertError(await server.request('PATCH', `/v1/public/checks/${id}`, { key: byFolder.key, body: { folder: 'dev' } }), 403);
  });

  test('the status filter never widens a restricted view', async () => {
    assertStatus(await server.request('POST', `/v1/public/checks/${c2}/toggle`, { key: owner.key, body: { disabled: true } }), 200);
    const paused = await server.request('GET', '/v1/public/checks?status=paused', { key: byCheck.key });
    assert.deepEqual(ids(paused), []);
    assertStatus(await server.request('POST', `/v1/public/checks/${c2}/toggle`, { key: owner.key, body: { disabled: false } }), 200);
  });

  test('the account response shows the restriction, and usage counts the whole account', async () => {
    const res = await server.request('GET', '/v1/public/account', { key: byCheck.key });
    assertStatus(res, 200);
    assert.deepEqual(res.body.data.key, { expiresAt: null, access: { checkIds: [c1], folders: [] } });
    const all = await server.request('GET', '/v1/public/checks?includeTotal=true', { key: owner.key });
    assert.equal(res.body.data.usage.checks, all.body.meta.total);
    const folder = await server.request('GET', '/v1/public/account', { key: byFolder.key });
    assert.deepEqual(folder.body.data.key.access, { checkIds: [], folders: ['ops'] });
  });
});

describe('an Idempotency-Key replay is answered only to a caller allowed to make the request', () => {
  const post = (path: string, key: string, idem: string, body: unknown) =>
    server.request('POST', path, { key, body, headers: { 'idempotency-key': idem } });

  test('a folder key replaying the full key\'s create gets the 403 it gets without the header', async () => {
    const owner = await newAccount(server, { tier: 'pro', scopes: ALL_SCOPES });
    const ops = await newKey(server, owner.accountId, { scopes: ALL_SCOPES, folders: ['ops'] });
    const body = { url: 'https://replay.restricted.example.com' };
    const created = await post('/v1/public/checks', owner.key, 'shared-create', body);
    assertStatus(created, 201);

    const withoutHeader = await server.request('POST', '/v1/public/checks', { key: ops.key, body });
    assertError(withoutHeader, 403);
    const replayed = await post('/v1/public/checks', ops.key, 'shared-create', body);
    assertError(replayed, 403, withoutHeader.body.error.message);
    assert.equal(replayed.headers.get('idempotent-replayed'), null);
    assert.ok(!replayed.text.includes(created.body.data.id), 'the id outside its reach is not shown');

    // Inside its folder the same key is allowed, so it gets the replay; the full key still does.
    const inOps = { url: 'https://replay-ops.restricted.example.com', folder: 'ops' };
    const first = await post('/v1/public/checks', owner.key, 'shared-ops', inOps);
    const again = await post('/v1/public/checks', ops.key, 'shared-ops', inOps);
    assertStatus(again, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal((await post('/v1/public/checks', owner.key, 'shared-create', body)).headers.get('idempotent-replayed'), 'true');
  });

  test('toggle, maintenance and regenerate-token replays need access to the check', async () => {
    const owner = await newAccount(server, { tier: 'pro', scopes: ALL_SCOPES });
    const mine = await createCheck(server, { url: 'https://mine.replay.example.com' }, owner.key);
    const theirs = await createCheck(server, { type: 'heartbeat', checkFrequency: 30 }, owner.key);
    const narrow = await newKey(server, owner.accountId, { scopes: ALL_SCOPES, checkIds: [mine] });
    const cases: Array<[string, unknown]> = [
      [`/v1/public/checks/${theirs}/toggle`, { disabled: true }],
      [`/v1/public/checks/${theirs}/maintenance`, { enabled: true }],
      [`/v1/public/checks/${theirs}/regenerate-token`, undefined],
    ];
    for (const [path, body] of cases) {
      assertStatus(await post(path, owner.key, `k-${path}`, body), 200);
      assertError(await post(path, narrow.key, `k-${path}`, body), 403);
    }
    const toggled = await post(`/v1/public/checks/${mine}/toggle`, owner.key, 'mine-toggle', { disabled: true });
    const replay = await post(`/v1/public/checks/${mine}/toggle`, narrow.key, 'mine-toggle', { disabled: true });
    assert.deepEqual([replay.status, replay.headers.get('idempotent-replayed'), replay.body], [200, 'true', toggled.body]);
  });
});

describe('GET /v1/public/account (spec 2.7)', () => {
  test('the admin account: every field, limits from the config', async () => {
    const res = await server.request('GET', '/v1/public/account');
    assertStatus(res, 200);
    const a = res.body.data;
    assert.equal(a.tier, 'pro');
    assert.deepEqual([...a.scopes].sort(), [...ALL_SCOPES].sort());
    assert.deepEqual(a.key, { expiresAt: null, access: null });
    const plan = server.app.config.plans.pro;
    assert.equal(a.limits.maxChecks, 777, 'maxChecks comes from the config override');
    assert.equal(a.limits.maxWebhooks, 44, 'maxWebhooks comes from the config override');
    assert.equal(a.limits.minCheckIntervalMinutes, plan.minCheckIntervalMinutes);
    assert.equal(a.limits.maxApiKeys, plan.maxApiKeys);
    assert.equal(a.limits.regionChoice, true);
    assert.equal(a.limits.domainIntel, true);
    assert.equal(typeof a.usage.checks, 'number');
    assert.equal(a.usage.webhooks, 0);
    assert.deepEqual(a.alerts, { emailConfigured: false, emailEnabled: false, webhookCount: 0 });
    assert.equal(typeof a.dashboardUrl, 'string');
    assert.ok(URL.canParse(a.dashboardUrl), 'dashboardUrl is a URL');
    assert.equal(a.upgradeUrl, null, 'upgradeUrl is null off the free plan');
    assert.ok(!('claimed' in a) && !('claimHint' in a), 'a claimed account has neither claimed nor claimHint');
  });

  test('a free account: free limits and the billing upgradeUrl', async () => {
    const free = await newAccount(server, { tier: 'free' });
    const a = (await server.request('GET', '/v1/public/account', { key: free.key })).body.data;
    assert.equal(a.tier, 'free');
    const plan = server.app.config.plans.free;
    assert.deepEqual(
      { maxChecks: a.limits.maxChecks, minCheckIntervalMinutes: a.limits.minCheckIntervalMinutes, maxWebhooks: a.limits.maxWebhooks,
        maxApiKeys: a.limits.maxApiKeys, regionChoice: a.limits.regionChoice, domainIntel: a.limits.domainIntel },
      { maxChecks: plan.maxChecks, minCheckIntervalMinutes: plan.minCheckIntervalMinutes, maxWebhooks: plan.maxWebhooks,
        maxApiKeys: plan.maxApiKeys, regionChoice: plan.regionChoice, domainIntel: plan.domainIntel },
    );
    assert.equal(a.limits.maxApiKeys, 1);
    assert.equal(a.upgradeUrl, UPGRADE_URL);
  });

  test('usage.checks is live: it follows creates and deletes', async () => {
    const actor = await newAccount(server, { tier: 'nano' });
    const usage = async () => (await server.request('GET', '/v1/public/account', { key: actor.key })).body.data.usage.checks as number;
    assert.equal(await usage(), 0);
    const a = await createCheck(server, { url: 'https://usage-a.example.com' }, actor.key);
    await createCheck(server, { type: 'heartbeat', checkFrequency: 1 }, actor.key);
    assert.equal(await usage(), 2);
    assertStatus(await server.request('DELETE', `/v1/public/checks/${a}`, { key: actor.key }), 200);
    assert.equal(await usage(), 1);
  });

  test('key.expiresAt is the epoch milliseconds of the key expiry', async () => {
    const expires = clock.now() + 7 * 24 * 60 * 60_000;
    const actor = await newAccount(server, { tier: 'pro', scopes: ['checks:read'], expiresAt: new Date(expires).toISOString() });
    const a = (await server.request('GET', '/v1/public/account', { key: actor.key })).body.data;
    assert.deepEqual(a.key, { expiresAt: expires, access: null });
    assert.deepEqual(a.scopes, ['checks:read']);
  });
});

describe('rate-limit headers on every authenticated answer', () => {
  test('2xx and 4xx answers carry RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset', async () => {
    const actor = await newAccount(server, { tier: 'pro' });
    const answers = [
      await server.request('GET', '/v1/public/account', { key: actor.key }),
      await server.request('POST', '/v1/public/checks', { key: actor.key, body: { url: 'https://rl.example.com' } }),
      await server.request('POST', '/v1/public/checks', { key: actor.key, body: { url: 'bad' } }),
      await server.request('GET', '/v1/public/checks/chk_cccccccccccccccccccc', { key: actor.key }),
      await server.request('DELETE', '/v1/public/checks/chk_cccccccccccccccccccc', { key: actor.key, headers: {} }),
    ];
    assert.deepEqual(answers.map((r) => r.status), [200, 201, 400, 404, 404]);
    let previous = Infinity;
    for (const r of answers) {
      assert.equal(r.headers.get('ratelimit-limit'), '300');
      const remaining = Number(r.headers.get('ratelimit-remaining'));
      assert.ok(Number.isInteger(remaining) && remaining < previous, 'remaining counts down');
      previous = remaining;
      const reset = Number(r.headers.get('ratelimit-reset'));
      assert.ok(Number.isInteger(reset) && reset >= 1 && reset <= 60, `reset in seconds: ${reset}`);
    }
    assert.equal(previous, 295);
  });
});

describe('rate limiting (perKeyPerMinute: 3)', () => {
  let limited: TestServer;
  const rlClock = new ManualClock(Date.UTC(2026, 5, 1, 0, 0, 0));
  before(async () => {
    limited = await startServer({ rateLimits: { perKeyPerMinute: 3 } }, rlClock, NO_PROBES);
  });
  after(async () => {
    await limited.stop();
  });

  test('the fourth request in a minute is 429 with Retry-After; other keys are independent; the window resets', async () => {
    const actor = await newAccount(limited, { tier: 'pro', scopes: ['checks:read', 'checks:write'] });
    const other = await newKey(limited, actor.accountId, { scopes: ['checks:read', 'checks:write'] });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await limited.request('GET', '/v1/public/checks', { key: actor.key });
      assertStatus(r, 200);
      assert.equal(r.headers.get('ratelimit-limit'), '3');
      remaining.push(r.headers.get('ratelimit-remaining')!);
      rlClock.advance(10_000);
    }
    assert.deepEqual(remaining, ['2', '1', '0']);

    const refused = await limited.request('GET', '/v1/public/checks', { key: actor.key });
    assertError(refused, 429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After in seconds: ${refused.headers.get('retry-after')}`);
    assert.equal(refused.headers.get('ratelimit-limit'), '3');
    assert.equal(refused.headers.get('ratelimit-remaining'), '0');
    assert.equal(refused.headers.get('ratelimit-reset'), String(retryAfter));

    // Writes are limited too, and a refused create creates nothing.
    const create = await limited.request('POST', '/v1/public/checks', { key: actor.key, body: { url: 'https://limited.example.com' } });
    assertError(create, 429);

    // Each key has its own budget.
    const r = await limited.request('GET', '/v1/public/checks?includeTotal=true', { key: other.key });
    assertStatus(r, 200);
    assert.equal(r.body.meta.total, 0, 'the refused create created nothing');

    // Retry-After tells the truth: a second early is still refused, on time is served.
    rlClock.advance((retryAfter - 1) * 1000);
    assertError(await limited.request('GET', '/v1/public/checks', { key: actor.key }), 429);
    rlClock.advance(1000);
    assertStatus(await limited.request('GET', '/v1/public/checks', { key: actor.key }), 200);
  });

  test('a key sent as a bearer token spends the same budget as X-Api-Key', async () => {
    rlClock.advance(120_000);
    const actor = await newAccount(limited, { scopes: ['checks:read'] });
    assertStatus(await limited.request('GET', '/v1/public/checks', { key: actor.key }), 200);
    const viaBearer = await limited.request('GET', '/v1/public/checks', { key: null, headers: { authorization: `Bearer ${actor.key}` } });
    assertStatus(viaBearer, 200);
    assert.equal(viaBearer.headers.get('ratelimit-remaining'), '1');
  });

  test('the admin key is limited like any other key', async () => {
    rlClock.advance(120_000);
    for (let i = 0; i < 3; i++) assertStatus(await limited.request('GET', '/v1/public/account'), 200);
    const res = await limited.request('GET', '/v1/public/account');
    assertError(res, 429);
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
  });
});

describe('the HTTP front', () => {
  test('HEAD answers wherever GET does: same status and headers, no body', async () => {
    await createCheck(server, { url: 'https://head.example.com' });
    for (const path of ['/v1/public/checks', '/v1/public/account', '/.well-known/oauth-authorization-server']) {
      const get = await server.request('GET', path);
      const head = await server.request('HEAD', path);
      assert.equal(head.status, get.status, path);
      assert.equal(head.text, '', path);
      assert.equal(head.headers.get('content-type'), get.headers.get('content-type'), path);
      assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(get.text)), path);
    }
    assert.equal((await server.request('HEAD', '/v1/public/nothing-here')).status, 404);
    assert.equal((await server.request('HEAD', '/v1/public/checks', { key: null })).status, 401);
  });

  test('unknown routes and methods are 404 in the standard error shape', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/v1/nope'],
      ['GET', '/v2/public/checks'],
      ['PUT', '/v1/public/checks'],
      ['DELETE', '/v1/public/checks'],
      ['POST', '/v1/public/account'],
      ['GET', '/v1/public/checks/x/y/z'],
    ] as const) {
      assertError(await server.request(method, path), 404);
    }
  });

  test('the body limit is exactly 1 MiB: 1,048,576 bytes are read (and validated), one byte more is 413', async () => {
    const sized = (bytes: number) => {
      const skeleton = JSON.stringify({ url: 'https://exact.example.com', name: '' });
      return JSON.stringify({ url: 'https://exact.example.com', name: 'x'.repeat(bytes - skeleton.length) });
    };
    const atLimit = sized(1024 * 1024);
    assert.equal(Buffer.byteLength(atLimit), 1024 * 1024);
    const res = await server.request('POST', '/v1/public/checks', { rawBody: atLimit, headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 'name');
    const over = await server.request('POST', '/v1/public/checks', { rawBody: sized(1024 * 1024 + 1), headers: { 'content-type': 'application/json' } });
    assertError(over, 413);
  });

  test('a 413 comes in the error shape of the route it was sent to', async () => {
    const huge = 'x'.repeat(1024 * 1024 + 1);
    for (const path of ['/oauth/agent-signup', '/oauth/token']) {
      const res = await server.request('POST', path, { rawBody: huge, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      assert.equal(res.status, 413, path);
      assert.equal(res.body.error, 'invalid_request', path);
      assert.match(res.body.error_description, /larger than 1048576 bytes/);
    }
  });

  test('PATCH and toggle bodies over 1 MiB are 413; malformed JSON is 400', async () => {
    const id = await createCheck(server, { url: 'https://front.example.com' });
    const huge = { name: 'x'.repeat(1024 * 1024 + 1) };
    assertError(await server.request('PATCH', `/v1/public/checks/${id}`, { body: huge }), 413);
    assertError(await server.request('POST', `/v1/public/checks/${id}/toggle`, { body: { disabled: true, reason: 'x'.repeat(1024 * 1024 + 1) } }), 413);
    assertError(await server.request('POST', `/v1/public/checks/${id}/toggle`, { rawBody: '{"disabled": tru', headers: { 'content-type': 'application/json' } }), 400);
    const c = (await server.request('GET', `/v1/public/checks/${id}`)).body.data;
    assert.equal(c.name, 'https://front.example.com');
    assert.equal(c.status, 'pending');
  });
});
