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
import { writeApplier } from './apply-writes.js';
import { sqliteOAuth } from './oauth.js';
import { sqliteRetention } from './raw-retention.js';
import { sqliteRollups } from './rollups.js';
import { sqliteSessions } from './sessions.js';
import { sqliteOperations, sqliteStatusPages } from './status-pages.js';

export interface SqliteStore extends Store {
  /** The raw handle: for tests only (nothing outside store/sqlite/ touches it). */
  db: Db;
}

export function openSqliteStore(dataDir: string): SqliteStore {
  const db = openDatabase(dataDir);
  const checks = sqliteChecks(db);
  // data_version moves when another connection commits; local writes bump the counter.
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let localChanges = 0;
  const credentialsChanged = () => void localChanges++;
  const history = sqliteHistory(db);
  const stateChanges = sqliteStateChanges(db);
  const alerts = sqliteAlertStore(db);
  // Created before results flow: opening the rollups rebuilds rows a crashed process left short.
  const rollups = sqliteRollups(db);
  const nodes = sqliteNodes(db);
  const apply = writeApplier({ checks, history, stateChanges, alerts, rollups, nodes });
  const transaction = <T>(fn: () => T): T => {
    try {
      return db.transaction(fn)();
    } catch (err) {
      // Records read inside a rolled-back transaction may have been cached.
      checks.clearCache();
      credentialsChanged();
      throw err;
    }
  };
  return {
    db,
    accounts: sqliteAccounts(db, credentialsChanged),
    keys: sqliteKeys(db, credentialsChanged),
    checks,
    history,
    stateChanges,
    idempotency: sqliteIdempotency(db),
    nodes,
    alerts,
    oauth: sqliteOAuth(db, credentialsChanged),
    rollups,
    retention: sqliteRetention(db),
    statusPages: sqliteStatusPages(db),
    operations: sqliteOperations(db),
    sessions: sqliteSessions(db),
    credentialsVersion: () => `${dataVersion.get() as number}:${localChanges}`,
    transaction,
    applyWrites: (batch, failed) =>
      transaction(() => {
        for (const record of batch) {
          try {
            apply(record);
          } catch (err) {
            failed(record, err);
          }
        }
      }),
    close: () => {
      // After the writer's last batch: the buffered rollup buckets, the current ones too.
      if (db.open) rollups.close();
      if (db.open) db.close();
    },
  };
}
