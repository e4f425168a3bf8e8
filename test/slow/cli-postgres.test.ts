import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

const vigil = (args: string[], env: Record<string, string>) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, VIGIL_CONFIG: '', ...env }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

test('vigil backup and restore on a PostgreSQL store point to pg_dump and pg_restore, and change nothing', () => {
  const env = { VIGIL_DATABASE_URL: 'postgres://vigil@127.0.0.1:1/vigil', VIGIL_DATA_DIR: '/nonexistent/vigil' };
  const backup = vigil(['backup', '/tmp/never-written.db'], env);
  assert.equal(backup.status, 1);
  assert.match(backup.stderr, /PostgreSQL \(store\.url\): back it up with pg_dump --format=custom/);
  const restore = vigil(['restore', '/tmp/never-read.db'], env);
  assert.equal(restore.status, 1);
  assert.match(restore.stderr, /pg_restore/);
  const invalid = vigil(['backup', 'x.db'], { VIGIL_DATABASE_URL: 'mysql://db/vigil' });
  assert.equal(invalid.status, 2, 'a config error');
  assert.match(invalid.stderr, /store\.url \(VIGIL_DATABASE_URL\) must start with postgres:\/\//);
});
