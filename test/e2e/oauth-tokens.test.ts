import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { asBearer, assertOAuthError, fakeMailDns, postToken, refresh, signUp, type AgentSession } from '../helpers/fixtures/oauth-client.js';
import { assertError, newAccount, NO_PROBES, rawRequest } from './util.js';

/** Bearer tokens from agent signup on the API, and POST {app_url}/oauth/token (spec 4.12, 5.9–5.10; decisions §7, §9). */

const DAY = 24 * 60 * 60 * 1000;
const clock = new ManualClock(Date.UTC(2026, 3, 1, 12, 0, 0));
let server: TestServer;

before(async () => {
  server = await startServer({}, clock, { ...NO_PROBES, mailDomainResolver: fakeMailDns() });
});
after(() => server.stop());

describe('the bearer principal works wherever an API key does', () => {
  let agent: AgentSession;

  before(async () => {
    agent = await signUp(server);
  });

  /** An agent of its own with one check, so a test never depends on what another created. */
  async function agentWithCheck(): Promise<{ session: AgentSession; checkId: string }> {
    const session = await signUp(server);
    const created = await asBearer(server, session.accessToken, 'POST', '/v1/public/checks', {
      body: { url: 'https://bearer.example.com', name: 'made by an agent' },
      headers: { 'idempotency-key': 'agent-setup' },
    });
    assert.equal(created.status, 201, created.text);
    return { session, checkId: created.body.data.id };
  }

  test('POST /v1/public/checks still needs an Idempotency-Key', async () => {
    const res = await rawRequest(server, 'POST', '/v1/public/checks', {
      authorization: `Bearer ${agent.accessToken}`,
      'content-type': 'application/json',
    }, JSON.stringify({ url: 'https://bearer.example.com' }));
    assertError(res, 400, 'Idempotency-Key');
  });

  test('create with an Idempotency-Key; a replay answers the same', async () => {
    const headers = { 'idempotency-key': 'agent-create-1' };
    const body = { url: 'https://bearer.example.com', name: 'made by an agent' };
    const first = await asBearer(server, agent.accessToken, 'POST', '/v1/public/checks', { body, headers });
    assert.equal(first.status, 201, first.text);
    const checkId = first.body.data.id;
    const again = await asBearer(server, agent.accessToken, 'POST', '/v1/public/checks', { body, headers });
    assert.equal(again.status, 201);
    assert.equal(again.body.data.id, checkId);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
  });

  test('reads: list, one check, status, history, account', async () => {
    const { session: agent, checkId } = await agentWithCheck();
    const list = await asBearer(server, agent.accessToken, 'GET', '/v1/public/checks');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.data.map((c: { id: string }) => c.id), [checkId]);
    assert.equal((await asBearer(server, agent.accessToken, 'GET', `/v1/public/checks/${checkId}`)).status, 200);
    assert.equal((await asBearer(server, agent.accessToken, 'GET', '/v1/public/checks/status')).status, 200);
    assert.equal((await asBearer(server, agent.accessToken, 'GET', `/v1/public/checks/${checkId}/history`)).status, 200);
    const account = await asBearer(server, agent.accessToken, 'GET', '/v1/public/account');
    assert.equal(account.status, 200);
    assert.equal(account.body.data.key, null, 'key is null for bearer sessions (spec 2.7)');
    assert.equal(account.body.data.usage.checks, 1);
  });

  test('writes: update, toggle, maintenance', async () => {
    const { session: agent, checkId } = await agentWithCheck();
    const patch = await asBearer(server, agent.accessToken, 'PATCH', `/v1/public/checks/${checkId}`, { body: { name: 'renamed' } });
    assert.equal(patch.status, 200, patch.text);
    const toggle = await asBearer(server, agent.accessToken, 'POST', `/v1/public/checks/${checkId}/toggle`, { body: { disabled: true } });
    assert.equal(toggle.status, 200, toggle.text);
    assert.equal(toggle.body.data.disabled, true);
    const maintenance = await asBearer(server, agent.accessToken, 'POST', `/v1/public/checks/${checkId}/maintenance`, { body: { enabled: true } });
    assert.equal(maintenance.status, 200, maintenance.text);
  });

  test('the signup scopes apply: no checks:delete', async () => {
    const { session: agent, checkId } = await agentWithCheck();
    assertError(await asBearer(server, agent.accessToken, 'DELETE', `/v1/public/checks/${checkId}`), 403, 'checks:delete');
  });

  test("another account's check is 403", async () => {
    const other = await newAccount(server);
    const created = await server.request('POST', '/v1/public/checks', { key: other.key, body: { url: 'https://other.example.com' } });
    assert.equal(created.status, 201);
    assertError(await asBearer(server, agent.accessToken, 'GET', `/v1/public/checks/${created.body.data.id}`), 403);
  });

  test('401 with a challenge: unknown token, a refresh token used as bearer', async () => {
    for (const token of [`vigil_at_${'0'.repeat(64)}`, 'vigil_at_short', agent.refreshToken]) {
      const res = await asBearer(server, token, 'GET', '/v1/public/account');
      assertError(res, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer .*resource_metadata=".*\/\.well-known\/oauth-protected-resource"/);
    }
  });
});

