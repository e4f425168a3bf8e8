import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, send, type TestServer } from '../helpers/server.js';
import { addMember, cookieOf, setupToken, signInWithPassword, withCookie } from '../helpers/people.js';
import { totpCode } from '../../src/people/totp-codes.js';
import { assertError, assertStatus, NO_PROBES } from './util.js';
import { startSmtpSink, type SmtpSink } from '../helpers/fixtures/alerts-smtp.js';

const WRONG_PAIR = 'Email or password is wrong';

describe('members and roles (issue 28)', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startServer({}, undefined, NO_PROBES);
  });
  after(() => srv.stop());

  test("the first start's admin account has an owner, admin@localhost", async () => {
    const res = await srv.request('GET', '/v1/public/members');
    assertStatus(res, 200);
    assert.deepEqual(res.body.data.map((m: { email: string; role: string }) => [m.email, m.role]), [['admin@localhost', 'owner']]);
    assert.equal(res.body.data[0].password, false);
  });

  test('an invitation without SMTP answers with the set-up link; it sets a password once and signs the member in', async () => {
    const invited = await srv.request('POST', '/v1/public/members', { body: { email: 'Ed@Example.com', role: 'editor', name: 'Ed' } });
    assertStatus(invited, 201);
    const data = invited.body.data;
    assert.equal(data.email, 'ed@example.com');
    assert.equal(data.role, 'editor');
    assert.equal(data.invitation, 'link');
    assert.match(data.setupUrl, /\/dashboard#setup=vu_[\w-]{43}$/);
    assert.ok(Date.parse(data.setupExpiresAt) - Date.now() > 23 * 3600_000, 'valid for 24 hours');

    const short = await send(srv.url, '', 'POST', '/v1/public/password-setup', { key: null, body: { token: setupToken(data.setupUrl), password: 'short' } });
    assertError(short, 400, 'at least 10');
    const setup = await send(srv.url, '', 'POST', '/v1/public/password-setup', { key: null, body: { token: setupToken(data.setupUrl), password: 'a long enough password' } });
    assertStatus(setup, 201);
    assert.deepEqual(setup.body.data.user, { id: data.id, email: 'ed@example.com', name: 'Ed', role: 'editor' });
    assert.equal(setup.body.data.via, 'member');
    const again = await send(srv.url, '', 'POST', '/v1/public/password-setup', { key: null, body: { token: setupToken(data.setupUrl), password: 'another long password' } });
    assertError(again, 400, 'already used');

    const me = await withCookie(srv, cookieOf(setup))('GET', '/v1/public/sessions/current');
    assertStatus(me, 200);
    assert.equal(me.body.data.user.role, 'editor');
    assert.deepEqual(me.body.data.scopes, ['checks:read', 'checks:write', 'checks:delete', 'alerts:read']);
    // The session's real end, as its cookie says (issue 35: it read null for a member).
    const maxAge = Number(/Max-Age=(\d+)/.exec(setup.headers.get('set-cookie')!)![1]);
    assert.ok(me.body.data.expiresAt, 'a member\'s session has an end');
    assert.equal(me.body.data.expiresAt, setup.body.data.expiresAt);
    assert.ok(Math.abs(Date.parse(me.body.data.expiresAt) - (Date.now() + maxAge * 1000)) < 60_000, `${me.body.data.expiresAt} is the cookie's end`);

    const twice = await srv.request('POST', '/v1/public/members', { body: { email: 'ed@example.com', role: 'viewer' } });
    assertError(twice, 409, 'already a member');
  });

  test('password sign-in: one 401 message for an unknown email and a wrong password', async () => {
    const m = await addMember(srv, 'viewer');
    const ok = await signInWithPassword(srv, m.email.toUpperCase(), m.password);
    assertStatus(ok, 201);
    assert.match(ok.headers.get('set-cookie')!, /HttpOnly; SameSite=Strict/);
    assert.equal(ok.body.data.user.email, m.email);
    const wrong = await signInWithPassword(srv, m.email, 'not the password at all');
    assertError(wrong, 401, WRONG_PAIR);
    const unknown = await signInWithPassword(srv, 'nobody@example.com', m.password);
    assertError(unknown, 401, WRONG_PAIR);
    assert.equal(unknown.body.error.message, wrong.body.error.message);
    assertError(await send(srv.url, '', 'POST', '/v1/public/sessions', { key: null, body: { email: m.email } }), 400, 'password');
    assertError(await send(srv.url, '', 'POST', '/v1/public/sessions', { key: null, body: { email: m.email, password: 'x', apiKey: srv.adminKey } }), 400, 'exactly one');
  });

  test("every request of a session is authorised by the member's role, in the API and the tool server", async () => {
    const viewer = await addMember(srv, 'viewer');
    const editor = await addMember(srv, 'editor');
    const denied = await viewer.as('POST', '/v1/public/checks', { url: 'https://viewer.example.com', checkFrequency: 5 });
    assertError(denied, 403, 'The viewer role cannot do this');
    assertStatus(await viewer.as('GET', '/v1/public/checks'), 200);
    const created = await send(srv.url, '', 'POST', '/v1/public/checks', {
      key: null, body: { url: 'https://editor.example.com', checkFrequency: 5 }, headers: { cookie: editor.cookie, origin: srv.app.config.publicUrl },
    });
    assertStatus(created, 201);
    assertError(await editor.as('PATCH', '/v1/public/alerts/email', { recipients: ['x@example.com'] }), 403, 'The editor role');
    assertStatus(await editor.as('GET', '/v1/public/alerts/email'), 200);
    assertError(await editor.as('GET', '/v1/public/keys'), 403, 'The editor role cannot manage API keys');
    assertError(await editor.as('GET', '/v1/public/members'), 403, 'The editor role cannot list members');

    const call = await send(srv.url, '', 'POST', '/mcp/v1', {
      key: null,
      headers: { cookie: viewer.cookie, origin: srv.app.config.publicUrl, accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_check', arguments: { url: 'https://mcp-viewer.example.com', checkFrequency: 5, idempotencyKey: 'mcp-viewer-1' } } },
    });
    assertStatus(call, 200);
    assert.equal(call.body.result.isError, true, call.text);
    assert.match(JSON.stringify(call.body.result.content), /viewer role/);
  });

  test('a lowered role and a removal count from the next request', async () => {
    const m = await addMember(srv, 'editor');
    const body = { url: `https://lowered-${Date.now()}.example.com`, checkFrequency: 5 };
    const patch = await srv.request('PATCH', `/v1/public/members/${m.id}`, { body: { role: 'viewer' } });
    assertStatus(patch, 200);
    assert.equal(patch.body.data.role, 'viewer');
    assertError(await m.as('POST', '/v1/public/checks', body), 403, 'viewer role');
    assertStatus(await srv.request('DELETE', `/v1/public/members/${m.id}`), 204);
    assertError(await m.as('GET', '/v1/public/checks'), 401, 'Session has ended');
    assertError(await signInWithPassword(srv, m.email, m.password), 401, WRONG_PAIR);
    assertError(await srv.request('DELETE', `/v1/public/members/${m.id}`), 404);
  });

  test('only owners and admins manage members; nobody raises anyone above their own role; one owner stays', async () => {
    const admin = await addMember(srv, 'admin');
    const viewer = await addMember(srv, 'viewer');
    assertError(await viewer.as('POST', '/v1/public/members', { email: 'v2@example.com', role: 'viewer' }), 403, 'The viewer role cannot invite members');
    assertError(await admin.as('POST', '/v1/public/members', { email: 'o2@example.com', role: 'owner' }), 403, 'cannot make anyone owner');
    assertError(await admin.as('PATCH', `/v1/public/members/${viewer.id}`, { role: 'owner' }), 403, 'cannot make anyone owner');
    assertStatus(await admin.as('PATCH', `/v1/public/members/${viewer.id}`, { role: 'editor' }), 200);

    const list = await admin.as('GET', '/v1/public/members');
    const owner = list.body.data.find((m: { role: string }) => m.role === 'owner');
    assertError(await admin.as('PATCH', `/v1/public/members/${owner.id}`, { role: 'viewer' }), 403, 'cannot change the role of an owner');
    assertError(await admin.as('DELETE', `/v1/public/members/${owner.id}`), 403, 'cannot remove an owner');
    // The admin key counts as an admin too; the CLI is the way to the last owner.
    assertError(await srv.request('PATCH', `/v1/public/members/${owner.id}`, { body: { role: 'admin' } }), 403);

    // An owner may demote themselves only while another owner stays.
    const promoted = await srv.app.services.people.members.createUser({ account: owner.accountId, email: `owner-${Date.now()}@example.com`, role: 'owner' }, { kind: 'cli', id: 'cli', name: 'test' });
    await srv.app.services.people.members.removeUser(promoted.id, { kind: 'cli', id: 'cli', name: 'test' });
    await assert.rejects(srv.app.services.people.members.removeUser(owner.id, { kind: 'cli', id: 'cli', name: 'test' }), /keeps at least one owner/);
    assertError(await srv.request('PATCH', `/v1/public/members/${owner.id}`, { body: { role: 'owner' } }), 403);
    assertError(await srv.request('PATCH', '/v1/public/members/usr_nope', { body: { role: 'viewer' } }), 404);
    assertError(await srv.request('POST', '/v1/public/members', { body: { email: 'x@example.com', role: 'boss' } }), 400);
  });

  test("sessions are listed and ended by their member, and by owners and admins for their members", async () => {
    const m = await addMember(srv, 'viewer');
    const second = cookieOf(await signInWithPassword(srv, m.email, m.password));
    const listed = await m.as('GET', '/v1/public/sessions');
    assertStatus(listed, 200);
    assert.equal(listed.body.data.length, 2);
    const current = listed.body.data.find((s: { current: boolean }) => s.current);
    assert.equal(current.method, 'setup_link');
    const other = listed.body.data.find((s: { current: boolean }) => !s.current);
    assert.equal(other.method, 'password');
    assert.equal(other.address, '127.0.0.1');

    // The member ends their other session; it is refused from its next request.
    assertStatus(await m.as('DELETE', `/v1/public/sessions/${other.id}`), 204);
    assertError(await withCookie(srv, second)('GET', '/v1/public/checks'), 401);

    // An admin lists and ends a member's session; a viewer cannot touch another's.
    const admin = await addMember(srv, 'admin');
    const byAdmin = await admin.as('GET', `/v1/public/sessions?userId=${m.id}`);
    assertStatus(byAdmin, 200);
    assert.equal(byAdmin.body.data.length, 1);
    const peer = await addMember(srv, 'viewer');
    assertError(await peer.as('GET', `/v1/public/sessions?userId=${m.id}`), 403, 'viewer role');
    assertError(await peer.as('DELETE', `/v1/public/sessions/${current.id}`), 403);
    assertStatus(await admin.as('DELETE', `/v1/public/sessions/${current.id}`), 204);
    assertError(await m.as('GET', '/v1/public/checks'), 401);
  });

  test('TOTP: enrol with a QR code, confirm with a code, then sign in with a code or a recovery code, each once', async () => {
    const m = await addMember(srv, 'editor');
    const begun = await m.as('POST', '/v1/public/me/totp');
    assertStatus(begun, 200);
    const { secret, uri, qr } = begun.body.data;
    assert.match(uri, /^otpauth:\/\/totp\/Vigil:.*secret=/);
    assert.match(qr, /^data:image\/svg\+xml;base64,/);
    assert.match(Buffer.from(qr.split(',')[1], 'base64').toString(), /<svg/);
    assertError(await m.as('POST', '/v1/public/me/totp/confirm', { code: '000000' === totpCode(secret, Date.now()) ? '111111' : '000000' }), 400);
    const confirmed = await m.as('POST', '/v1/public/me/totp/confirm', { code: totpCode(secret, Date.now()) });
    assertStatus(confirmed, 200);
    const codes: string[] = confirmed.body.data.recoveryCodes;
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    assert.deepEqual((await m.as('GET', '/v1/public/me/totp')).body.data, { enabled: true, recoveryCodesLeft: 10 });

    assertError(await signInWithPassword(srv, m.email, m.password), 401, 'send totp');
    assertError(await signInWithPassword(srv, m.email, 'wrong password!!', totpCode(secret, Date.now())), 401, WRONG_PAIR);
    // The code that confirmed enrolment is spent: the next step's code (a step ahead is accepted).
    const next = totpCode(secret, Date.now() + 30_000);
    const withCode = await signInWithPassword(srv, m.email, m.password, next);
    assertStatus(withCode, 201);
    assertError(await signInWithPassword(srv, m.email, m.password, next), 401, 'already used');
    const withRecovery = await signInWithPassword(srv, m.email, m.password, codes[0]!.toUpperCase());
    assertStatus(withRecovery, 201);
    assertError(await signInWithPassword(srv, m.email, m.password, codes[0]!), 401, 'already used');
    assert.deepEqual((await m.as('GET', '/v1/public/me/totp')).body.data, { enabled: true, recoveryCodesLeft: 9 });

    assertError(await m.as('POST', '/v1/public/me/totp/disable', { password: 'not it at all' }), 403);
    assertStatus(await m.as('POST', '/v1/public/me/totp/disable', { password: m.password }), 204);
    assertStatus(await signInWithPassword(srv, m.email, m.password), 201);
    assertError(await srv.request('POST', '/v1/public/me/totp'), 403, 'Only a member');
  });

  test('a member changes their password; the current one is needed', async () => {
    const m = await addMember(srv, 'viewer');
    assertError(await m.as('POST', '/v1/public/me/password', { currentPassword: 'nope nope nope', newPassword: 'a brand new password' }), 403);
    assertStatus(await m.as('POST', '/v1/public/me/password', { currentPassword: m.password, newPassword: 'a brand new password' }), 204);
    assertError(await signInWithPassword(srv, m.email, m.password), 401, WRONG_PAIR);
    assertStatus(await signInWithPassword(srv, m.email, 'a brand new password'), 201);
  });

  test("a login link signs in as the account's first owner", async () => {
    const link = await srv.app.services.people.sessions.createLoginLink(undefined);
    const token = /#login=(.+)$/.exec(link.url)![1]!;
    const res = await send(srv.url, '', 'POST', '/v1/public/sessions', { key: null, body: { loginToken: token } });
    assertStatus(res, 201);
    assert.equal(res.body.data.user.email, 'admin@localhost');
    assert.equal(res.body.data.user.role, 'owner');
  });
});

