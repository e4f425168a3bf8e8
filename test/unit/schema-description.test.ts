import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { PG_MIGRATIONS, sharedVersion, SHARED_FROM } from '../../src/store/postgres/schema.js';
import { index, table, text, time, type Schema } from '../../src/store/schema/describe.js';
import { SCHEMA } from '../../src/store/schema/index.js';
import { assertWellFormed } from '../../src/store/schema/plan.js';
import { postgresMigrations } from '../../src/store/schema/postgres.js';
import { sqliteMigrations } from '../../src/store/schema/sqlite.js';

/** The description itself: what SQL cannot check before a database runs it. */

test('both stores are numbered once: the same consecutive versions, with the same names', () => {
  const versions = (ms: Array<{ version: number; name: string }>) => ms.map((m) => `${m.version} ${m.name}`);
  assert.deepEqual(versions(MIGRATIONS), versions(PG_MIGRATIONS));
  assert.deepEqual(MIGRATIONS.map((m) => m.version), MIGRATIONS.map((_, i) => i + 1));
  assert.ok(SHARED_FROM <= Math.max(...MIGRATIONS.map((m) => m.version)));
});

test("PostgreSQL's own versions of before map onto the shared ones without meeting", () => {
  const shared = Array.from({ length: 13 }, (_, i) => sharedVersion(i + 1));
  assert.deepEqual(shared, [13, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26]);
  assert.ok(Math.max(...shared) < SHARED_FROM);
});

test('a column is written into its table when it came with it, added later otherwise', () => {
  const schema: Schema = {
    versions: [{ version: 1, name: 'one' }, { version: 2, name: 'two' }],
    tables: [table('things', 1, [text('id').primaryKey(), time('seen_at').since(2)], { indexes: [index('things_seen', ['seen_at'], { since: 2 })] })],
  };
  const [sqliteOne, sqliteTwo] = sqliteMigrations(schema);
  assert.match(sqliteOne!.sql, /CREATE TABLE things \(\n {2}id TEXT PRIMARY KEY\n\);/);
  assert.equal(sqliteTwo!.sql, 'ALTER TABLE things ADD COLUMN seen_at INTEGER;\nCREATE INDEX things_seen ON things(seen_at);');
  assert.equal(postgresMigrations(schema)[1]!.sql, 'ALTER TABLE things ADD COLUMN seen_at BIGINT;\nCREATE INDEX things_seen ON things (seen_at);');
});

test('a description that cannot be migrated is refused before any database sees it', () => {
  assert.doesNotThrow(() => assertWellFormed(SCHEMA));
  const versions = [{ version: 1, name: 'one' }, { version: 2, name: 'two' }];
  const refused = (schema: Schema, message: RegExp) => assert.throws(() => assertWellFormed(schema), message);
  refused({ versions, tables: [table('a', 3, [text('id')])] }, /table a: version 3 is not listed/);
  refused({ versions, tables: [table('a', 2, [text('id').since(1)])] }, /a\.id: version 1/);
  refused({ versions, tables: [table('a', 1, [text('b_id').references('b')]), table('b', 1, [text('id')])] }, /a\.b_id: references b/);
  refused({ versions, tables: [table('a', 1, [text('id')], { indexes: [index('a_x', ['x'])] })] }, /index a_x: no column x/);
  refused({ versions: [...versions, { version: 2, name: 'again' }], tables: [] }, /a version is listed twice/);
});
