import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

/** Opens (creating if needed) the SQLite database in WAL mode and brings its schema up to date. */
export function openDatabase(dataDir: string): Db {
  let file = ':memory:';
  if (dataDir !== ':memory:') {
    mkdirSync(dataDir, { recursive: true });
    file = join(dataDir, 'vigil.db');
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // NORMAL in WAL mode survives a process crash (kill -9) without losing a commit; only an OS
  // crash or power cut can lose the last transactions, which a small VPS monitor accepts for speed.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -65536');
  db.pragma('temp_store = MEMORY');
  migrate(db);
  return db;
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  // Version order, not array order: migrations written side by side may be appended out of order.
  for (const m of [...MIGRATIONS].sort((a, b) => a.version - b.version)) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
}