describe('refresh: rotation and reuse detection', () => {
  test('a refresh returns a new pair; the new tokens work', async () => {
    const agent = await signUp(server);
    const res = await refresh(server, agent.refreshToken);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    assert.match(res.body.access_token, /^vigil_at_[0-9a-f]{64}$/);
    assert.match(res.body.refresh_token, /^vigil_rt_[0-9a-f]{64}$/);
    assert.notEqual(res.body.access_token, agent.accessToken);
    assert.notEqual(res.body.refresh_token, agent.refreshToken);
    assert.equal(res.body.token_type, 'Bearer');
    assert.equal(res.body.expires_in, 2_592_000);
    assert.equal(res.body.scope, 'checks:read checks:write alerts:read alerts:write');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal((await asBearer(server, res.body.access_token, 'GET', '/v1/public/account')).status, 200);
    const next = await refresh(server, res.body.refresh_token);
    assert.equal(next.status, 200, 'the rotated-in refresh token works once too');
  });

  test('reusing a rotated refresh token is invalid_grant and revokes every token of the grant', async () => {
    const agent = await signUp(server);
    const rotated = await refresh(server, agent.refreshToken);
    assert.equal(rotated.status, 200);
    const { access_token: newAccess, refresh_token: newRefresh } = rotated.body;

    const reuse = await refresh(server, agent.refreshToken);
    assertOAuthError(reuse, 400, 'invalid_grant');
    assert.equal(reuse.headers.get('cache-control'), 'no-store');

    assertError(await asBearer(server, newAccess, 'GET', '/v1/public/account'), 401);
    assertError(await asBearer(server, agent.accessToken, 'GET', '/v1/public/account'), 401);
    assertOAuthError(await refresh(server, newRefresh), 400, 'invalid_grant');
  });

  test("one grant's revocation leaves the account's other grants alone", async () => {
    const agent = await signUp(server);
    const account = (await server.app.store.accounts.byEmail(agent.email))!;
    // A second grant on the same account, as a second signup session would have.
    const second = await server.app.store.transaction(async () => (await server.app.services.accounts.oauth.tokens.issueGrant(account.id, ['checks:read'])));
    await refresh(server, agent.refreshToken);
    assertOAuthError(await refresh(server, agent.refreshToken), 400, 'invalid_grant');
    assert.equal((await asBearer(server, second.access_token, 'GET', '/v1/public/account')).status, 200);
  });

  test('scope narrows the access token within the grant; beyond it is invalid_scope', async () => {
    const agent = await signUp(server);
    const narrowed = await postToken(server, { grant_type: 'refresh_token', refresh_token: agent.refreshToken, scope: 'checks:read' });
    assert.equal(narrowed.status, 200, narrowed.text);
    assert.equal(narrowed.body.scope, 'checks:read');
    const write = await asBearer(server, narrowed.body.access_token, 'POST', '/v1/public/checks', { body: { url: 'https://narrow.example.com' } });
    assertError(write, 403, 'checks:write');
    const wider = await postToken(server, { grant_type: 'refresh_token', refresh_token: narrowed.body.refresh_token, scope: 'checks:read checks:delete' });
    assertOAuthError(wider, 400, 'invalid_scope');
    const full = await refresh(server, narrowed.body.refresh_token);
    assert.equal(full.status, 200, 'an invalid_scope request does not spend the refresh token');
    assert.equal(full.body.scope, 'checks:read checks:write alerts:read alerts:write', 'the refresh token kept the grant scope');
  });
});

describe('token endpoint errors (RFC 6749 §5.2), all with Cache-Control: no-store', () => {
  const cases: Array<[string, Record<string, string | undefined>, string]> = [
    ['missing grant_type', { refresh_token: 'vigil_rt_x' }, 'invalid_request'],
    ['empty grant_type', { grant_type: '', refresh_token: 'vigil_rt_x' }, 'invalid_request'],
    ['an empty form', {}, 'invalid_request'],
    ['authorization_code', { grant_type: 'authorization_code', code: 'abc' }, 'unsupported_grant_type'],
    ['client_credentials', { grant_type: 'client_credentials' }, 'unsupported_grant_type'],
    ['password', { grant_type: 'password', username: 'u', password: 'p' }, 'unsupported_grant_type'],
    ['missing refresh_token', { grant_type: 'refresh_token' }, 'invalid_request'],
    ['unknown refresh token', { grant_type: 'refresh_token', refresh_token: `vigil_rt_${'a'.repeat(64)}` }, 'invalid_grant'],
    ['malformed refresh token', { grant_type: 'refresh_token', refresh_token: 'nope' }, 'invalid_grant'],
  ];
  for (const [what, form, error] of cases) {
    test(what, async () => {
      const res = await postToken(server, form);
      assertOAuthError(res, 400, error);
      assert.equal(res.headers.get('cache-control'), 'no-store');
    });
  }

  test('an access token is not a refresh token', async () => {
    const agent = await signUp(server);
    assertOAuthError(await postToken(server, { grant_type: 'refresh_token', refresh_token: agent.accessToken }), 400, 'invalid_grant');
  });

  test('a JSON body is invalid_request', async () => {
    const res = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: 'x' }),
    });
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(((await res.json()) as { error: string }).error, 'invalid_request');
  });
});

describe('lifetimes (fake clock)', () => {
  test('the access token expires after 30 days, the refresh token after 180', async () => {
    const agent = await signUp(server);
    clock.advance(30 * DAY - 1);
    assert.equal((await asBearer(server, agent.accessToken, 'GET', '/v1/public/account')).status, 200);
    clock.advance(1);
    assertError(await asBearer(server, agent.accessToken, 'GET', '/v1/public/account'), 401);
    const renewed = await refresh(server, agent.refreshToken);
    assert.equal(renewed.status, 200, 'a refresh token outlives its access token');
    assert.equal((await asBearer(server, renewed.body.access_token, 'GET', '/v1/public/account')).status, 200);

    clock.advance(180 * DAY);
    assertOAuthError(await refresh(server, renewed.body.refresh_token), 400, 'invalid_grant');
  });
});
