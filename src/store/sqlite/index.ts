import { openDatabase, type Db } from '../db.js';
import type { Store } from '../store.js';
import { sqliteAccounts } from './accounts.js';
import { sqliteChecks } from './checks.js';
import { sqliteHistory } from './history.js';
import { sqliteIdempotency } from './idempotency.js';
import { sqliteKeys } from './keys.js';
import { sqliteNodes } from './nodes.js';
import { sqliteStateChanges } from './state-changes.js';
import { sqliteAlertStore } from './alerts/index.js';

export interface SqliteStore extends Store {
  /** The raw handle, for the batched writer and rollups that live beside the repositories. */
  db: Db;
  /** Moves credentialsVersion after a local write to credentials kept beside the store (OAuth tokens). */
  credentialsChanged(): void;
}

export function openSqliteStore(dataDir: string): SqliteStore {
  const db = openDatabase(dataDir);
  const checks = sqliteChecks(db);
  // data_version moves when another connection commits; local writes bump the counter.
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let localChanges = 0;
  const credentialsChanged = () => void localChanges++;
  return {
    db,
    accounts: sqliteAccounts(db, credentialsChanged),
    keys: sqliteKeys(db, credentialsChanged),
    checks,
    history: sqliteHistory(db),
    stateChanges: sqliteStateChanges(db),
    idempotency: sqliteIdempotency(db),
    nodes: sqliteNodes(db),
    alerts: sqliteAlertStore(db),
    credentialsVersion: () => `${dataVersion.get() as number}:${localChanges}`,
    credentialsChanged,
    transaction: <T>(fn: () => T): T => {
      try {
        return db.transaction(fn)();
      } catch (err) {
        // Records read inside a rolled-back transaction may have been cached.
        checks.clearCache();
        credentialsChanged();
        throw err;
      }
    },
    close: () => {
      if (db.open) db.close();
    },
  };
}