describe('failed sign-ins are slowed, then refused (issue 28)', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startServer({ auth: { signIn: { slowAfterFailures: 1, lockAfterFailures: 3, addressLockAfterFailures: 6, windowMinutes: 15 } } }, undefined, NO_PROBES);
  });
  after(() => srv.stop());

  test('per member: after lockAfterFailures a 429 with Retry-After, the right password too', async () => {
    const m = await addMember(srv, 'viewer');
    for (let i = 0; i < 3; i++) assertError(await signInWithPassword(srv, m.email, `wrong password ${i}`), 401, WRONG_PAIR);
    const refused = await signInWithPassword(srv, m.email, m.password);
    assertError(refused, 429);
    const retry = Number(refused.headers.get('retry-after'));
    assert.ok(retry > 0 && retry <= 15 * 60, `Retry-After ${retry}`);
    // Another member from the same address still signs in (the address has 3 of its 6).
    const other = await addMember(srv, 'viewer');
    assertStatus(await signInWithPassword(srv, other.email, other.password), 201);
  });

  test('per address: failures across emails refuse the address', async () => {
    const m = await addMember(srv, 'viewer');
    for (let i = 0; i < 3; i++) {
      const res = await signInWithPassword(srv, `spray-${i}@example.com`, 'a guessed password');
      if (res.status === 429) break;
      assertError(res, 401, WRONG_PAIR);
    }
    const refused = await signInWithPassword(srv, m.email, m.password);
    assertError(refused, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
  });
});

