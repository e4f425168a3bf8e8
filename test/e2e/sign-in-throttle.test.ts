import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, send, type TestResponse, type TestServer } from '../helpers/server.js';
import { addMember, cookieOf, signInWithPassword, withCookie } from '../helpers/people.js';
import { totpCode } from '../../src/people/totp-codes.js';
import { assertError, assertStatus, NO_PROBES } from './util.js';

const WRONG_PAIR = 'Email or password is wrong';

/** A 429 in the standard error shape, with a Retry-After of at most `maxSeconds`. */
function assertRefused(res: TestResponse, maxSeconds: number): void {
  assertError(res, 429);
  const retry = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= maxSeconds, `Retry-After ${res.headers.get('retry-after')}`);
}

async function failedSignIns(srv: TestServer, memberId: string): Promise<number> {
  const log = await srv.request('GET', `/v1/public/audit-log?actor=${memberId}&action=session.sign_in_failed&limit=100`);
  assertStatus(log, 200);
  return log.body.data.length;
}

describe('sign-in cannot be outrun (issue 34)', () => {
  let srv: TestServer;
  before(async () => {
    // The documented defaults: 10 per member, 50 per address, 15 minutes.
    srv = await startServer({}, undefined, NO_PROBES);
  });
  after(() => srv.stop());

  test('50 concurrent wrong passwords: 10 are checked, 40 refused with 429, and the member is locked', async () => {
    const m = await addMember(srv, 'editor');
    const burst = await Promise.all(Array.from({ length: 50 }, (_, i) => signInWithPassword(srv, m.email, `wrong guess number ${i}`)));
    const checked = burst.filter((r) => r.status === 401);
    const refused = burst.filter((r) => r.status === 429);
    assert.equal(checked.length, 10, `statuses: ${burst.map((r) => r.status).join(',')}`);
    assert.equal(refused.length, 40);
    for (const r of checked) assertError(r, 401, WRONG_PAIR);
    for (const r of refused) assertRefused(r, 15 * 60);
    assert.equal(await failedSignIns(srv, m.id), 10, 'one failed sign-in recorded per password checked');
    // Locked: the right password is refused too, without being checked.
    assertRefused(await signInWithPassword(srv, m.email, m.password), 15 * 60);
    assert.equal(await failedSignIns(srv, m.id), 10);
    // The member's session from before is untouched: the lock is on guessing, not on them.
    assertStatus(await m.as('GET', '/v1/public/sessions/current'), 200);
  });
});

describe('proving it is you again is counted like a sign-in (issue 34)', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startServer({ auth: { signIn: { slowAfterFailures: 100, lockAfterFailures: 3, addressLockAfterFailures: 1000, windowMinutes: 15 } } }, undefined, NO_PROBES);
  });
  after(() => srv.stop());

  test('/me/password: wrong current passwords are refused with 429 after the limit, the right one too; sign-in is locked with it', async () => {
    const m = await addMember(srv, 'editor');
    const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => m.as('POST', '/v1/public/me/password', { currentPassword: `wrong current ${i}`, newPassword: 'what I would like' })));
    assert.deepEqual(burst.map((r) => r.status).sort(), [403, 403, 403, 429, 429, 429, 429, 429]);
    for (const r of burst.filter((x) => x.status === 429)) assertRefused(r, 15 * 60);
    assertRefused(await m.as('POST', '/v1/public/me/password', { currentPassword: m.password, newPassword: 'what I would like' }), 15 * 60);
    assertRefused(await signInWithPassword(srv, m.email, m.password), 15 * 60);
    // Nothing changed: the old password is still the one (checked once the window passes).
  });

  test('a password change ends the member\'s other sessions, not the current one', async () => {
    const m = await addMember(srv, 'viewer');
    const other = withCookie(srv, cookieOf(await signInWithPassword(srv, m.email, m.password)));
    const third = withCookie(srv, cookieOf(await signInWithPassword(srv, m.email, m.password)));
    assertStatus(await other('GET', '/v1/public/sessions/current'), 200);
    assertStatus(await m.as('POST', '/v1/public/me/password', { currentPassword: m.password, newPassword: 'a fresh long password' }), 204);
    assertError(await other('GET', '/v1/public/sessions/current'), 401);
    assertError(await third('GET', '/v1/public/checks'), 401);
    assertStatus(await m.as('GET', '/v1/public/sessions/current'), 200);
    const listed = await m.as('GET', '/v1/public/sessions');
    assert.deepEqual(listed.body.data.map((s: { current: boolean }) => s.current), [true], 'only the current session is left');
    assertStatus(await signInWithPassword(srv, m.email, 'a fresh long password'), 201);
  });

  test('/me/password: a right current password gives its attempt back', async () => {
    const m = await addMember(srv, 'viewer');
    let password = m.password;
    for (let i = 0; i < 5; i++) {
      const next = `the next password ${i}`;
      assertStatus(await m.as('POST', '/v1/public/me/password', { currentPassword: password, newPassword: next }), 204);
      password = next;
    }
  });

  test('/me/totp/disable: wrong passwords and codes are refused with 429 after the limit', async () => {
    const m = await addMember(srv, 'editor');
    const { secret } = (await m.as('POST', '/v1/public/me/totp')).body.data;
    assertStatus(await m.as('POST', '/v1/public/me/totp/confirm', { code: totpCode(secret, Date.now()) }), 200);
    const wrongCode = totpCode(secret, Date.now()) === '000000' ? '111111' : '000000';
    assertError(await m.as('POST', '/v1/public/me/totp/disable', { password: 'not my password' }), 403);
    assertError(await m.as('POST', '/v1/public/me/totp/disable', { code: wrongCode }), 403);
    assertError(await m.as('POST', '/v1/public/me/totp/disable', { password: 'nor this one' }), 403);
    assertRefused(await m.as('POST', '/v1/public/me/totp/disable', { password: m.password }), 15 * 60);
    assert.deepEqual((await m.as('GET', '/v1/public/me/totp')).body.data.enabled, true, 'still on');
  });

  test('TOTP at sign-in: wrong codes count; asking without a code does not reset the count', async () => {
    const m = await addMember(srv, 'viewer');
    const { secret } = (await m.as('POST', '/v1/public/me/totp')).body.data;
    assertStatus(await m.as('POST', '/v1/public/me/totp/confirm', { code: totpCode(secret, Date.now()) }), 200);
    const wrongCode = totpCode(secret, Date.now()) === '000000' ? '111111' : '000000';
    for (let i = 0; i < 3; i++) {
      assertError(await signInWithPassword(srv, m.email, m.password, wrongCode), 401, 'TOTP');
      if (i < 2) assertError(await signInWithPassword(srv, m.email, m.password), 401, 'send totp');
    }
    assertRefused(await signInWithPassword(srv, m.email, m.password, 'ABCD-EFGH-JKLM'), 15 * 60);
  });
});

