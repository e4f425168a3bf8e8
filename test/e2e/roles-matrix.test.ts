import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.js';
import { addMember, cookieOf, setupToken, withCookie, type AsMember } from '../helpers/people.js';
import { send } from '../helpers/server.js';
import { NO_PROBES } from './util.js';

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

let seq = 0;
const unique = () => `${process.pid}-${++seq}`;

describe('the roles matrix (issue 28)', () => {
  let srv: TestServer;
  const as = {} as Record<Role, AsMember>;
  const cookies = {} as Record<Role, string>;
  let checkIds: string[] = [];

  before(async () => {
    srv = await startServer({}, undefined, NO_PROBES);
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
