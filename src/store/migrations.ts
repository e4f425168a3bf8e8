import { SCHEMA } from './schema/index.js';
import type { Migration } from './schema/plan.js';
import { sqliteMigrations } from './schema/sqlite.js';

export type { Migration };

/**
 * SQLite's migrations, written from the schema description (store/schema/): applied in order
 * inside one transaction each; the database's `user_version` records the last one applied.
 */
export const MIGRATIONS: Migration[] = sqliteMigrations(SCHEMA);