describe('the audit log (issue 28)', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startServer({}, undefined, NO_PROBES);
  });
  after(() => srv.stop());

  test('records who changed what, with the fields but never their values, and the client address', async () => {
    const editor = await addMember(srv, 'editor');
    const created = await send(srv.url, '', 'POST', '/v1/public/checks', {
      key: null, body: { url: 'https://audited.example.com', checkFrequency: 5, name: 'Checkout' }, headers: { cookie: editor.cookie, origin: srv.app.config.publicUrl },
    });
    assertStatus(created, 201);
    const checkId = created.body.data.id;
    assertStatus(await editor.as('PATCH', `/v1/public/checks/${checkId}`, { name: 'Checkout API', checkFrequency: 10 }), 200);
    assertStatus(await editor.as('POST', `/v1/public/checks/${checkId}/toggle`, { disabled: true }), 200);
    const hook = await srv.request('POST', '/v1/public/alerts/webhooks', { body: { url: 'https://hooks.example.com/x', name: 'Ops', secret: 'a-very-secret-value' } });
    assertStatus(hook, 201);
    assertStatus(await srv.request('DELETE', `/v1/public/alerts/webhooks/${hook.body.data.id}`), 200);
    assertError(await signInWithPassword(srv, editor.email, 'wrong password here'), 401);

    const log = await srv.request('GET', '/v1/public/audit-log?limit=100');
    assertStatus(log, 200);
    const entries: Array<{ action: string; actor: { kind: string; id: string; name: string }; target: { id: string | null; name: string | null }; fields: string[]; address: string | null; at: string }> = log.body.data;
    const actions = entries.map((e) => e.action);
    for (const a of ['session.sign_in_failed', 'webhook.delete', 'webhook.create', 'check.pause', 'check.update', 'check.create', 'session.sign_in', 'member.password_set', 'member.create']) {
      assert.ok(actions.includes(a), `${a} in ${actions.join(', ')}`);
    }
    assert.ok(actions.indexOf('check.update') < actions.indexOf('check.create'), 'newest first');
    const update = entries.find((e) => e.action === 'check.update')!;
    assert.deepEqual(update.actor, { kind: 'user', id: editor.id, name: editor.email });
    assert.deepEqual(update.target, { kind: 'check', id: checkId, name: 'Checkout API' });
    assert.deepEqual(update.fields.sort(), ['checkFrequency', 'name']);
    assert.equal(update.address, '127.0.0.1');
    const hookCreate = entries.find((e) => e.action === 'webhook.create')!;
    assert.equal(hookCreate.actor.kind, 'key');
    assert.ok(hookCreate.fields.includes('secret'));
    assert.ok(!JSON.stringify(log.body).includes('a-very-secret-value'), 'never a secret');
    assert.equal(entries.find((e) => e.action === 'session.sign_in_failed')!.actor.id, editor.id);
    assert.ok(entries.some((e) => e.action === 'account.create' && e.actor.kind === 'system'), 'the first start');

    // Filters and the cursor.
    const mine = await srv.request('GET', `/v1/public/audit-log?actor=${editor.id}&action=check.`);
    assert.deepEqual(mine.body.data.map((e: { action: string }) => e.action), ['check.pause', 'check.update', 'check.create']);
    const onCheck = await srv.request('GET', `/v1/public/audit-log?target=${checkId}&actorKind=user`);
    assert.equal(onCheck.body.data.length, 3);
    const first = await srv.request('GET', '/v1/public/audit-log?limit=2');
    assert.equal(first.body.data.length, 2);
    const second = await srv.request('GET', `/v1/public/audit-log?limit=2&cursor=${first.body.meta.cursor}`);
    assert.ok(Number(second.body.data[0].id) < Number(first.body.data[1].id));
    const future = await srv.request('GET', `/v1/public/audit-log?from=${new Date(Date.now() + 60_000).toISOString()}`);
    assert.deepEqual(future.body.data, []);
    assertError(await srv.request('GET', '/v1/public/audit-log?from=yesterday'), 400, 'from');
    assertError(await srv.request('GET', '/v1/public/audit-log?cursor=@@@'), 400, 'cursor');
  });

  test('owners and admins read it, or an unrestricted key with alerts:read; nobody else', async () => {
    const admin = await addMember(srv, 'admin');
    const editor = await addMember(srv, 'editor');
    assertStatus(await admin.as('GET', '/v1/public/audit-log'), 200);
    assertError(await editor.as('GET', '/v1/public/audit-log'), 403, 'The editor role cannot read the audit log');
    const accountId = (await srv.request('GET', '/v1/public/members')).body.data[0].accountId;
    const reader = await srv.app.services.accounts.accounts.createKey({ account: accountId, scopes: ['checks:read', 'alerts:read'] });
    assertStatus(await srv.request('GET', '/v1/public/audit-log', { key: reader.key }), 200);
    const narrow = await srv.app.services.accounts.accounts.createKey({ account: accountId, scopes: ['checks:read'] });
    assertError(await srv.request('GET', '/v1/public/audit-log', { key: narrow.key }), 403, 'alerts:read');
  });

  test('entries older than audit.keepDays go with the daily job', async () => {
    const store = srv.app.store;
    const accountId = (await srv.request('GET', '/v1/public/members')).body.data[0].accountId;
    await store.audit.append({ accountId, at: Date.now() - 400 * 86_400_000, actor: { kind: 'system', id: 'system', name: 'Vigil' }, action: 'check.create', target: { kind: 'check', id: 'chk_old', name: null }, fields: [], address: null });
    assert.equal((await srv.request('GET', '/v1/public/audit-log?target=chk_old')).body.data.length, 1);
    assert.equal(await srv.app.services.people.audit.prune(srv.app.config.audit.keepDays), 1);
    assert.equal((await srv.request('GET', '/v1/public/audit-log?target=chk_old')).body.data.length, 0);
  });
});

