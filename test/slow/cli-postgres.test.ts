import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres, type PgCluster } from '../helpers/postgres.js';
import { freePort, LISTENING, spawnServing, stopServing } from '../helpers/serve-process.js';

const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));
const KUMA = fileURLToPath(new URL('../../../test/fixtures/kuma/', import.meta.url));

const vigil = (args: string[], env: Record<string, string>) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, VIGIL_CONFIG: '', ...env }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

test('vigil backup and restore on a PostgreSQL store point to pg_dump and pg_restore, and change nothing', () => {
  const env = { VIGIL_DATABASE_URL: 'postgres://vigil@127.0.0.1:1/vigil', VIGIL_DATA_DIR: '/nonexistent/vigil' };
  const backup = vigil(['backup', '/tmp/never-written.db'], env);
  assert.equal(backup.status, 2, 'a command this setup does not take is bad input');
  assert.match(backup.stderr, /PostgreSQL \(store\.url\): back it up with pg_dump --format=custom/);
  const restore = vigil(['restore', '/tmp/never-read.db'], env);
  assert.equal(restore.status, 2);
  assert.match(restore.stderr, /pg_restore/);
  const invalid = vigil(['backup', 'x.db'], { VIGIL_DATABASE_URL: 'mysql://db/vigil' });
  assert.equal(invalid.status, 2, 'a config error');
  assert.match(invalid.stderr, /store\.url \(VIGIL_DATABASE_URL\) must start with postgres:\/\//);
});

/*
 * The data commands on a PostgreSQL store (issue 26 item 1): the same commands, the same config
 * (VIGIL_DATABASE_URL), a fresh database of the test's own cluster. Nothing is written to the
 * data directory. A `vigil serve` on the same database hears of what the CLI changes: a check
 * `apply --prune` deletes stops being watched there.
 */
describe('the data commands on PostgreSQL', () => {
  let cluster: PgCluster;
  const dir = mkdtempSync(join(tmpdir(), 'vigil-cli-pg-'));
  before(async () => {
    cluster = await startPostgres();
  });
  after(async () => {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (args: string[], env: Record<string, string>, input?: string) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [CLI, ...args], { env: { ...process.env, VIGIL_CONFIG: '', ...env } }, (err, stdout, stderr) => {
        resolve({ status: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
      });
      if (input !== undefined) child.stdin!.end(input);
    });

  test('account, key, user, node, login-link, apply, export, import kuma and instances run against the database', { timeout: 240_000 }, async () => {
    const url = await cluster.createDatabase();
    const dataDir = join(dir, 'never-created');
    const env = { VIGIL_DATABASE_URL: url, VIGIL_DATA_DIR: dataDir, VIGIL_PUBLIC_URL: 'https://vigil.example.com' };
    const ok = async (args: string[], input?: string) => {
      const r = await run(args, env, input);
      assert.equal(r.status, 0, `vigil ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    const json = async (args: string[]) => JSON.parse(await ok(args)) as any; // eslint-disable-line @typescript-eslint/no-explicit-any

    const account = await json(['account', 'create', '--email', 'ops@example.com', '--tier', 'pro']);
    assert.equal(account.email, 'ops@example.com');
    assert.deepEqual((await json(['account', 'list'])).map((a: { email: string }) => a.email), ['ops@example.com']);
    const key = await json(['key', 'create', '--account', 'ops@example.com', '--scopes', 'checks:read,checks:write', '--name', 'deploy']);
    assert.match(key.key, /^vigil_live_[0-9a-f]{64}$/);
    assert.equal((await json(['key', 'disable', key.id])).status, 'disabled');
    assert.equal((await json(['key', 'enable', key.id])).status, 'enabled');
    const keys = await json(['key', 'list', '--account', account.id]);
    assert.deepEqual(keys.map((k: { id: string }) => k.id), [key.id]);
    const user = await json(['user', 'create', '--account', 'ops@example.com', '--email', 'bob@example.com', '--role', 'editor']);
    assert.match(user.setupUrl, /^https:\/\/vigil\.example\.com\//);
    assert.deepEqual((await json(['user', 'list', '--account', account.id])).map((u: { email: string }) => u.email).sort(), ['bob@example.com', 'ops@example.com'], 'the account owner and the new member');
    const node = await json(['node', 'create', '--region', 'eu-test', '--name', 'probe-1']);
    assert.ok(node.token, 'the node token is printed once');
    assert.deepEqual((await json(['node', 'list'])).map((n: { name: string }) => n.name), ['probe-1']);
    const link = await json(['login-link', '--account', 'ops@example.com']);
    assert.match(link.url, /^https:\/\/vigil\.example\.com\/.*login/);

    const file = 'version: 1\nchecks:\n  site:\n    name: Site\n    url: http://127.0.0.1:9/\n    checkFrequency: 1\n';
    assert.match(await ok(['apply', '-', '--account', 'ops@example.com'], file), /Applied\./);
    const exported = await json(['export', '--account', 'ops@example.com', '--format', 'json']);
    assert.deepEqual(Object.keys(exported.checks), ['site']);
    assert.equal(exported.checks.site.url, 'http://127.0.0.1:9/');
    const [row] = await cluster.sql<{ n: number }>(new URL(url).pathname.slice(1), "SELECT count(*)::int AS n FROM checks WHERE name = 'Site'");
    assert.equal(row!.n, 1, 'the check is in PostgreSQL');

    // A served central on the same database watches the check; the CLI's prune reaches it at once.
    const port = await freePort();
    const serving = spawnServing(process.execPath, [CLI, 'serve'], { env: { ...env, VIGIL_PORT: String(port), VIGIL_INSTANCE: 'central-cli' } });
    try {
      await serving.waitFor(LISTENING);
      const owned = async () => ((await json(['instances'])) as Array<{ name: string; live: boolean; checks: number }>).find((c) => c.name === 'central-cli');
      let central = await owned();
      for (let i = 0; i < 60 && !(central?.live && central.checks === 1); i++) {
        await new Promise((r) => setTimeout(r, 200));
        central = await owned();
      }
      assert.ok(central?.live && central.checks === 1, `the central watches the check: ${JSON.stringify(central)}`);
      assert.match(await ok(['apply', '-', '--account', 'ops@example.com', '--prune'], 'version: 1\nchecks: {}\n'), /Applied\./);
      for (let i = 0; i < 60 && central?.checks !== 0; i++) {
        await new Promise((r) => setTimeout(r, 200));
        central = await owned();
      }
      assert.equal(central?.checks, 0, 'the central no longer watches the pruned check');
    } finally {
      assert.equal((await stopServing(serving)).code, 0, serving.stderr());
    }
    const report = JSON.parse(await ok(['import', 'kuma', join(KUMA, 'kuma-2.5.3.db'), '--account', 'ops@example.com', '--paused'])) as { summary: Record<string, number> };
    assert.ok(Object.values(report.summary).some((n) => n > 0), JSON.stringify(report.summary));
    assert.equal(existsSync(dataDir), false, 'nothing went to the data directory');
  });
});
