import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, send, type TestServer } from '../helpers/server.js';
import { startSmtpSink, type SmtpSink } from '../helpers/fixtures/oauth-smtp-sink.js';
import { waitFor } from '../helpers/fixtures/probe-task.js';
import { NO_PROBES, assertError } from './util.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An assertion as a browser would send it, for a challenge; no authenticator signed it. */
function forgedAssertion(challenge: string, origin: string, credentialId = 'AAAA') {
  return {
    id: credentialId, rawId: credentialId, type: 'public-key', clientExtensionResults: {},
    response: { clientDataJSON: b64({ type: 'webauthn.get', challenge, origin }), authenticatorData: 'AAAA', signature: 'AAAA' },
  };
}

async function loginLinkCookie(srv: TestServer): Promise<string> {
  const link = await srv.app.services.people.sessions.createLoginLink(undefined);
  const res = await send(srv.url, '', 'POST', '/v1/public/sessions', { key: null, body: { loginToken: new URL(link.url).hash.slice('#login='.length) } });
  return /^(vigil_session=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]!;
}

describe('passkeys over the API', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startServer({}, undefined, NO_PROBES);
  });
  after(async () => srv?.stop());

  test('sign-in options: a fresh challenge, user verification required, no credential list (discoverable passkeys)', async () => {
    const a = await send(srv.url, '', 'POST', '/v1/public/sessions/passkey/options', { key: null });
    const b = await send(srv.url, '', 'POST', '/v1/public/sessions/passkey/options', { key: null });
    assert.equal(a.status, 200);
    assert.equal(a.body.data.rpId, 'localhost', 'the RP ID is the public URL\'s host name');
    assert.equal(a.body.data.userVerification, 'required');
    assert.equal(a.body.data.allowCredentials, undefined);
    assert.notEqual(a.body.data.challenge, b.body.data.challenge);
  });

  test('an assertion for an unknown challenge, a used one or an unknown passkey opens nothing', async () => {
    const origin = srv.app.config.publicUrl;
    const unknown = await send(srv.url, '', 'POST', '/v1/public/sessions/passkey', { key: null, body: { response: forgedAssertion('bm90LWEtY2hhbGxlbmdl', origin) } });
    assertError(unknown, 401, /not registered here/);
    const { body } = await send(srv.url, '', 'POST', '/v1/public/sessions/passkey/options', { key: null });
    const forged = await send(srv.url, '', 'POST', '/v1/public/sessions/passkey', { key: null, body: { response: forgedAssertion(body.data.challenge, origin) } });
    assertError(forged, 401, /not registered here/);
    assert.equal(forged.headers.get('set-cookie'), null);
  });

  test('a body that is no WebAuthn response is a 400 naming the field', async () => {
    const res = await send(srv.url, '', 'POST', '/v1/public/sessions/passkey', { key: null, body: { response: { id: 'x' } } });
    assertError(res, 400, /response/);
  });

  test('passkeys belong to people: an API key may not list or register them', async () => {
    assertError(await srv.request('GET', '/v1/public/passkeys'), 403, /sign in to the dashboard as yourself/);
    assertError(await srv.request('POST', '/v1/public/passkeys/options'), 403, /sign in to the dashboard as yourself/);
  });

  test("a member's registration options exclude the passkeys they have; a sign-in challenge cannot register one", async () => {
    const cookie = await loginLinkCookie(srv);
    const origin = srv.app.config.publicUrl;
    const headers = { cookie, origin };
    const list = await send(srv.url, '', 'GET', '/v1/public/passkeys', { key: null, headers });
    assert.deepEqual(list.body.data, []);
    const opts = await send(srv.url, '', 'POST', '/v1/public/passkeys/options', { key: null, headers });
    assert.equal(opts.status, 200);
    assert.equal(opts.body.data.rp.id, 'localhost');
    assert.deepEqual(opts.body.data.authenticatorSelection, { residentKey: 'required', userVerification: 'required', requireResidentKey: true });
    assert.equal(opts.body.data.attestation, 'none');

    const signIn = await send(srv.url, '', 'POST', '/v1/public/sessions/passkey/options', { key: null });
    const attestation = {
      id: 'AAAA', rawId: 'AAAA', type: 'public-key', clientExtensionResults: {},
      response: { clientDataJSON: b64({ type: 'webauthn.create', challenge: signIn.body.data.challenge, origin }), attestationObject: 'AAAA' },
    };
    const res = await send(srv.url, '', 'POST', '/v1/public/passkeys', { key: null, headers, body: { name: 'mine', response: attestation } });
    assertError(res, 400, /unknown, used or expired/);
    assertError(await send(srv.url, '', 'DELETE', '/v1/public/passkeys/pk_nope', { key: null, headers }), 404, /No passkey pk_nope/);
  });
  // Last: it uses up this address's allowance.
  test('one client address starts at most 30 passkey sign-ins a minute', async () => {
    let refused: Awaited<ReturnType<typeof send>> | null = null;
    for (let i = 0; i < 40 && !refused; i++) {
      const res = await send(srv.url, '', 'POST', '/v1/public/sessions/passkey/options', { key: null });
      if (res.status === 429) refused = res;
      else assert.equal(res.status, 200);
    }
    assert.ok(refused, 'refused within 40');
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
  });
});

