import type pg from 'pg';
import { StartupError } from '../../util/startup-error.js';
import { SCHEMA } from '../schema/index.js';
import type { Migration } from '../schema/plan.js';
import { postgresMigrations } from '../schema/postgres.js';

/**
 * PostgreSQL's migrations, written from the schema description (store/schema/): the same tables
 * and column names as SQLite's (so `vigil store migrate` copies by name) with PostgreSQL's types,
 * history and rollups partitioned by time (partitions.ts). Versions are recorded in `vigil_schema`.
 */
export type PgMigration = Migration;

export const PG_MIGRATIONS: PgMigration[] = postgresMigrations(SCHEMA);

export const PG_SCHEMA_VERSION = Math.max(...PG_MIGRATIONS.map((m) => m.version));

/**
 * From this version on `vigil_schema` holds the versions both stores share. Below it, it holds
 * PostgreSQL's own numbers of before (1 to 13): no migration here ever commits a shared version
 * below it, as every pending version commits at once.
 */
export const SHARED_FROM = 27;

/** PostgreSQL's own version of before, as the shared one: its 1 was SQLite's 13, each later one SQLite's next (its 2 took SQLite's 14 and 15). */
export const sharedVersion = (own: number): number => (own <= 1 ? 13 : own + 13);

/** Brings the schema up to date in one transaction (the caller holds the migration lock). */
export async function migrateSchema(client: pg.ClientBase): Promise<void> {
  await client.query('CREATE TABLE IF NOT EXISTS vigil_schema (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
  await client.query('BEGIN');
  try {
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM vigil_schema');
    let current = rows[0]?.v ?? 0;
    if (current > 0 && current < SHARED_FROM) {
      // Through negatives: no renumbered row meets one not yet renumbered.
      await client.query('UPDATE vigil_schema SET version = -version');
      await client.query('UPDATE vigil_schema SET version = CASE WHEN version = -1 THEN 13 ELSE 13 - version END');
      current = sharedVersion(current);
    }
    if (current > PG_SCHEMA_VERSION) {
      throw new StartupError(
        `the PostgreSQL database has schema version ${current}, newer than this Vigil knows (${PG_SCHEMA_VERSION}): ` +
          'it was written by a newer Vigil; run that version',
      );
    }
    for (const m of PG_MIGRATIONS) {
      if (m.version <= current) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO vigil_schema (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, Date.now()]);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  }
}
