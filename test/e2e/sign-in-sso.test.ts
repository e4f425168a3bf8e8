import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, send, type TestServer } from '../helpers/server.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { CookieJar, walkSso } from '../helpers/sso-driver.js';
import { NO_PROBES } from './util.js';

/**
 * Single sign-on against a real OpenID provider (oidc-provider) on loopback: the whole code flow
 * with PKCE, state and nonce, walked with fetch as a browser would, and what must refuse it.
 */
describe('single sign-on with OpenID Connect', () => {
  let provider: TestOidcProvider;
  let srv: TestServer;

  before(async () => {
    provider = await startOidcProvider([
      { login: 'ada', email: 'admin@localhost', name: 'Ada' },
      { login: 'eve', email: 'eve@elsewhere.test' },
      { login: 'mallory', email: 'admin@localhost', emailVerified: false },
    ]);
    srv = await startServer({ auth: { oidc: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, name: 'Test IdP' } } }, undefined, NO_PROBES);
    provider.serve(`${srv.app.config.publicUrl}/v1/auth/oidc/callback`);
  });

  after(async () => {
    await srv?.stop();
    await provider?.stop();
  });

  // Vigil sends the provider its public URL (http://localhost:port), so the browser's cookies are that host's.
  const sessionOf = (jar: CookieJar) => jar.get(srv.app.config.publicUrl, 'vigil_session');
  const dashboard = () => srv.app.config.dashboardUrl;

  test('the sign-in page is told the provider', async () => {
    const res = await send(srv.url, '', 'GET', '/v1/public/sessions/methods', { key: null });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.oidc, { name: 'Test IdP', startUrl: '/v1/auth/oidc/start' });
  });

  test('a member signs in: the flow carries PKCE, state and nonce, and ends in a session on the route asked for', async () => {
    const out = await walkSso(srv.app.config.publicUrl, provider, 'ada', { start: `/v1/auth/oidc/start?return=${encodeURIComponent('#/keys')}` });
    const authorize = new URL(out.visited.find((u) => u.startsWith(provider.issuer))!);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    for (const p of ['code_challenge', 'state', 'nonce']) assert.ok((authorize.searchParams.get(p) ?? '').length >= 32, p);
    assert.equal(authorize.searchParams.get('redirect_uri'), `${srv.app.config.publicUrl}/v1/auth/oidc/callback`);
    assert.equal(out.location, `${dashboard()}#/keys`);
    const cookie = sessionOf(out.jar);
    assert.ok(cookie, 'a session cookie was set');
    const me = await send(srv.url, '', 'GET', '/v1/public/sessions/current', { key: null, headers: { cookie: `vigil_session=${cookie}` } });
    assert.equal(me.status, 200);
    assert.equal(me.body.data.account.email, 'admin@localhost');
    assert.equal(out.jar.get(srv.app.config.publicUrl, 'vigil_sso'), undefined, 'the flow cookie is cleared');
  });

  test('someone the provider knows but who is no member is refused when no role is given to newcomers', async () => {
    const out = await walkSso(srv.app.config.publicUrl, provider, 'eve');
    assert.match(decodeURIComponent(out.location), /#sso-error=eve@elsewhere\.test is not a member here/);
    assert.equal(sessionOf(out.jar), undefined);
  });

  test('an address the provider has not verified is refused', async () => {
    const out = await walkSso(srv.app.config.publicUrl, provider, 'mallory');
    assert.match(decodeURIComponent(out.location), /has not verified admin@localhost/);
    assert.equal(sessionOf(out.jar), undefined);
    // The member whose address it was learns of the try; a sign-in that works is recorded too.
    const failed = (await srv.request('GET', '/v1/public/audit-log?action=session.sign_in_failed')).body.data as Array<{ actor: { name: string }; target: { name: string } }>;
    assert.deepEqual(failed.map((e) => [e.actor.name, e.target.name]), [['admin@localhost', 'oidc']]);
    const signIns = (await srv.request('GET', '/v1/public/audit-log?action=session.sign_in')).body.data as Array<{ target: { name: string } }>;
    assert.ok(signIns.some((e) => e.target.name === 'oidc'), 'the member who signed in with single sign-on');
  });

  test('a return address outside the dashboard is ignored (no open redirect)', async () => {
    for (const evil of ['https://evil.example/', '//evil.example', '#/x"><script>', 'javascript:alert(1)']) {
      const out = await walkSso(srv.app.config.publicUrl, provider, 'ada', { start: `/v1/auth/oidc/start?return=${encodeURIComponent(evil)}` });
      assert.equal(out.location, `${dashboard()}#/`, evil);
    }
  });

  test('a callback in another browser, replayed, or with a changed state opens no session', async () => {
    // Another browser: the flow cookie is missing.
    let stolen: URL | null = null;
    const first = await walkSso(srv.app.config.publicUrl, provider, 'ada', {
      tamper: (callback) => {
        stolen = callback;
        return callback;
      },
    });
    assert.ok(sessionOf(first.jar));
    const elsewhere = await fetch(stolen!.href, { redirect: 'manual' });
    assert.equal(elsewhere.status, 302);
    assert.match(decodeURIComponent(elsewhere.headers.get('location')!), /expired or was started in another browser/);
    assert.equal(elsewhere.headers.getSetCookie().some((c) => c.startsWith('vigil_session=vs_')), false);

    // The same browser replaying its own callback: the flow was taken once.
    const replay = await fetch(stolen!.href, { redirect: 'manual', headers: { cookie: first.jar.header(srv.app.config.publicUrl) } });
    assert.match(decodeURIComponent(replay.headers.get('location')!), /expired or was started in another browser/);

    const changed = await walkSso(srv.app.config.publicUrl, provider, 'ada', {
      tamper: (callback) => {
        callback.searchParams.set('state', 'not-the-state');
        return callback;
      },
    });
    assert.match(decodeURIComponent(changed.location), /#sso-error=The identity provider's answer was not accepted/);
    assert.equal(sessionOf(changed.jar), undefined);
  });

  test('the provider saying no comes back as a message', async () => {
    const out = await walkSso(srv.app.config.publicUrl, provider, 'ada', {
      tamper: (callback) => new URL(`${callback.origin}${callback.pathname}?error=access_denied&error_description=nope&state=${callback.searchParams.get('state')}`),
    });
    assert.match(decodeURIComponent(out.location), /refused the sign-in: nope/);
  });
});

