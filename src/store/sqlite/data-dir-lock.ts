import Database from 'better-sqlite3';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from '../../util/startup-error.js';
import { ensureDataDir } from '../db.js';

/** Another process holds the data directory: a second server would double every probe and alert. */
export class DataDirInUse extends StartupError {
  constructor(
    readonly dataDir: string,
    readonly pid: number | null,
  ) {
    super(
      `the data directory ${dataDir} is in use by another Vigil server (${pid ? `pid ${pid}` : 'pid unknown'}); ` +
        `stop it first, or give this one another dataDir`,
    );
  }
}

export interface DataDirLock {
  release(): void;
}

const LOCK_FILE = 'vigil.lock';
const PID_FILE = 'vigil.pid';

/**
 * Takes the data directory's exclusive lock, or throws DataDirInUse naming the holder. The lock
 * is SQLite's own file lock on `vigil.lock`, held by a connection in exclusive locking mode: the
 * kernel drops it when the process ends, however it ends, so a crash never leaves a stale lock.
 * The holder's pid is written beside it for the message a refused process prints.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  ensureDataDir(dataDir);
  const db = new Database(join(dataDir, LOCK_FILE), { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // The first write takes the exclusive lock, which this mode keeps until the connection closes.
    db.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS holder (pid INTEGER); COMMIT;');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirInUse(dataDir, holderPid(dataDir));
    throw err;
  }
  const pidFile = join(dataDir, PID_FILE);
  writeFileSync(pidFile, `${process.pid}\n`);
  return {
    release() {
      if (!db.open) return;
      rmSync(pidFile, { force: true });
      db.close();
    },
  };
}

function holderPid(dataDir: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(join(dataDir, PID_FILE), 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
