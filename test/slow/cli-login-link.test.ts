import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { send, startServer, type TestServer } from '../helpers/server.js';
import { assertError } from '../e2e/util.js';

/** `vigil login-link` (a process of its own) against a running server's data directory. */

async function signIn(srv: TestServer, body: Record<string, string>) {
  const res = await send(srv.url, '', 'POST', '/v1/public/sessions', { key: null, body });
  const cookie = /^(vigil_session=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';
  return { res, cookie };
}

describe('vigil login-link', () => {
  test('prints a one-time URL for an account that signs in once; an unknown account is bad input', async () => {
    const srv = await startServer({}, undefined, { autoTick: false });
    try {
      const r = runCli(['login-link', '--account', 'admin@localhost'], srv.dataDir);
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { url: string; email: string; expiresAt: string };
      assert.equal(out.email, 'admin@localhost');
      assert.match(out.url, /\/dashboard#login=vl_[\w-]{43}$/);
      const loginToken = out.url.split('#login=')[1]!;
      assert.equal((await signIn(srv, { loginToken })).res.status, 201);
      assertError((await signIn(srv, { loginToken })).res, 400, /already used/);
      const bad = runCli(['login-link', '--account', 'nobody@example.com'], srv.dataDir);
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /nobody@example.com/);
    } finally {
      await srv.stop();
    }
  });
});
