import { openDatabase, type Db } from '../db.js';
import type { Store } from '../store.js';
import { sqliteAccounts } from './accounts.js';
import { sqliteChecks } from './checks.js';
import { sqliteHistory } from './history.js';
import { sqliteIdempotency } from './idempotency.js';
import { sqliteKeys } from './keys.js';

export interface SqliteStore extends Store {
  /** The raw handle, for the batched writer and rollups that live beside the repositories. */
  db: Db;
}

export function openSqliteStore(dataDir: string): SqliteStore {
  const db = openDatabase(dataDir);
  return {
    db,
    accounts: sqliteAccounts(db),
    keys: sqliteKeys(db),
    checks: sqliteChecks(db),
    history: sqliteHistory(db),
    idempotency: sqliteIdempotency(db),
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
    close: () => {
      if (db.open) db.close();
    },
  };
}
