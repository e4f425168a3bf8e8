import Database from 'better-sqlite3';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from '../util/startup-error.js';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

export const DB_FILE = 'vigil.db';
/** The schema version this build brings a database up to. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/** Opens (creating if needed) the SQLite database in WAL mode and brings its schema up to date. */
export function openDatabase(dataDir: string): Db {
  let file = ':memory:';
  if (dataDir !== ':memory:') {
    ensureDataDir(dataDir);
    file = join(dataDir, DB_FILE);
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // NORMAL in WAL mode survives a process crash (kill -9) without losing a commit; only an OS
  // crash or power cut can lose the last transactions, which a small VPS monitor accepts for speed.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // 8 MiB of pages (SQLite's default is 2): the hot index and rollup pages stay; the rest is a
  // read from the OS's page cache away. 64 MiB filled up under load and counted in RSS.
  db.pragma('cache_size = -8192');
  db.pragma('temp_store = MEMORY');
  try {
    migrate(db, file === ':memory:' ? null : file);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** Creates the data directory; says what to do when this user cannot write there. */
export function ensureDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true });
    accessSync(dataDir, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new StartupError(
      `the data directory ${dataDir} is not writable (${code}); give the user running Vigil ` +
        `(uid ${process.getuid?.() ?? '?'}) write access to it, or set dataDir (VIGIL_DATA_DIR) to a writable directory`,
    );
  }
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Refuses a database a newer Vigil wrote: this build cannot know what its schema means. */
export function assertKnownSchema(db: Db, file: string): void {
  const version = schemaVersion(db);
  if (version > SCHEMA_VERSION) {
    throw new StartupError(
      `${file} has schema version ${version}, newer than this Vigil knows (${SCHEMA_VERSION}): ` +
        `it was written by a newer Vigil; run that version, or restore a backup made by this one (vigil restore FILE)`,
    );
  }
}

/** Where a database about to be migrated is copied first. */
export function preMigrationCopy(file: string, from: number, to: number, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${file}.v${from}-before-v${to}-${stamp}`;
}

function migrate(db: Db, file: string | null): void {
  if (file) assertKnownSchema(db, file);
  const current = schemaVersion(db);
  // A database that holds data is copied aside before a newer schema changes it: a downgrade,
  // or a migration gone wrong, can go back to it.
  if (file && current > 0 && current < SCHEMA_VERSION) {
    db.prepare('VACUUM INTO ?').run(preMigrationCopy(file, current, SCHEMA_VERSION));
  }
  // Version order, not array order: migrations written side by side may be appended out of order.
  for (const m of [...MIGRATIONS].sort((a, b) => a.version - b.version)) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
}
