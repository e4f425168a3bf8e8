import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, send, type TestServer } from '../helpers/server.js';
import { addMember, setupToken } from '../helpers/people.js';
import { assertError, assertStatus, NO_PROBES } from './util.js';

/**
 * Issue 35 item 8: an invited member whose link was lost can be sent a new one (the old one stops
 * working, and the audit log says who sent it); the members list counts passkeys.
 */
describe('a new set-up link for an invited member', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startServer({}, undefined, NO_PROBES);
  });
  after(() => srv.stop());

  const setUp = (url: string) => send(srv.url, '', 'POST', '/v1/public/password-setup', { key: null, body: { token: setupToken(url), password: 'a long enough password' } });

  test('the new link works, the old one no longer does, and it is audited', async () => {
    const invited = await srv.request('POST', '/v1/public/members', { body: { email: 'late@example.com', role: 'viewer' } });
    assertStatus(invited, 201);
    const first = invited.body.data.setupUrl as string;
    const again = await srv.request('POST', `/v1/public/members/${invited.body.data.id}/setup-link`);
    assertStatus(again, 200);
    assert.equal(again.body.data.invitation, 'link');
    assert.equal(again.body.data.email, 'late@example.com');
    const second = again.body.data.setupUrl as string;
    assert.notEqual(second, first);
    assertError(await setUp(first), 400, 'already used');
    assertStatus(await setUp(second), 201);
    const audit = await srv.request('GET', `/v1/public/audit-log?action=member.setup_link`);
    assertStatus(audit, 200);
    assert.deepEqual(audit.body.data.map((e: { target: { name: string } }) => e.target.name), ['late@example.com']);
    // Set up now: nothing to send any more.
    assertError(await srv.request('POST', `/v1/public/members/${invited.body.data.id}/setup-link`), 409, 'already set up');
  });

  test('another account\'s member is a 404; an editor may not send links', async () => {
    assertError(await srv.request('POST', '/v1/public/members/usr_nope/setup-link'), 404);
    const editor = await addMember(srv, 'editor');
    assertError(await editor.as('POST', `/v1/public/members/${editor.id}/setup-link`), 403);
  });

  test('the list counts a member\'s passkeys, and a member with one is not sent a set-up link', async () => {
    const invited = await srv.request('POST', '/v1/public/members', { body: { email: 'keyed@example.com', role: 'viewer' } });
    const id = invited.body.data.id as string;
    await srv.app.store.passkeys.insert({
      id: 'pk_test', userId: id, credentialId: 'cred-test', publicKey: Buffer.from([1]), counter: 0, transports: ['internal'],
      name: 'laptop', backedUp: false, createdAt: Date.now(), lastUsedAt: null,
    });
    const list = await srv.request('GET', '/v1/public/members');
    const row = list.body.data.find((m: { id: string }) => m.id === id);
    assert.equal(row.passkeys, 1);
    assertError(await srv.request('POST', `/v1/public/members/${id}/setup-link`), 409);
  });
});
