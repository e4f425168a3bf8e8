import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { agentEmail, assertOAuthError, fakeMailDns, postSignup, signUp } from '../helpers/fixtures/oauth-client.js';
import { NO_PROBES } from './util.js';

/** POST {app_url}/oauth/agent-signup (spec 2.11, 4.11, 7; decisions §9). */

const SCOPE = 'checks:read checks:write alerts:read alerts:write';
const DAY = 24 * 60 * 60 * 1000;

describe('agent signup', () => {
  const clock = new ManualClock(Date.UTC(2026, 2, 10, 9, 0, 0));
  const dns = fakeMailDns({
    'null-mx.example.org': 'null-mx',
    'gone.example.org': 'nxdomain',
    'web-only.example.org': 'a-only',
    'flaky.example.org': 'servfail',
  });
  let server: TestServer;

  before(async () => {
    server = await startServer({ signup: { dailyLimit: 1000 } }, clock, { ...NO_PROBES, mailDomainResolver: dns });
  });
  after(() => server.stop());

  test('201 with every field of spec 2.11', async () => {
    const email = agentEmail('Shape');
    const res = await postSignup(server, { email, agent_name: 'Deploy Bot' });
    assert.equal(res.status, 201, res.text);
    const b = res.body;
    assert.deepEqual(
      Object.keys(b).sort(),
      ['access_token', 'account', 'api_base', 'expires_in', 'mcp_url', 'next_steps', 'refresh_token', 'scope', 'token_type'],
    );
    assert.match(b.access_token, /^vigil_at_[0-9a-f]{64}$/);
    assert.match(b.refresh_token, /^vigil_rt_[0-9a-f]{64}$/);
    assert.equal(b.token_type, 'Bearer');
    assert.equal(b.expires_in, 30 * 24 * 60 * 60);
    assert.equal(b.scope, SCOPE);
    assert.deepEqual(b.account, { email: email.toLowerCase(), status: 'unclaimed', claim_email_sent: false });
    const publicUrl = server.app.config.publicUrl;
    assert.equal(b.mcp_url, `${publicUrl}/mcp/v1`);
    assert.equal(b.api_base, `${publicUrl}/v1`);
    assert.equal(typeof b.next_steps, 'string');
    for (const part of [`${publicUrl}/v1/public/checks`, 'Idempotency-Key', 'Authorization: Bearer', `${publicUrl}/oauth/token`, 'claim']) {
      assert.ok(b.next_steps.includes(part), `next_steps mentions ${part}: ${b.next_steps}`);
    }
    assert.equal(res.headers.get('cache-control'), 'no-store', 'tokens are never cached');
  });

  test('the account is free-tier and unclaimed; the tokens work at once', async () => {
    const session = await signUp(server);
    const res = await server.request('GET', '/v1/public/account', { key: null, headers: { authorization: `Bearer ${session.accessToken}` } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.tier, 'free');
    assert.equal(res.body.data.claimed, false);
    assert.equal(typeof res.body.data.claimHint, 'string');
    assert.equal(res.body.data.key, null);
    assert.deepEqual(res.body.data.scopes, SCOPE.split(' '));
    const account = await server.app.store.accounts.byEmail(session.email);
    assert.equal(account?.claimed, false);
  });

  test('agent_name is optional', async () => {
    const res = await postSignup(server, { email: agentEmail() });
    assert.equal(res.status, 201, res.text);
  });

  test('unknown fields are ignored (RFC 6749 §3.2)', async () => {
    const res = await postSignup(server, { email: agentEmail(), client_id: 'x' });
    assert.equal(res.status, 201, res.text);
  });

  describe('400 invalid_request', () => {
    const cases: Array<[string, unknown]> = [
      ['no email', {}],
      ['empty body', ''],
      ['email not a string', { email: 42 }],
      ['email without @', { email: 'nobody.example.com' }],
      ['email without a domain dot', { email: 'root@localhost' }],
      ['email with a space', { email: 'a b@example.com' }],
      ['email with two @', { email: 'a@b@example.com' }],
      ['email longer than 254', { email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com` }],
      ['agent_name over 60 characters', { email: agentEmail(), agent_name: 'x'.repeat(61) }],
      ['agent_name not a string', { email: agentEmail(), agent_name: 7 }],
      ['agent_name with a line break', { email: agentEmail(), agent_name: 'Bot\nBcc: everyone' }],
      ['body not JSON', '{"email": '],
      ['body a JSON array', '[]'],
    ];
    for (const [what, body] of cases) {
      test(what, async () => assertOAuthError(await postSignup(server, body), 400, 'invalid_request'));
    }

    test('agent_name of 60 characters (emoji count as one) is accepted', async () => {
      const res = await postSignup(server, { email: agentEmail(), agent_name: '🤖'.repeat(60) });
      assert.equal(res.status, 201, res.text);
    });
  });

  describe('cannot receive mail (decisions §9)', () => {
    test('a null MX rejects', async () => {
      const res = await postSignup(server, { email: 'someone@null-mx.example.org' });
      assertOAuthError(res, 400, 'invalid_request');
      assert.match(res.body.error_description, /cannot receive mail/);
    });

    test('no MX and no A/AAAA (the domain does not exist) rejects', async () => {
      assertOAuthError(await postSignup(server, { email: 'someone@gone.example.org' }), 400, 'invalid_request');
    });

    test('no MX but an A record is accepted (RFC 5321 fallback)', async () => {
      const res = await postSignup(server, { email: 'someone@web-only.example.org' });
      assert.equal(res.status, 201, res.text);
    });

    test('a DNS failure that is not an answer does not reject', async () => {
      const res = await postSignup(server, { email: 'someone@flaky.example.org' });
      assert.equal(res.status, 201, res.text);
    });

    test('nothing is created by a rejected signup', async () => {
      assert.equal((await server.app.store.accounts.byEmail('someone@null-mx.example.org')), null);
      assert.equal((await server.app.store.accounts.byEmail('someone@gone.example.org')), null);
    });
  });

  describe('409 account_exists', () => {
    test('an address that already has an account, in any case', async () => {
      const session = await signUp(server);
      assertOAuthError(await postSignup(server, { email: session.email.toUpperCase() }), 409, 'account_exists');
    });

    test('an account created another way (CLI) counts too', async () => {
      const email = agentEmail('cli');
      await server.app.services.accounts.accounts.createAccount(email);
      assertOAuthError(await postSignup(server, { email }), 409, 'account_exists');
    });
  });
});

describe('signup switches', () => {
  test('verifyEmailDomain false: no DNS lookup at all', async () => {
    const dns = fakeMailDns({ 'gone.example.org': 'nxdomain' });
    const server = await startServer({ signup: { verifyEmailDomain: false } }, undefined, { ...NO_PROBES, mailDomainResolver: dns });
    try {
      const res = await postSignup(server, { email: 'someone@gone.example.org' });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(dns.lookups, []);
    } finally {
      await server.stop();
    }
  });

  test('503 temporarily_unavailable when signups are switched off; nothing is created', async () => {
    const server = await startServer({ signup: { enabled: false } }, undefined, { ...NO_PROBES, mailDomainResolver: fakeMailDns() });
    try {
      const email = agentEmail();
      assertOAuthError(await postSignup(server, { email }), 503, 'temporarily_unavailable');
      assert.equal((await server.app.store.accounts.byEmail(email)), null);
    } finally {
      await server.stop();
    }
  });

  test('429 temporarily_unavailable past signup.dailyLimit, with Retry-After; the next UTC day opens again', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 10, 23, 0, 0));
    const server = await startServer({ signup: { dailyLimit: 2 } }, clock, { ...NO_PROBES, mailDomainResolver: fakeMailDns() });
    try {
      await signUp(server);
      await signUp(server);
      const email = agentEmail();
      const refused = await postSignup(server, { email });
      assertOAuthError(refused, 429, 'temporarily_unavailable');
      assert.equal(refused.headers.get('retry-after'), String(60 * 60), 'seconds until midnight UTC');
      assert.equal(refused.headers.get('ratelimit-limit'), '2');
      assert.equal(refused.headers.get('ratelimit-remaining'), '0');
      assert.equal((await server.app.store.accounts.byEmail(email)), null);
      assertOAuthError(await postSignup(server, { email: 'bad' }), 400, 'invalid_request');

      clock.advance(DAY / 24);
      const res = await postSignup(server, { email });
      assert.equal(res.status, 201, res.text);
    } finally {
      await server.stop();
    }
  });
});
