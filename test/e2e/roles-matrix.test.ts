import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.js';
import { addMember, cookieOf, setupToken, withCookie, type AsMember } from '../helpers/people.js';
import { send } from '../helpers/server.js';
import { newAccount, NO_PROBES } from './util.js';
import type { Route } from '../../src/api/http-types.js';

type Role = 'owner' | 'admin' | 'editor' | 'viewer';
const ROLES: Role[] = ['owner', 'admin', 'editor', 'viewer'];

/**
 * Every role against every endpoint group (issue 28 item 5). `allowed` lists the roles that may;
 * the others get a 403 naming their role. Each row runs with a member session of each role.
 */
interface Row {
  group: string;
  allowed: Role[];
  call: (as: AsMember, n: number) => Promise<{ status: number; text: string }>;
}

/** The matrices send many requests a minute with each session. */
const UNLIMITED = { rateLimits: { perKeyPerMinute: 1_000_000, statusPerKeyPerMinute: 1_000_000, statusPerAccountPerMinute: 1_000_000 } };

let seq = 0;
const unique = () => `${process.pid}-${++seq}`;

describe('the roles matrix (issue 28)', () => {
  let srv: TestServer;
  const as = {} as Record<Role, AsMember>;
  const cookies = {} as Record<Role, string>;
  let checkIds: string[] = [];

  before(async () => {
    srv = await startServer(UNLIMITED, undefined, NO_PROBES);
    // The account's owner (admin@localhost) sets a password through a set-up link of their own.
    const owner = (await srv.request('GET', '/v1/public/members')).body.data[0];
    const link = await srv.app.services.people.members.setupLink({ ...owner, passwordHash: null, totpSecret: null, totpEnabledAt: null, totpLastStep: null, createdAt: 0, updatedAt: 0 });
    const setup = await send(srv.url, '', 'POST', '/v1/public/password-setup', { key: null, body: { token: setupToken(link.url), password: 'the owner password' } });
    assert.equal(setup.status, 201, setup.text);
    cookies.owner = cookieOf(setup);
    as.owner = withCookie(srv, cookies.owner);
    for (const role of ['admin', 'editor', 'viewer'] as const) {
      const m = await addMember(srv, role);
      as[role] = m.as;
      cookies[role] = m.cookie;
    }
    // Checks for the delete row: one per role, made with the admin key.
    checkIds = [];
    for (let i = 0; i < ROLES.length; i++) {
      const res = await srv.request('POST', '/v1/public/checks', { body: { url: `https://matrix-${unique()}.example.com`, checkFrequency: 5 } });
      checkIds.push(res.body.data.id);
    }
  });
  after(() => srv.stop());

  const rows: Row[] = [
    { group: 'account: read', allowed: ROLES, call: (m) => m('GET', '/v1/public/account') },
    { group: 'checks: list and read', allowed: ROLES, call: (m) => m('GET', '/v1/public/checks') },
    { group: 'checks: status', allowed: ROLES, call: (m) => m('GET', '/v1/public/checks/status') },
    { group: 'checks: history and stats', allowed: ROLES, call: (m, n) => m('GET', `/v1/public/checks/${checkIds[n]}/history`) },
    { group: 'checks: create', allowed: ['owner', 'admin', 'editor'], call: (m) => m('POST', '/v1/public/checks', { url: `https://c-${unique()}.example.com`, checkFrequency: 5 }) },
    { group: 'checks: update', allowed: ['owner', 'admin', 'editor'], call: (m, n) => m('PATCH', `/v1/public/checks/${checkIds[n]}`, { name: `renamed ${unique()}` }) },
    { group: 'checks: pause', allowed: ['owner', 'admin', 'editor'], call: (m, n) => m('POST', `/v1/public/checks/${checkIds[n]}/toggle`, { disabled: true }) },
    { group: 'checks: maintenance', allowed: ['owner', 'admin', 'editor'], call: (m, n) => m('POST', `/v1/public/checks/${checkIds[n]}/maintenance`, { enabled: true }) },
    { group: 'checks: delete', allowed: ['owner', 'admin', 'editor'], call: (m, n) => m('DELETE', `/v1/public/checks/${checkIds[n]}`) },
    { group: 'status pages: read', allowed: ROLES, call: (m) => m('GET', '/v1/public/status-pages') },
    { group: 'status pages: create', allowed: ['owner', 'admin', 'editor'], call: (m) => m('POST', '/v1/public/status-pages', { slug: `p-${unique()}`, title: 'Status', checkIds: [] }) },
    { group: 'alert settings: read', allowed: ROLES, call: (m) => m('GET', '/v1/public/alerts/webhooks') },
    { group: 'alert settings: email', allowed: ['owner', 'admin'], call: (m) => m('PATCH', '/v1/public/alerts/email', { recipients: ['ops@example.com'] }) },
    { group: 'alert settings: webhooks', allowed: ['owner', 'admin'], call: (m) => m('POST', '/v1/public/alerts/webhooks', { url: `https://hooks.example.com/${unique()}`, name: 'Ops' }) },
    { group: 'alert deliveries: read', allowed: ROLES, call: (m) => m('GET', '/v1/public/alerts/deliveries') },
    { group: 'API keys: list', allowed: ['owner', 'admin'], call: (m) => m('GET', '/v1/public/keys') },
    { group: 'API keys: create', allowed: ['owner', 'admin'], call: (m) => m('POST', '/v1/public/keys', { scopes: ['checks:read'] }) },
    { group: 'members: list', allowed: ['owner', 'admin'], call: (m) => m('GET', '/v1/public/members') },
    { group: 'members: invite', allowed: ['owner', 'admin'], call: (m) => m('POST', '/v1/public/members', { email: `m-${unique()}@example.com`, role: 'viewer' }) },
    { group: 'audit log: read', allowed: ['owner', 'admin'], call: (m) => m('GET', '/v1/public/audit-log') },
    { group: 'own sessions', allowed: ROLES, call: (m) => m('GET', '/v1/public/sessions') },
    { group: 'own TOTP status', allowed: ROLES, call: (m) => m('GET', '/v1/public/me/totp') },
    { group: 'own single sign-on identities', allowed: ROLES, call: (m) => m('GET', '/v1/public/me/identities') },
  ];

  for (const row of rows) {
    test(row.group, async () => {
      for (const [n, role] of ROLES.entries()) {
        const res = await row.call(as[role], n);
        if (row.allowed.includes(role)) {
          assert.ok(res.status >= 200 && res.status < 300, `${role}: expected success, got ${res.status}: ${res.text}`);
        } else {
          assert.equal(res.status, 403, `${role}: expected 403, got ${res.status}: ${res.text}`);
          assert.match(JSON.parse(res.text).error.message, new RegExp(`\\b${role} role\\b`), `${role}: the 403 names the role`);
        }
      }
    });
  }

  test('the tool server: a viewer reads, an editor changes checks, and the viewer cannot', async () => {
    const call = (role: Role, name: string, args: Record<string, unknown>) =>
      send(srv.url, '', 'POST', '/mcp/v1', {
        key: null,
        headers: { cookie: cookies[role], origin: srv.app.config.publicUrl, accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
      });
    const list = await call('viewer', 'list_checks', {});
    assert.equal(list.status, 200, list.text);
    assert.notEqual(list.body.result.isError, true, list.text);
    const made = await call('editor', 'create_check', { url: `https://mcp-${unique()}.example.com`, checkFrequency: 5, idempotencyKey: unique() });
    assert.notEqual(made.body.result.isError, true, made.text);
    const refused = await call('viewer', 'create_check', { url: `https://mcp-${unique()}.example.com`, checkFrequency: 5, idempotencyKey: unique() });
    assert.equal(refused.body.result.isError, true, refused.text);
    assert.match(JSON.stringify(refused.body.result.content), /viewer role/);
  });
});

/**
 * Issue 34 item 8: every route of the table × owner, admin, editor, viewer and a member of
 * another account, with the server's Origin, with none and with a foreign one. The route list is
 * the server's own table, so a new route cannot be missed: a credential route whose rule is not
 * stated here fails the test. A wrong grant is a refused role let through, an allowed role
 * refused, a cookie-authenticated change made without the matching Origin, or another account's
 * member answered with this account's objects.
 */
type Who = Role | 'other';
const EVERYONE: Role[] = ['owner', 'admin', 'editor', 'viewer'];
const ADMINS: Role[] = ['owner', 'admin'];

/** What each scope lets a role do (docs/people.md); routes with a scope are judged by it. */
const BY_SCOPE: Record<string, Role[]> = {
  'checks:read': EVERYONE,
  'alerts:read': EVERYONE,
  'checks:write': ['owner', 'admin', 'editor'],
  'checks:delete': ['owner', 'admin', 'editor'],
  'alerts:write': ADMINS,
};

/** Credential routes without a scope, or needing more than it: what each role may do there (its own things, managing people and keys). */
const BY_ROUTE = new Map<string, Role[]>([
  ['GET /v1/public/sessions/current', EVERYONE],
  ['DELETE /v1/public/sessions/current', EVERYONE],
  ['GET /v1/public/members', ADMINS],
  ['POST /v1/public/members', ADMINS],
  ['PATCH /v1/public/members/:id', ADMINS],
  ['DELETE /v1/public/members/:id', ADMINS],
  ['GET /v1/public/audit-log', ADMINS],
  ['POST /v1/public/members/:id/setup-link', ADMINS],
  ['GET /v1/public/me/identities', EVERYONE],
  ['POST /v1/public/me/identities/link', EVERYONE],
  ['DELETE /v1/public/me/identities/:id', EVERYONE],
  ['POST /v1/public/me/password', EVERYONE],
  ['GET /v1/public/me/totp', EVERYONE],
  ['POST /v1/public/me/totp', EVERYONE],
  ['POST /v1/public/me/totp/confirm', EVERYONE],
  ['POST /v1/public/me/totp/disable', EVERYONE],
  ['GET /v1/public/sessions', EVERYONE],
  // Another member's session (the target's): managing it is an admin's.
  ['DELETE /v1/public/sessions/:id', ADMINS],
  ['GET /v1/public/passkeys', EVERYONE],
  ['POST /v1/public/passkeys/options', EVERYONE],
  ['POST /v1/public/passkeys', EVERYONE],
  ['PATCH /v1/public/passkeys/:id', EVERYONE],
  ['DELETE /v1/public/passkeys/:id', EVERYONE],
  ['GET /v1/public/keys', ADMINS],
  ['POST /v1/public/keys', ADMINS],
  ['DELETE /v1/public/keys/:id', ADMINS],
  ['POST /mcp/v1', EVERYONE],
  ['GET /mcp/v1', EVERYONE],
  ['DELETE /mcp/v1', EVERYONE],
  // A monitoring file holds webhooks and email settings too: checks:write and alerts:write (docs/config-as-code.md).
  ['POST /v1/public/config/plan', ADMINS],
  ['POST /v1/public/config/apply', ADMINS],
]);

/**
 * The routes anyone may call without a credential, each on purpose: a route added without a
 * credential fails the matrix until it is listed here (and SECURITY.md says what it trusts).
 */
const PUBLIC = new Set([
  'POST /v1/public/sessions', 'POST /v1/public/password-setup', 'GET /v1/public/sessions/methods', 'POST /v1/public/sessions/passkey/options',
  'POST /v1/public/sessions/passkey', 'POST /v1/public/sessions/email-link', 'POST /v1/public/sessions/email-link/redeem',
  'GET /v1/auth/oidc/start', 'GET /v1/auth/oidc/callback', 'GET /dashboard', 'GET /dashboard/assets/:file',
  'GET /heartbeat/:token', 'POST /heartbeat/:token', 'GET /heartbeat/:token/:action', 'POST /heartbeat/:token/:action',
  'GET /api/push/:token', 'POST /api/push/:token', 'POST /oauth/agent-signup', 'POST /oauth/token',
  'GET /.well-known/oauth-authorization-server', 'GET /.well-known/oauth-protected-resource', 'GET /.well-known/oauth-protected-resource/mcp/v1',
  'GET /claim/:token', 'POST /claim/:token', 'POST /status/:page/subscribe', 'GET /status-subscription/:token/confirm',
  'POST /status-subscription/:token/confirm', 'GET /status-subscription/:token/unsubscribe', 'POST /status-subscription/:token/unsubscribe',
  'GET /v1/config-schema.json', 'GET /status/:page', 'GET /', 'GET /badge/:id/:file', 'GET /badge/:id/:measure/:file',
  'GET /healthz', 'GET /readyz', 'GET /v1/openapi.json', 'GET /favicon.ico',
]);

/** Bodies that pass validation where a role check comes after it (a refusal must then be the role's, not the body's). */
const BODIES = new Map<string, () => unknown>([
  ['POST /v1/public/members', () => ({ email: `matrix-${unique()}@example.com`, role: 'viewer' })],
  ['PATCH /v1/public/members/:id', () => ({ role: 'viewer' })],
  ['POST /v1/public/keys', () => ({ scopes: ['checks:read'] })],
  ['POST /v1/public/me/password', () => ({ currentPassword: 'not the password', newPassword: 'another password 123' })],
  ['POST /v1/public/me/totp/confirm', () => ({ code: '000000' })],
  ['POST /v1/public/me/totp/disable', () => ({ password: 'not the password' })],
  ['POST /mcp/v1', () => ({ jsonrpc: '2.0', id: 1, method: 'tools/list' })],
  ['POST /v1/public/checks', () => ({ url: `https://m-${unique()}.example.com`, checkFrequency: 5 })],
  ['POST /v1/public/status-pages', () => ({ slug: `m-${unique()}`, title: 'M', checkIds: [] })],
]);

interface Fixture {
  check: string;
  page: string;
  incident: string;
  window: string;
  webhook: string;
  member: string;
  memberSession: string;
  key: string;
}

describe('every route × every role × Origin (issue 34 item 8)', () => {
  let srv: TestServer;
  const cookies = {} as Record<Who, string>;
  const credentials = {} as Record<Who, { email: string; password: string }>;
  const signInOf = (m: { email: string; password: string }) => ({ email: m.email, password: m.password });
  let otherKey: string;
  let accountId: string;
  let f: Fixture;

  before(async () => {
    srv = await startServer(UNLIMITED, undefined, NO_PROBES);
    accountId = (await srv.request('GET', '/v1/public/account')).body.data.id ?? '';
    const owner = (await srv.request('GET', '/v1/public/members')).body.data[0];
    const link = await srv.app.services.people.members.setupLink({ ...owner, passwordHash: null, totpSecret: null, totpEnabledAt: null, totpLastStep: null, createdAt: 0, updatedAt: 0 });
    const setup = await send(srv.url, '', 'POST', '/v1/public/password-setup', { key: null, body: { token: setupToken(link.url), password: 'the owner password' } });
    assert.equal(setup.status, 201, setup.text);
    cookies.owner = cookieOf(setup);
    credentials.owner = { email: owner.email, password: 'the owner password' };
    for (const role of ['admin', 'editor', 'viewer'] as const) {
      const m = await addMember(srv, role);
      cookies[role] = m.cookie;
      credentials[role] = signInOf(m);
    }
    // Another account, with an admin member of its own.
    const other = await newAccount(srv, { tier: 'pro', scopes: ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'] });
    otherKey = other.key;
    const stranger = await addMember(srv, 'admin', other.key);
    cookies.other = stranger.cookie;
    credentials.other = signInOf(stranger);
  });
  after(() => srv.stop());

  /** This account's objects, made with the admin key (again before each route that deletes). */
  async function fixture(): Promise<Fixture> {
    const made = async (path: string, body: unknown) => {
      const res = await srv.request('POST', path, { body });
      assert.ok(res.status === 201 || res.status === 200, `${path}: ${res.text}`);
      return res.body.data;
    };
    const check = (await made('/v1/public/checks', { url: `https://f-${unique()}.example.com`, checkFrequency: 5 })).id;
    const page = (await made('/v1/public/status-pages', { slug: `f-${unique()}`, title: 'F', checkIds: [check] })).id;
    const incident = (await made(`/v1/public/status-pages/${page}/incidents`, { title: 'F', impact: 'minor', status: 'investigating', message: 'Looking' })).id;
    const startsAt = new Date(Date.now() + 86_400_000).toISOString();
    const window = (await made('/v1/public/maintenance-windows', { title: 'F', startsAt, endsAt: new Date(Date.now() + 90_000_000).toISOString(), checkIds: [check] })).id;
    const webhook = (await made('/v1/public/alerts/webhooks', { url: `https://hooks.example.com/${unique()}`, name: 'F' })).id;
    const target = await addMember(srv, 'viewer');
    const sessions = await srv.request('GET', `/v1/public/sessions?userId=${target.id}`);
    assert.equal(sessions.status, 200, sessions.text);
    const key = (await made('/v1/public/keys', { scopes: ['checks:read'] })).id;
    return { check, page, incident, window, webhook, member: target.id, memberSession: sessions.body.data[0].id, key };
  }

  function pathOf(route: Route): string {
    const p = route.path;
    const id = p.startsWith('/v1/public/checks/') ? f.check
      : p.startsWith('/v1/public/status-pages/') ? f.page
        : p.startsWith('/v1/public/maintenance-windows/') ? f.window
          : p.startsWith('/v1/public/alerts/webhooks/') ? f.webhook
            : p.startsWith('/v1/public/members/') ? f.member
              : p.startsWith('/v1/public/keys/') ? f.key
                : p.startsWith('/v1/public/sessions/') ? f.memberSession
                  : `x_${unique()}`;
    return p.replace(':id', id).replace(':incidentId', f.incident).replace(/:[A-Za-z]+/g, `x_${unique()}`);
  }

  /** A fresh session for a role (signing out ends the one it is sent with). */
  async function freshCookie(who: Who): Promise<string> {
    const res = await send(srv.url, '', 'POST', '/v1/public/sessions', { key: null, body: credentials[who] });
    assert.equal(res.status, 201, res.text);
    return cookieOf(res);
  }

  async function call(cookie: string, method: string, path: string, body: unknown, origin: string | null): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = { cookie, accept: 'application/json, text/event-stream', 'idempotency-key': `matrix-${unique()}` };
    if (origin !== null) headers.origin = origin;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(srv.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
    if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
      await res.body?.cancel();
      return { status: res.status, text: '' };
    }
    return { status: res.status, text: await res.text() };
  }

  test('0 wrong grants', async () => {
    const publicOrigin = srv.app.config.publicUrl;
    const wrong: string[] = [];
    const open = srv.app.routes.filter((r) => r.auth !== 'credential').map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(open.filter((r) => !PUBLIC.has(r)), [], 'every route without a credential is public on purpose (listed in PUBLIC)');
    const routes = srv.app.routes.filter((r) => r.auth === 'credential');
    assert.ok(routes.length > 60, `the credential routes: ${routes.length}`);
    const unstated = routes.filter((r) => !r.scope && !BY_ROUTE.has(`${r.method} ${r.path}`)).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(unstated, [], 'every credential route has a stated rule (a scope, or a line of BY_ROUTE)');
    f = await fixture();
    let calls = 0;
    for (const route of routes) {
      const name = `${route.method} ${route.path}`;
      if (route.method === 'DELETE') f = await fixture();
      const allowed = BY_ROUTE.get(name) ?? BY_SCOPE[route.scope!]!;
      const write = route.method !== 'GET';
      const path = pathOf(route);
      const ownIds = Object.values(f).concat(accountId ? [accountId] : []);
      for (const who of ['viewer', 'editor', 'admin', 'owner', 'other'] as const) {
        const cookieFor = async () => (name === 'DELETE /v1/public/sessions/current' ? freshCookie(who) : cookies[who]);
        const body = write && route.method !== 'DELETE' ? (BODIES.get(name)?.() ?? {}) : undefined;
        // Without the server's Origin (none, then a foreign one): a change is refused before anything else; a read is as with it.
        for (const origin of [null, 'https://evil.example']) {
          const res = await call(await cookieFor(), route.method, path, body, origin);
          calls++;
          if (write && !(res.status === 403 && /must come from/.test(res.text))) wrong.push(`${name} as ${who}, Origin ${origin}: ${res.status} ${res.text.slice(0, 160)}`);
          if (!write && res.status === 403 && /must come from/.test(res.text)) wrong.push(`${name} as ${who}: a read refused for its Origin`);
        }
        const res = await call(await cookieFor(), route.method, path, body, publicOrigin);
        calls++;
        const refusedForRole = res.status === 403 && /\brole\b/.test(res.text);
        if (who === 'other') {
          const aimed = /:(id|incidentId)\b/.test(route.path);
          if (aimed && res.status >= 200 && res.status < 300) wrong.push(`${name} as another account's member: ${res.status} on this account's object`);
          if (res.status >= 200 && res.status < 300 && ownIds.some((id) => id && res.text.includes(id))) wrong.push(`${name} as another account's member: this account's ids in the answer`);
          if (res.status === 401) wrong.push(`${name} as another account's member: 401 (the session did not count)`);
          continue;
        }
        if (allowed.includes(who)) {
          if (refusedForRole || res.status === 401) wrong.push(`${name} as ${who}: refused (${res.status} ${res.text.slice(0, 160)})`);
        } else if (!(res.status === 403 && new RegExp(`\\b${who} role\\b`).test(res.text))) {
          wrong.push(`${name} as ${who}: expected a 403 naming the role, got ${res.status} ${res.text.slice(0, 160)}`);
        }
      }
    }
    assert.ok(calls > routes.length * 10, `calls made: ${calls}`);
    assert.deepEqual(wrong, [], `${wrong.length} wrong grants:\n${wrong.join('\n')}`);
    // The other account's key still sees only its own checks: nothing crossed over.
    const theirs = await srv.request('GET', '/v1/public/checks', { key: otherKey });
    assert.ok(!theirs.text.includes(f.check), 'the other account lists none of these checks');
  });
});