describe('invitations by email when SMTP is configured (issue 28)', () => {
  let srv: TestServer;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
    srv = await startServer({ smtp: { url: sink.url, from: 'Vigil <vigil@test.local>' } }, undefined, NO_PROBES);
  });
  after(async () => {
    await srv.stop();
    await sink.close();
  });

  test('the set-up link goes by email and not in the answer; it works from the email', async () => {
    const invited = await srv.request('POST', '/v1/public/members', { body: { email: 'invitee@example.com', role: 'viewer' } });
    assertStatus(invited, 201);
    assert.equal(invited.body.data.invitation, 'emailed');
    assert.equal(invited.body.data.setupUrl, null);
    await sink.waitFor(1);
    const mail = sink.mails[0]!;
    assert.deepEqual(mail.to, ['invitee@example.com']);
    assert.match(mail.subject, /invited/);
    assert.match(mail.text!, /as viewer/);
    const url = /(https?:\/\/\S+#setup=[\w-]+)/.exec(mail.text!)![1]!;
    const setup = await send(srv.url, '', 'POST', '/v1/public/password-setup', { key: null, body: { token: setupToken(url), password: 'invited password' } });
    assertStatus(setup, 201);
    assert.equal(setup.body.data.user.email, 'invitee@example.com');
  });

  test('a refused email leaves the member with the link in the answer', async () => {
    sink.refuse.add('bounced@example.com');
    const invited = await srv.request('POST', '/v1/public/members', { body: { email: 'bounced@example.com', role: 'viewer' } });
    assertStatus(invited, 201);
    assert.equal(invited.body.data.invitation, 'link');
    assert.match(invited.body.data.setupUrl, /#setup=vu_/);
  });
});
