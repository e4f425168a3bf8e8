import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { assert401, assertStatus, NO_PROBES, uniqueEmail } from '../e2e/util.js';

/** Keys created, revoked, disabled and enabled with the CLI (a process of its own) while the server runs. */

let server: TestServer;
before(async () => {
  server = await startServer({}, undefined, NO_PROBES);
});
after(async () => {
  await server.stop();
});

function cli(args: string[]) {
  return runCli(args, server.dataDir);
}

/** `vigil key create …` through the CLI, parsed. */
function cliKey(args: string[]): { id: string; key: string; scopes: string[]; expiresAt: number | null; access: unknown } {
  const r = cli(['key', 'create', ...args]);
  assert.equal(r.status, 0, `key create failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { id: string; key: string; scopes: string[]; expiresAt: number | null; access: unknown };
}

function cliAccount(tier = 'free'): { id: string; email: string; tier: string } {
  const r = cli(['account', 'create', '--email', uniqueEmail('cli'), '--tier', tier]);
  assert.equal(r.status, 0, `account create failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { id: string; email: string; tier: string };
}

describe('key revoke, disable, enable from the CLI while the server runs', () => {
  test('revoke: the very next request is 401, and enable does not undo it', async () => {
    const account = cliAccount('indie');
    const key = cliKey(['--account', account.id, '--scopes', 'checks:read,checks:write']);
    assertStatus(await server.request('GET', '/v1/public/checks', { key: key.key }), 200);

    const revoked = cli(['key', 'revoke', key.id]);
    assert.equal(revoked.status, 0, revoked.stderr);
    assert401(await server.request('GET', '/v1/public/checks', { key: key.key }));

    const enabled = cli(['key', 'enable', key.id]);
    assert.equal(enabled.status, 2, 'enable of a revoked key is refused');
    assert.equal(enabled.stderr.trim().split('\n').length, 1, 'one line on stderr');
    assert401(await server.request('GET', '/v1/public/checks', { key: key.key }));
  });

  test('disable: the very next request is 401; enable restores the key', async () => {
    const account = cliAccount('indie');
    const key = cliKey(['--account', account.email]);
    assertStatus(await server.request('GET', '/v1/public/account', { key: key.key }), 200);

    assert.equal(cli(['key', 'disable', key.id]).status, 0);
    assert401(await server.request('GET', '/v1/public/account', { key: key.key }));

    assert.equal(cli(['key', 'enable', key.id]).status, 0);
    assertStatus(await server.request('GET', '/v1/public/account', { key: key.key }), 200);
  });

  test('a revoked key no longer counts against maxApiKeys (free: 1)', async () => {
    const account = cliAccount('free');
    const first = cliKey(['--account', account.id]);
    const refused = cli(['key', 'create', '--account', account.id]);
    assert.equal(refused.status, 2, 'a second key on the free plan is refused');
    assert.equal(refused.stdout, '', 'nothing printed on stdout');
    assert.equal(refused.stderr.trim().split('\n').length, 1);
    assert.equal((await server.app.store.keys.countLive(account.id)), 1, 'nothing written');
    assertStatus(await server.request('GET', '/v1/public/account', { key: first.key }), 200);

    assert.equal(cli(['key', 'revoke', first.id]).status, 0);
    const second = cliKey(['--account', account.id]);
    assertStatus(await server.request('GET', '/v1/public/account', { key: second.key }), 200);
  });

  test('the CLI takes maxApiKeys from --config (indie overridden to 2)', async () => {
    const config = join(server.dataDir, 'indie-two-keys.json');
    writeFileSync(config, JSON.stringify({ plans: { indie: { maxApiKeys: 2 } } }));
    const account = cliAccount('indie');
    cliKey(['--account', account.id, '--config', config]);
    cliKey(['--account', account.id, '--config', config]);
    const third = cli(['key', 'create', '--account', account.id, '--config', config]);
    assert.equal(third.status, 2, 'the third key is refused under the overridden allowance');
    assert.equal((await server.app.store.keys.countLive(account.id)), 2);
    // Without the override the default indie allowance (3) applies.
    cliKey(['--account', account.id]);
  });
});
