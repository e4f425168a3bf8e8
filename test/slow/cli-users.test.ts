import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { startServer, send, type TestServer } from '../helpers/server.js';
import { cookieOf, setupToken, withCookie } from '../helpers/people.js';
import { assertError, assertStatus, NO_PROBES } from '../e2e/util.js';

/** `vigil user create|list|remove` (issue 28) beside a running server on the same data directory. */

let server: TestServer;
before(async () => {
  server = await startServer({}, undefined, NO_PROBES);
});
after(() => server.stop());

const cli = (args: string[]) => runCli(args, server.dataDir);

describe('vigil user', () => {
  test('create prints the member with a set-up link the running server honours; list shows them; remove ends their sessions', async () => {
    const created = cli(['user', 'create', '--account', 'admin@localhost', '--email', 'Viewer@Example.com', '--role', 'viewer']);
    assert.equal(created.status, 0, created.stderr);
    const user = JSON.parse(created.stdout);
    assert.deepEqual(Object.keys(user), ['id', 'email', 'role', 'accountId', 'setupUrl']);
    assert.equal(user.email, 'viewer@example.com');
    assert.equal(user.role, 'viewer');
    assert.match(user.setupUrl, /\/dashboard#setup=vu_[\w-]{43}$/);

    const setup = await send(server.url, '', 'POST', '/v1/public/password-setup', { key: null, body: { token: setupToken(user.setupUrl), password: 'a viewer password' } });
    assertStatus(setup, 201);
    const as = withCookie(server, cookieOf(setup));
    assertStatus(await as('GET', '/v1/public/checks'), 200);

    const listed = cli(['user', 'list', '--account', user.accountId]);
    assert.equal(listed.status, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout).map((u: { email: string; role: string }) => `${u.email}:${u.role}`), ['admin@localhost:owner', 'viewer@example.com:viewer']);

    const removed = cli(['user', 'remove', user.id]);
    assert.equal(removed.status, 0, removed.stderr);
    assertError(await as('GET', '/v1/public/checks'), 401);
  });

  test('bad input: one line on stderr, status 2, nothing written', () => {
    for (const args of [
      ['user', 'create', '--account', 'admin@localhost', '--email', 'x@example.com', '--role', 'boss'],
      ['user', 'create', '--account', 'admin@localhost', '--email', 'x@example.com'],
      ['user', 'create', '--account', 'nobody@example.com', '--email', 'x@example.com', '--role', 'viewer'],
      ['user', 'create', '--account', 'admin@localhost', '--email', 'admin@localhost', '--role', 'viewer'],
      ['user', 'remove', 'usr_nope'],
      ['user', 'frobnicate'],
    ]) {
      const r = cli(args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    const owner = JSON.parse(cli(['user', 'list', '--account', 'admin@localhost']).stdout)[0];
    const last = cli(['user', 'remove', owner.id]);
    assert.equal(last.status, 2);
    assert.match(last.stderr, /at least one owner/);
    assert.equal(JSON.parse(cli(['user', 'list']).stdout).filter((u: { email: string }) => u.email === 'x@example.com').length, 0);
  });
});
