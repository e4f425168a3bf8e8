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
import { SqliteUnits } from './units.js';
import { checkpointInBackground } from './checkpointer.js';
import { sqliteOAuth } from './oauth.js';
import { sqliteRetention } from './raw-retention.js';
import { sqliteRollups } from './rollups.js';
import { sqliteSessions } from './sessions.js';
import { sqliteAttemptTallies } from './attempt-tallies.js';
import { sqliteUsers } from './users.js';
import { sqliteAudit } from './audit.js';
import { sqlitePasskeys } from './passkeys.js';
import { sqliteIdentities } from './identities.js';
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
   * see DirectMinutes). Its units of work take the write lock when they begin, as every unit
   * does (BEGIN IMMEDIATE), so a server's commit in between cannot void what they read.
   */
  guest?: boolean;
  /** An effect that threw after its unit of work committed (by default an uncaught error). */
  effectFailed?: (err: unknown) => void;
  /**
   * Runs inside each outermost unit of work and each batch of the writer right before it
   * commits: tests make a commit fail with it (test/unit/store-contract-sqlite.test.ts).
   */
  beforeCommit?: (db: Db) => void;
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
  const beforeCommit = options.beforeCommit ? () => options.beforeCommit!(db) : undefined;
  const units = new SqliteUnits(db, {
    rolledBack: forgetCached,
    effectFailed: options.effectFailed ?? ((err) => queueMicrotask(() => { throw err; })),
    beforeCommit,
  });
  const cluster = sqliteCluster(db);
  const pingInbox = sqlitePingInbox(db);
  const applyBatch = batchApplier(db, { checks, history, stateChanges, alerts, rollups, nodes, pingInbox }, forgetCached, cluster, beforeCommit);
  const transaction = <T>(fn: () => Promise<T>): Promise<T> => units.transaction(fn);
  const gate = <R extends object>(repo: R) => units.gate(repo);
  return {
    db,
    accounts: gate(sqliteAccounts(db, credentialsChanged)),
    keys: gate(sqliteKeys(db, credentialsChanged)),
    checks: {
      ...units.gate(checks, ['version', 'clearCache', 'writtenElsewhere']),
      // What another caller's open unit holds is not read: the next call reports it.
      writtenElsewhere: () => (units.readsNow() ? checks.writtenElsewhere() : []),
      byIdNow: (id) => (units.readsNow() ? checks.byId(id) : undefined),
    },
    history: gate(history),
    stateChanges: gate(stateChanges),
    idempotency: gate(sqliteIdempotency(db)),
    nodes: gate(nodes),
    alerts: {
      emailSettings: gate(alerts.emailSettings),
      webhooks: gate(alerts.webhooks),
      deliveries: gate(alerts.deliveries),
      domainWatch: gate(alerts.domainWatch),
      outbox: gate(alerts.outbox),
    },
    oauth: gate(sqliteOAuth(db, credentialsChanged)),
    rollups: units.gate(rollups, ['add', 'addSample', 'close']),
    retention: { ...gate(sqliteRetention(db)), transaction },
    statusPages: gate(sqliteStatusPages(db)),
    incidents: gate(sqliteIncidents(db)),
    subscribers: gate(sqliteSubscribers(db)),
    operations: gate(sqliteOperations(db)),
    sessions: gate(sqliteSessions(db)),
    users: gate(sqliteUsers(db, credentialsChanged)),
    signInAttempts: gate(sqliteAttemptTallies(db)),
    audit: gate(sqliteAudit(db)),
    passkeys: gate(sqlitePasskeys(db)),
    identities: gate(sqliteIdentities(db)),
    served: gate(sqliteServedAddresses(db)),
    kumaImports: gate(sqliteKumaImports(db)),
    cluster: gate(cluster),
    pingInbox: gate(pingInbox),
    maintenanceWindows: gate(sqliteMaintenanceWindows(db)),
    configKeys: gate(sqliteConfigKeys(db)),
    credentialsVersion,
    transaction,
    afterCommit: (effect) => units.afterCommit(effect),
    // The writer's batch is a unit of its own: it never runs inside, or beside, an open one.
    applyWrites: (batch, failed, fence) => units.exclusive(() => applyBatch(batch, failed, fence)),
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