describe('email sign-in links', () => {
  let srv: TestServer;
  let smtp: SmtpSink;
  before(async () => {
    smtp = await startSmtpSink();
    srv = await startServer({ smtp: { url: smtp.url } }, undefined, NO_PROBES);
  });
  after(async () => {
    await srv?.stop();
    await smtp?.close();
  });

  const ask = (email: string) => send(srv.url, '', 'POST', '/v1/public/sessions/email-link', { key: null, body: { email } });

  test('a member gets a one-time link that signs in; anyone else gets the same answer and no mail', async () => {
    const methods = await send(srv.url, '', 'GET', '/v1/public/sessions/methods', { key: null });
    assert.equal(methods.body.data.emailLink, true);
    const stranger = await ask('nobody@example.com');
    const member = await ask('Admin@localhost');
    assert.equal(stranger.status, 202);
    assert.deepEqual(stranger.body, member.body);
    await waitFor(() => smtp.messages.length >= 1, 'the sign-in mail');
    assert.equal(smtp.messages.length, 1);
    assert.deepEqual(smtp.messages[0]!.to, ['admin@localhost']);
    const token = /#email-login=(ve_[\w-]+)/.exec(smtp.messages[0]!.decoded)![1]!;
    const redeem = () => send(srv.url, '', 'POST', '/v1/public/sessions/email-link/redeem', { key: null, body: { token } });
    const first = await redeem();
    assert.equal(first.status, 201);
    assert.equal(first.body.data.user.email, 'admin@localhost');
    assert.match(first.headers.get('set-cookie') ?? '', /^vigil_session=vs_/);
    assertError(await redeem(), 400, /already used/);
    const signIns = (await srv.request('GET', '/v1/public/audit-log?action=session.sign_in')).body.data as Array<{ actor: { kind: string; id: string }; target: { name: string } }>;
    const byLink = signIns.filter((e) => e.target.name === 'email_link');
    assert.equal(byLink.length, 1, 'one session.sign_in entry naming the email link');
    assert.deepEqual(byLink[0]!.actor.kind, 'user');
    assert.equal(byLink[0]!.actor.id, first.body.data.user.id);
  });

  test('asking again and again for one address is refused for a while', async () => {
    const email = 'someone@example.com';
    for (let i = 0; i < 3; i++) assert.equal((await ask(email)).status, 202);
    const refused = await ask(email);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
  });

  test('without SMTP the way is not offered', async () => {
    const plain = await startServer({}, undefined, NO_PROBES);
    try {
      assertError(await send(plain.url, '', 'POST', '/v1/public/sessions/email-link', { key: null, body: { email: 'admin@localhost' } }), 404, /SMTP/);
    } finally {
      await plain.stop();
    }
  });
});