describe('single sign-on that admits newcomers', () => {
  let provider: TestOidcProvider;
  let srv: TestServer;

  before(async () => {
    provider = await startOidcProvider([
      { login: 'carol', email: 'Carol@Example.org', name: 'Carol' },
      { login: 'dave', email: 'dave@other.test' },
      { login: 'sneaky', email: 'ceo@example.org', emailVerified: null },
    ]);
    srv = await startServer({
      auth: { oidc: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, createRole: 'viewer', allowedDomains: ['example.org'] } },
    }, undefined, NO_PROBES);
    provider.serve(`${srv.app.config.publicUrl}/v1/auth/oidc/callback`);
  });
  after(async () => {
    await srv?.stop();
    await provider?.stop();
  });

  test('a person of an allowed domain becomes a member with createRole, once, and the audit log says so', async () => {
    const first = await walkSso(srv.app.config.publicUrl, provider, 'carol');
    assert.equal(first.location, `${srv.app.config.dashboardUrl}#/`);
    const cookie = `vigil_session=${first.jar.get(srv.app.config.publicUrl, 'vigil_session')}`;
    const me = await send(srv.url, '', 'GET', '/v1/public/sessions/current', { key: null, headers: { cookie } });
    assert.deepEqual({ email: me.body.data.user.email, role: me.body.data.user.role, name: me.body.data.user.name }, { email: 'carol@example.org', role: 'viewer', name: 'Carol' });
    const viewerCreate = await send(srv.url, '', 'POST', '/v1/public/checks', {
      key: null, headers: { cookie, origin: srv.app.config.publicUrl }, body: { url: 'https://example.org/', name: 'x' },
    });
    assert.equal(viewerCreate.status, 403, 'a viewer changes nothing');

    await walkSso(srv.app.config.publicUrl, provider, 'carol');
    const members = (await srv.request('GET', '/v1/public/members')).body.data.filter((m: { email: string }) => m.email === 'carol@example.org');
    assert.equal(members.length, 1, 'the second sign-in finds the member made by the first');

    const entries = await srv.app.store.audit.list({ accountId: me.body.data.account.id }, { limit: 50, beforeSeq: null });
    const created = entries.find((e) => e.action === 'member.create' && e.target.name === 'carol@example.org');
    assert.equal(created?.actor.kind, 'system');
    const signIns = entries.filter((e) => e.action === 'session.sign_in' && e.actor.id === me.body.data.user.id);
    assert.equal(signIns.length, 2);
    assert.equal(signIns[0]!.target.name, 'oidc');
  });

  test('an address of an allowed domain that the provider does not vouch for makes no member', async () => {
    const out = await walkSso(srv.app.config.publicUrl, provider, 'sneaky');
    assert.match(decodeURIComponent(out.location), /has not verified ceo@example\.org/);
    const members = (await srv.request('GET', '/v1/public/members')).body.data;
    assert.equal(members.some((m: { email: string }) => m.email === 'ceo@example.org'), false);
  });

  test('a domain not allowed is refused, and makes no member', async () => {
    const out = await walkSso(srv.app.config.publicUrl, provider, 'dave');
    assert.match(decodeURIComponent(out.location), /does not admit addresses at other\.test/);
    const members = (await srv.request('GET', '/v1/public/members')).body.data;
    assert.equal(members.some((m: { email: string }) => m.email === 'dave@other.test'), false);
  });
});

describe('single sign-on, not configured', () => {
  test('start says so on the sign-in page, and the methods list has no provider', async () => {
    const srv = await startServer({}, undefined, NO_PROBES);
    try {
      const res = await fetch(`${srv.url}/v1/auth/oidc/start`, { redirect: 'manual' });
      assert.equal(res.status, 302);
      assert.match(decodeURIComponent(res.headers.get('location')!), /#sso-error=Single sign-on is not configured/);
      const methods = await send(srv.url, '', 'GET', '/v1/public/sessions/methods', { key: null });
      assert.deepEqual(methods.body.data, { passkey: true, oidc: null, emailLink: false });
    } finally {
      await srv.stop();
    }
  });
});
