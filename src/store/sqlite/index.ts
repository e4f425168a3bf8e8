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
import { batchApplier } from './apply-writes.js';
import { UnitEffects } from './unit-effects.js';
import { checkpointInBackground } from './checkpointer.js';
import { sqliteOAuth } from './oauth.js';
import { sqliteRetention } from './raw-retention.js';
import { sqliteRollups } from './rollups.js';
import { sqliteSessions } from './sessions.js';
import { sqliteUsers } from './users.js';
import { sqliteAudit } from './audit.js';
import { sqlitePasskeys } from './passkeys.js';
import { sqliteServedAddresses } from './served-addresses.js';
import { sqliteKumaImports } from './kuma-imports.js';
import { sqliteCluster } from './cluster.js';
import { sqlitePingInbox } from './ping-inbox.js';
import { sqliteMaintenanceWindows } from './maintenance-windows.js';
import { sqliteConfigKeys } from './config-keys.js';
import { sqliteOperations, sqliteStatusPages } from './status-pages.js';
import { sqliteIncidents } from './incidents.js';
import { sqliteSubscribers } from './subscribers.js';

export interface SqliteStore extends Store {
  /** The raw handle: for tests only (nothing outside store/sqlite/ touches it). */
  db: Db;
}

export interface SqliteStoreOptions {
  /** Checkpoints run on a thread of their own (a long-running server); otherwise SQLite's own. */
  checkpointInBackground?: boolean;
  /**
   * A short-lived process beside a server that may be running on the same data directory (the
   * CLI): it neither rebuilds nor buffers rollups (that server holds its open minutes in memory;
   * see DirectMinutes), and its transactions take the write lock when they begin, so a server's
   * commit in between cannot void what they read.
   */
  guest?: boolean;
  /** An effect that threw after its unit of work committed (by default an uncaught error). */
  effectFailed?: (err: unknown) => void;
}

export function openSqliteStore(dataDir: string, options: SqliteStoreOptions = {}): SqliteStore {
  const db = openDatabase(dataDir);
  const checkpoints = options.checkpointInBackground && dataDir !== ':memory:' ? checkpointInBackground(db) : null;
  const checks = sqliteChecks(db);
  // data_version moves when another connection commits; local writes bump the counter.
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let localChanges = 0;
  // Read once per turn of the event loop: the requests of one socket read burst share it, and
  // a request sent after another process committed arrives in a later turn, so it reads anew.
  let versionThisTurn: string | null = null;
  const forgetVersion = () => void (versionThisTurn = null);
  const credentialsChanged = () => {
    localChanges++;
    versionThisTurn = null;
  };
  const credentialsVersion = (): string => {
    if (versionThisTurn === null) {
      versionThisTurn = `${dataVersion.get() as number}:${localChanges}`;
      setImmediate(forgetVersion);
    }
    return versionThisTurn;
  };
  const history = sqliteHistory(db);
  const stateChanges = sqliteStateChanges(db);
  const alerts = sqliteAlertStore(db);
  // Created before results flow: opening the rollups rebuilds rows a crashed process left short.
  const rollups = sqliteRollups(db, { guest: options.guest });
  const nodes = sqliteNodes(db);
  // Records read inside a rolled-back transaction may have been cached.
  const forgetCached = () => {
    checks.clearCache();
    credentialsChanged();
  };
  const cluster = sqliteCluster(db);
  const pingInbox = sqlitePingInbox(db);
  const applyWrites = batchApplier(db, { checks, history, stateChanges, alerts, rollups, nodes, pingInbox }, forgetCached, cluster);
  const effects = new UnitEffects(options.effectFailed ?? ((err) => queueMicrotask(() => { throw err; })));
  const transaction = <T>(fn: () => T): T => {
    try {
      return effects.run(() => (options.guest ? db.transaction(fn).immediate() : db.transaction(fn)()));
    } catch (err) {
      forgetCached();
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
    incidents: sqliteIncidents(db),
    subscribers: sqliteSubscribers(db),
    operations: sqliteOperations(db),
    sessions: sqliteSessions(db),
    users: sqliteUsers(db, credentialsChanged),
    audit: sqliteAudit(db),
    passkeys: sqlitePasskeys(db),
    served: sqliteServedAddresses(db),
    kumaImports: sqliteKumaImports(db),
    cluster,
    pingInbox,
    maintenanceWindows: sqliteMaintenanceWindows(db),
    configKeys: sqliteConfigKeys(db),
    credentialsVersion,
    transaction,
    afterCommit: (effect) => effects.add(effect),
    applyWrites,
    close: () => {
      // After the writer's last batch: the buffered rollup buckets, the current ones too.
      const closeMain = () => {
        if (db.open) rollups.close();
        if (db.open) db.close();
      };
      if (!checkpoints) return Promise.resolve(closeMain());
      return checkpoints.stop().then(closeMain);
    },
  };
}
