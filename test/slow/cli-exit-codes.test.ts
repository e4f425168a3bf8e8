import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';

/**
 * Issue 35 item 6: every command refuses bad input with one line on stderr and exit status 2
 * (README, decisions §2), never 1 ("unexpected error") and never 0. Each row is a refusal a
 * user can type; the data directory is a fresh one, so nothing else fails.
 */

const dir = mkdtempSync(join(tmpdir(), 'vigil-exit-codes-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const REFUSALS: string[][] = [
  ['frobnicate'],
  ['account', 'create', '--email', 'not-an-address'],
  ['account', 'create', '--email', 'a@example.com', '--tier', 'gold'],
  ['account', 'claim', 'nobody@example.com'],
  ['key', 'create', '--account', 'nobody@example.com'],
  ['key', 'create', '--account', 'admin@localhost', '--scopes', 'everything'],
  ['key', 'create', '--account', 'admin@localhost', '--expires-at', 'yesterday'],
  ['key', 'revoke', 'key_nope'],
  ['key', 'disable'],
  ['backup'],
  ['restore', join(dir, 'no-such-backup.db')],
  ['import', 'kuma', join(dir, 'no-such-kuma.db'), '--account', 'admin@localhost'],
  ['export', '--account', 'nobody@example.com'],
  ['export', '--account', 'admin@localhost', '--format', 'toml'],
  ['apply', join(dir, 'no-such-file.yaml'), '--account', 'admin@localhost'],
  ['login-link', '--account', 'nobody@example.com'],
  ['user', 'create', '--account', 'admin@localhost', '--email', 'x@example.com', '--role', 'god'],
  ['user', 'remove', 'usr_nope'],
  ['node', 'revoke', 'nd_nope'],
  ['store', 'migrate', '--to', 'mysql://db/vigil'],
  ['store', 'migrate', '--to', 'postgres://127.0.0.1:1/vigil', '--batch', '0'],
  ['prober', '--server', 'ftp://127.0.0.1/', '--token', 't'],
  ['prober', '--server', 'not a url', '--token', 't'],
  ['instances', 'extra'],
  ['serve', '--config', join(dir, 'no-such-config.json')],
];

for (const args of REFUSALS) {
  test(`vigil ${args.join(' ')} exits 2 with one line`, { timeout: 30_000 }, () => {
    const r = runCli(args, join(dir, 'data'));
    assert.equal(r.status, 2, `stderr: ${r.stderr}`);
    assert.match(r.stderr, /^vigil: (?!unexpected error)[^\n]+\n$/);
  });
}
