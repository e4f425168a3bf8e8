import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/store/db.js';
import { MIGRATIONS } from '../../src/store/migrations.js';

/** The OAuth tables (version 4) among the others. */

test('version 4 creates the OAuth tables once, and versions are unique and consecutive', () => {
  assert.deepEqual(MIGRATIONS.filter((m) => /CREATE TABLE oauth_grants/.test(m.sql)).map((m) => m.version), [4]);
  const versions = MIGRATIONS.map((m) => m.version);
  assert.deepEqual(versions, versions.map((_, i) => i + 1));
});

test('a database opens again without re-applying anything, at the highest version', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-migrate-'));
  try {
    openDatabase(dir).close();
    const db = openDatabase(dir);
    assert.equal(db.pragma('user_version', { simple: true }), Math.max(...MIGRATIONS.map((m) => m.version)));
    for (const table of ['agent_signups', 'oauth_grants', 'oauth_tokens']) {
      assert.ok(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table), table);
    }
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
