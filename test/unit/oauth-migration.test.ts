import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/store/db.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { OAUTH_MIGRATION } from '../../src/store/migrations-oauth.js';

/** The OAuth migration (version 4) among the others, written side by side. */

test('version 4 is registered once, and versions are unique', () => {
  assert.equal(OAUTH_MIGRATION.version, 4);
  assert.equal(MIGRATIONS.filter((m) => m === OAUTH_MIGRATION).length, 1);
  const versions = MIGRATIONS.map((m) => m.version);
  assert.equal(new Set(versions).size, versions.length);
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
