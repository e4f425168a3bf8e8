import Database from 'better-sqlite3';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { assertKnownSchema, DB_FILE, schemaVersion, SCHEMA_VERSION, type Db } from '../db.js';
import { lockDataDir } from './data-dir-lock.js';

/** A backup or restore that cannot be done with the file given (bad input: nothing changed). */
export class BackupRefused extends Error {}

export interface BackupReport {
  file: string;
  bytes: number;
  ms: number;
  schemaVersion: number;
}

/** Tables every Vigil database has had since version 1. */
const VIGIL_TABLES = ['accounts', 'api_keys', 'checks', 'history', 'meta'];

/**
 * A consistent copy of the data directory's database while a server may be using it, with
 * SQLite's online backup API. All pages go in one step: one read transaction, which in WAL mode
 * never blocks the server's writes (a paged backup would restart at every commit the server
 * makes, and under steady heartbeat ingest might never finish). The copy is written under a
 * temporary name and renamed, so FILE is either absent or complete.
 */
export async function backupDatabase(dataDir: string, file: string, now: () => number = Date.now): Promise<BackupReport> {
  const target = resolve(file);
  if (existsSync(target)) throw new BackupRefused(`${file} already exists; choose a new file name`);
  const source = openExisting(join(dataDir, DB_FILE));
  const partial = `${target}.partial-${process.pid}`;
  const started = now();
  try {
    assertKnownSchema(source, join(dataDir, DB_FILE));
    await source.backup(partial, { progress: () => 0x7fffffff });
    renameSync(partial, target);
    return { file: target, bytes: statSync(target).size, ms: now() - started, schemaVersion: schemaVersion(source) };
  } catch (err) {
    rmSync(partial, { force: true });
    if ((err as Error).message.includes('directory does not exist')) throw new BackupRefused(`cannot write ${file}: its directory does not exist`);
    throw err;
  } finally {
    source.close();
  }
}

export interface RestoreReport {
  restored: string;
  schemaVersion: number;
  /** Where the database it replaced now lives (null: there was none). */
  replaced: string | null;
}

/**
 * Puts a backup in place of the data directory's database. Refused while a server holds the
 * directory (DataDirInUse), and for a file that is not a Vigil database of a schema version this
 * build knows. The database it replaces is kept beside it, never deleted.
 */
export function restoreDatabase(dataDir: string, file: string, now = new Date()): RestoreReport {
  const source = resolve(file);
  if (!existsSync(source)) throw new BackupRefused(`${file} does not exist`);
  const lock = lockDataDir(dataDir);
  try {
    const backup = openExisting(source);
    const incoming = join(dataDir, `${DB_FILE}.restoring-${process.pid}`);
    let version: number;
    try {
      version = verifyVigilDatabase(backup, file);
      rmSync(incoming, { force: true });
      // A clean copy of the backup, written beside the database it replaces.
      backup.prepare('VACUUM INTO ?').run(incoming);
    } finally {
      backup.close();
    }
    const live = join(dataDir, DB_FILE);
    let replaced: string | null = null;
    if (existsSync(live)) {
      // Closing the last connection checkpoints the WAL into the file, so the file moved aside is whole.
      openExisting(live).close();
      const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
      replaced = `${live}.replaced-${stamp}`;
      renameSync(live, replaced);
      for (const side of ['-wal', '-shm']) rmSync(`${live}${side}`, { force: true });
    }
    renameSync(incoming, live);
    return { restored: source, schemaVersion: version, replaced };
  } finally {
    lock.release();
  }
}

function openExisting(file: string): Db {
  try {
    const db = new Database(file, { fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    return db;
  } catch (err) {
    throw new BackupRefused(`cannot open ${file}: ${(err as Error).message}`);
  }
}

/** The schema version of a Vigil database this build can run; BackupRefused for anything else. */
function verifyVigilDatabase(db: Db, name: string): number {
  let version: number;
  let tables: Set<string>;
  try {
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupRefused(`${name} is damaged (${String(check)})`);
    version = schemaVersion(db);
    tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
  } catch (err) {
    if (err instanceof BackupRefused) throw err;
    throw new BackupRefused(`${name} is not a SQLite database (${(err as Error).message})`);
  }
  if (version < 1 || !VIGIL_TABLES.every((t) => tables.has(t))) throw new BackupRefused(`${name} is not a Vigil database`);
  if (version > SCHEMA_VERSION) {
    throw new BackupRefused(`${name} has schema version ${version}, newer than this Vigil knows (${SCHEMA_VERSION}); restore it with the newer Vigil`);
  }
  return version;
}