describe('unauthenticated routes have a per-address budget (issue 34)', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startServer({ server: { trustProxy: true }, rateLimits: { perAddressPerMinute: 3 } }, undefined, NO_PROBES);
  });
  after(() => srv.stop());

  const from = (address: string) => ({ key: null, headers: { 'x-forwarded-for': address } });

  test('the fourth request of an address in a minute is a 429 with Retry-After, on every such route, in its error shape', async () => {
    for (let i = 0; i < 3; i++) {
      assertError(await send(srv.url, '', 'POST', '/v1/public/sessions', { ...from('203.0.113.7'), body: { email: 'nobody@example.com', password: 'whatever it is' } }), 401);
    }
    const refused = await send(srv.url, '', 'POST', '/v1/public/sessions', { ...from('203.0.113.7'), body: { email: 'nobody@example.com', password: 'whatever it is' } });
    assertRefused(refused, 60);
    assert.equal(refused.headers.get('ratelimit-remaining'), '0');
    assertRefused(await send(srv.url, '', 'POST', '/v1/public/sessions/passkey/options', from('203.0.113.7')), 60);
    assertRefused(await send(srv.url, '', 'POST', '/v1/public/sessions/email-link', { ...from('203.0.113.7'), body: { email: 'a@example.com' } }), 60);
    assertRefused(await send(srv.url, '', 'GET', '/claim/not-a-token', from('203.0.113.7')), 60);
    // The OAuth routes answer in RFC 6749's shape.
    const token = await send(srv.url, '', 'POST', '/oauth/token', {
      ...from('203.0.113.7'), rawBody: 'grant_type=refresh_token&refresh_token=x', headers: { 'x-forwarded-for': '203.0.113.7', 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(token.status, 429);
    assert.equal(token.body.error, 'temporarily_unavailable');
    assert.ok(Number(token.headers.get('retry-after')) >= 1);
  });

  test('another address (as the trusted proxy tells it) has its own budget; a forged entry before the proxy\'s does not help', async () => {
    const signIn = (forwardedFor: string) => send(srv.url, '', 'POST', '/v1/public/sessions', {
      key: null, headers: { 'x-forwarded-for': forwardedFor }, body: { email: 'nobody@example.com', password: 'whatever it is' },
    });
    assertError(await signIn('198.51.100.9'), 401);
    assertRefused(await signIn('198.51.100.9, 203.0.113.7'), 60);
  });

  test('routes that are not per-address are not counted: the sign-in methods, discovery', async () => {
    for (let i = 0; i < 5; i++) assertStatus(await send(srv.url, '', 'GET', '/v1/public/sessions/methods', from('203.0.113.7')), 200);
    assertStatus(await send(srv.url, '', 'GET', '/.well-known/oauth-authorization-server', from('203.0.113.7')), 200);
  });
});
