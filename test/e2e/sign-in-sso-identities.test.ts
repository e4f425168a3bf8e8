import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.js';
import { startOidcProvider, type TestIdentity, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { addMember, signInWithPassword, withCookie, type AsMember } from '../helpers/people.js';
import { CookieJar, walkSso, type SsoOutcome } from '../helpers/sso-driver.js';
import { NO_PROBES } from './util.js';

interface AuditRow {
  action: string;
  actor: { kind: string; id: string; name: string };
  target: { kind: string; id: string | null; name: string | null };
  fields: string[];
}

/**
 * Single sign-on bound to the provider's (issuer, sub), not to the email (issue 34 item 3),
 * against a real OpenID provider: what an attacker who chooses their address at the provider
 * tries, on the owner first.
 */
describe('single sign-on identities: bound to (issuer, sub)', () => {
  const ada: TestIdentity = { login: 'ada', email: 'admin@localhost', name: 'Ada' };
  let provider: TestOidcProvider;
  let srv: TestServer;

  before(async () => {
    provider = await startOidcProvider([
      ada,
      // The owner's address, which the provider does not vouch for: the claim left out, and the string "false".
      { login: 'absent', email: 'admin@localhost', emailVerified: null },
      { login: 'stringly', email: 'admin@localhost', emailVerified: 'false' },
      // Another account at the provider that says it verified the owner's address.
      { login: 'impostor', email: 'admin@localhost' },
      { login: 'ivy', email: 'Ivy@Example.org', name: 'Ivy' },
      // A member's own account at the provider, under an address the provider does not vouch for.
      { login: 'lee-idp', email: 'lee@personal.test', emailVerified: null },
    ]);
    srv = await startServer({ auth: { oidc: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret } } }, undefined, NO_PROBES);
    provider.serve(`${srv.app.config.publicUrl}/v1/auth/oidc/callback`);
  });
  after(async () => {
    await srv?.stop();
    await provider?.stop();
  });

  const walk = (login: string) => walkSso(srv.app.config.publicUrl, provider, login);
  const sessionOf = (out: SsoOutcome) => out.jar.get(srv.app.config.publicUrl, 'vigil_session');
  const asMember = (out: SsoOutcome): AsMember => {
    const cookie = sessionOf(out);
    assert.ok(cookie, `signed in: ${decodeURIComponent(out.location)}`);
    return withCookie(srv, `vigil_session=${cookie}`);
  };
  const audit = async (action: string): Promise<AuditRow[]> => {
    const res = await srv.request('GET', `/v1/public/audit-log?action=${action}&limit=100`);
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  };
  const refusals = async () => (await audit('session.sign_in_failed')).filter((e) => e.target.name === 'oidc').map((e) => [e.actor.name, e.fields]);
  const ownerId = async () => (await srv.request('GET', '/v1/public/members')).body.data.find((m: { email: string }) => m.email === 'admin@localhost').id as string;

  test("an unverified address is refused before any binding, absent or the string \"false\", and the owner's log says so", async () => {
    for (const login of ['absent', 'stringly']) {
      const out = await walk(login);
      assert.match(decodeURIComponent(out.location), /#sso-error=The identity provider has not verified admin@localhost/, login);
      assert.equal(sessionOf(out), undefined, login);
    }
    assert.deepEqual(await refusals(), [['admin@localhost', ['email_verified']], ['admin@localhost', ['email_verified']]]);
    assert.deepEqual(await audit('member.identity_link'), [], 'nothing was bound');
  });

  test("the owner's first sign-in binds their identity, listed on /me/identities and in the audit log", async () => {
    const me = asMember(await walk('ada'));
    const current = await me('GET', '/v1/public/sessions/current');
    assert.equal(current.body.data.user.email, 'admin@localhost');
    assert.equal(current.body.data.user.role, 'owner');
    const listed = await me('GET', '/v1/public/me/identities');
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.data.length, 1);
    const [identity] = listed.body.data;
    assert.match(identity.id, /^idn_/);
    assert.equal(identity.issuer, provider.issuer);
    assert.equal(identity.email, 'admin@localhost');
    assert.equal('subject' in identity, false, 'the subject is not shown');
    const links = await audit('member.identity_link');
    assert.deepEqual(links.map((e) => [e.actor.id, e.target.kind, e.target.id, e.target.name, e.fields]), [
      [await ownerId(), 'identity', identity.id, provider.issuer, ['issuer', 'subject']],
    ]);
  });

  test("another sub with the owner's verified address is refused once the owner is bound, and audited", async () => {
    const before = (await refusals()).length;
    const out = await walk('impostor');
    assert.match(decodeURIComponent(out.location), /#sso-error=admin@localhost signs in with another account at this identity provider/);
    assert.equal(sessionOf(out), undefined);
    const after = await refusals();
    assert.deepEqual(after.slice(0, after.length - before), [['admin@localhost', ['sub']]], 'newest first');
    assert.equal((await audit('member.identity_link')).length, 1, 'the impostor was not bound');
  });

  test('the same sub signs in after its address changed at the provider; the listing shows the new address', async () => {
    ada.email = 'ada@moved.example';
    try {
      const me = asMember(await walk('ada'));
      assert.equal((await me('GET', '/v1/public/sessions/current')).body.data.user.email, 'admin@localhost');
      const listed = (await me('GET', '/v1/public/me/identities')).body.data;
      assert.deepEqual(listed.map((i: { email: string }) => i.email), ['ada@moved.example']);
      assert.ok(listed[0].lastUsedAt >= listed[0].createdAt);
    } finally {
      ada.email = 'admin@localhost';
    }
  });

  test('an invited member accepting by single sign-on is bound at once', async () => {
    const invited = await srv.request('POST', '/v1/public/members', { body: { email: 'ivy@example.org', role: 'editor' } });
    assert.equal(invited.status, 201, invited.text);
    const me = asMember(await walk('ivy'));
    const current = (await me('GET', '/v1/public/sessions/current')).body.data.user;
    assert.deepEqual([current.id, current.role], [invited.body.data.id, 'editor']);
    const listed = (await me('GET', '/v1/public/me/identities')).body.data;
    assert.deepEqual(listed.map((i: { issuer: string; email: string }) => [i.issuer, i.email]), [[provider.issuer, 'ivy@example.org']]);
    const link = (await audit('member.identity_link')).find((e) => e.actor.id === invited.body.data.id);
    assert.equal(link?.target.id, listed[0].id);
  });

  test('identities are removed through the API: never the last way in, never by a key or another member; removal unbinds', async () => {
    const me = asMember(await walk('ada'));
    const [identity] = (await me('GET', '/v1/public/me/identities')).body.data;

    const byKey = await srv.request('GET', '/v1/public/me/identities');
    assert.equal(byKey.status, 403, 'identities belong to members, not keys');
    assert.equal((await srv.request('DELETE', `/v1/public/me/identities/${identity.id}`)).status, 403);

    const ivy = asMember(await walk('ivy'));
    const notIvys = await ivy('DELETE', `/v1/public/me/identities/${identity.id}`);
    assert.equal(notIvys.status, 404, "another member's identity is not found");
    assert.equal((await me('DELETE', '/v1/public/me/identities/idn_nothing')).status, 404);

    // The owner has no password and no passkey, and this server sends no email: it is their only way in.
    const only = await me('DELETE', `/v1/public/me/identities/${identity.id}`);
    assert.equal(only.status, 409, only.text);
    assert.equal(only.body.error.code, 409);
    assert.match(only.body.error.message, /only way to sign in/);
    assert.equal((await me('GET', '/v1/public/me/identities')).body.data.length, 1, 'a refused removal changes nothing');

    assert.equal((await me('POST', '/v1/public/me/password', { newPassword: 'a long enough password' })).status, 204);
    const removed = await me('DELETE', `/v1/public/me/identities/${identity.id}`);
    assert.equal(removed.status, 204, removed.text);
    assert.deepEqual((await me('GET', '/v1/public/me/identities')).body.data, []);
    const entry = (await audit('member.identity_remove'))[0];
    assert.deepEqual([entry?.actor.id, entry?.target.id, entry?.target.name], [await ownerId(), identity.id, provider.issuer]);

    // The password still signs in; the provider's verified address links again at the next sign-in.
    assert.equal((await signInWithPassword(srv, 'admin@localhost', 'a long enough password')).status, 201);
    const again = asMember(await walk('ada'));
    const relinked = (await again('GET', '/v1/public/me/identities')).body.data;
    assert.equal(relinked.length, 1);
    assert.notEqual(relinked[0].id, identity.id);
  });

  test('a member signed in another way links their account at the provider from the Security page, whatever its address', async () => {
    const lee = await addMember(srv, 'editor');
    const startLink = async (cookie: string) => {
      const res = await fetch(`${srv.url}/v1/public/me/identities/link`, { method: 'POST', headers: { cookie, origin: srv.app.config.publicUrl } });
      const jar = new CookieJar();
      jar.take(srv.app.config.publicUrl, res);
      return { res, body: await res.json() as { data: { location: string }; error: { message: string } }, jar };
    };
    assert.equal((await srv.request('POST', '/v1/public/me/identities/link')).status, 403, 'a key links nothing');

    const started = await startLink(lee.cookie);
    assert.equal(started.res.status, 200);
    assert.ok(started.body.data.location.startsWith(provider.issuer), started.body.data.location);
    assert.ok(started.jar.get(srv.app.config.publicUrl, 'vigil_sso'), 'the flow cookie is set');
    const linked = await walkSso(srv.app.config.publicUrl, provider, 'lee-idp', { start: started.body.data.location, jar: started.jar });
    assert.equal(linked.location, `${srv.app.config.dashboardUrl}#/security/linked`);
    assert.equal(sessionOf(linked), undefined, 'a link opens no new session');
    const listed = (await lee.as('GET', '/v1/public/me/identities')).body.data;
    assert.deepEqual(listed.map((i: { issuer: string; email: string }) => [i.issuer, i.email]), [[provider.issuer, 'lee@personal.test']]);
    assert.ok((await audit('member.identity_link')).some((e) => e.actor.id === lee.id));

    // From now on the provider's account signs Lee in, though it never vouched for the address.
    const me = asMember(await walk('lee-idp'));
    assert.equal((await me('GET', '/v1/public/sessions/current')).body.data.user.id, lee.id);

    const again = await startLink(lee.cookie);
    assert.equal(again.res.status, 409);
    assert.match(again.body.error.message, /linked already/);

    // Another member cannot take the owner's account at the provider by linking it.
    const kim = await addMember(srv, 'viewer');
    const stolen = await startLink(kim.cookie);
    const refused = await walkSso(srv.app.config.publicUrl, provider, 'ada', { start: stolen.body.data.location, jar: stolen.jar });
    assert.match(decodeURIComponent(refused.location), /#\/security\/link-error=This account at the identity provider is linked to another member/);
    assert.deepEqual((await kim.as('GET', '/v1/public/me/identities')).body.data, []);
    assert.equal((await asMember(await walk('ada'))('GET', '/v1/public/sessions/current')).body.data.user.email, 'admin@localhost');
  });
});

describe('single sign-on identities: an operator who trusts unverified addresses', () => {
  let provider: TestOidcProvider;
  let srv: TestServer;

  before(async () => {
    provider = await startOidcProvider([
      { login: 'una', email: 'una@example.org', emailVerified: null },
      { login: 'stringly', email: 'admin@localhost', emailVerified: 'false' },
      { login: 'rae-1', email: 'rae@example.org' },
      { login: 'rae-2', email: 'rae@example.org' },
    ]);
    srv = await startServer({
      auth: { oidc: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, trustUnverifiedEmail: true } },
    }, undefined, NO_PROBES);
    provider.serve(`${srv.app.config.publicUrl}/v1/auth/oidc/callback`);
  });
  after(async () => {
    await srv?.stop();
    await provider?.stop();
  });

  test('trustUnverifiedEmail: true lets an unverified address link its member, who is bound from then on', async () => {
    const invited = await srv.request('POST', '/v1/public/members', { body: { email: 'una@example.org', role: 'viewer' } });
    assert.equal(invited.status, 201, invited.text);
    const out = await walkSso(srv.app.config.publicUrl, provider, 'una');
    const cookie = out.jar.get(srv.app.config.publicUrl, 'vigil_session');
    assert.ok(cookie, decodeURIComponent(out.location));
    const una = withCookie(srv, `vigil_session=${cookie}`);
    assert.equal((await una('GET', '/v1/public/sessions/current')).body.data.user.id, invited.body.data.id);
    assert.equal((await una('GET', '/v1/public/me/identities')).body.data.length, 1);

    const owner = await walkSso(srv.app.config.publicUrl, provider, 'stringly');
    assert.ok(owner.jar.get(srv.app.config.publicUrl, 'vigil_session'), 'the string "false" counts as unverified, which this operator trusts');
  });

  test('two accounts at the provider with one address, signing in at once: one is bound, the other refused', async () => {
    const invited = await srv.request('POST', '/v1/public/members', { body: { email: 'rae@example.org', role: 'viewer' } });
    assert.equal(invited.status, 201, invited.text);
    const outs = await Promise.all(['rae-1', 'rae-2'].map((login) => walkSso(srv.app.config.publicUrl, provider, login)));
    const signedIn = outs.filter((o) => o.jar.get(srv.app.config.publicUrl, 'vigil_session') !== undefined);
    assert.equal(signedIn.length, 1, outs.map((o) => decodeURIComponent(o.location)).join(' | '));
    const identities = await srv.app.store.identities.listForUser(invited.body.data.id);
    assert.equal(identities.length, 1);
    const refused = (await srv.request('GET', '/v1/public/audit-log?action=session.sign_in_failed')).body.data
      .filter((e: { actor: { id: string } }) => e.actor.id === invited.body.data.id);
    assert.deepEqual(refused.map((e: { fields: string[] }) => e.fields), [['sub']]);
  });
});

describe('single sign-on identities: configuration', () => {
  test('auth.oidc.trustUnverifiedEmail must be a boolean, and is off by default', async () => {
    const { loadConfig } = await import('../../src/config.js');
    assert.equal(loadConfig({ overrides: {}, warn: () => {} }).auth.oidc.trustUnverifiedEmail, false);
    assert.throws(() => loadConfig({ overrides: { auth: { oidc: { trustUnverifiedEmail: 'yes' } } }, warn: () => {} }), /auth\.oidc\.trustUnverifiedEmail must be a boolean/);
  });
});
