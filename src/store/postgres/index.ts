import type { Store } from '../store.js';
import type { WriteFailure, WriteRecord } from '../writes.js';
import type { Fence } from '../cluster-repo.js';
import { pgAudit, pgUsers } from './people.js';
import { pgPasskeys } from './passkeys.js';
import { pgAttemptTallies } from './attempt-tallies.js';
import { pgIdentities } from './identities.js';
import { PgDb, unreachable } from './db.js';
import { Credentials, pgAccounts, pgKeys, pgOAuth } from './credentials.js';
import { pgChecks, type PgCheckRepo } from './checks.js';
import { pgHistory, pgStateChanges } from './history.js';
import { pgConfigKeys, pgIdempotency, pgKumaImports, pgNodes, pgOperations, pgServedAddresses, pgSessions, pgStatusPages } from './misc.js';
import { pgAlertStore, type PgAlertStore } from './alerts.js';
import { pgIncidents } from './incidents.js';
import { pgMaintenanceWindows } from './maintenance-windows.js';
import { pgSubscribers } from './subscribers.js';
import { pgRollups, type PgRollupStore } from './rollups.js';
import { dropExpiredPartitions, ensurePartitions, pgRetention, type PgRetentionStore } from './partitions.js';
import { pgBatchApplier } from './apply-writes.js';
import type { Async } from './types.js';
import { StartupError } from '../../util/startup-error.js';
import type { ScopedJob } from '../../util/job-runner.js';
import { pgCluster, pgPingInbox } from './cluster.js';
import { PgChangeBus } from './notify-bus.js';

/**
 * The PostgreSQL store (issue 26): the Store interface over a connection pool, every repository
 * method answering with a promise. Selected by `store.url`; the SQLite store stays the default.
 */
type Repos = Omit<Store, 'changes' | 'checks' | 'alerts' | 'rollups' | 'retention' | 'transaction' | 'applyWrites' | 'close' | 'credentialsVersion' | 'afterCommit'>;

export type PgStore = { [K in keyof Repos]: Async<Repos[K]> } & {
  kind: 'postgres';
  /**
   * Batches of monitoring writes worth having in flight at once (BatchWriter's `parallel`): a
   * commit waits on the database's disk flush, and concurrent commits share one.
   */
  parallelBatches: number;
  checks: PgCheckRepo;
  alerts: PgAlertStore;
  rollups: PgRollupStore;
  retention: PgRetentionStore;
  credentialsVersion(): string;
  transaction<T>(fn: () => T | Promise<T>): Promise<T>;
  afterCommit(effect: () => void): void;
  applyWrites(batch: readonly WriteRecord[], failed: WriteFailure, fence?: Fence): Promise<void>;
  /**
   * Drops history and minute-rollup partitions wholly older than the cutoffs (retention), and
   * creates the partitions of the days ahead. Returns the partitions dropped.
   */
  maintainPartitions(now: number, rawBefore: number, minutesBefore: number): Promise<number>;
  /** Reads what other processes changed: the credentials counter, and checks (with `watchChecks`). */
  refresh(): Promise<void>;
  /** `refresh` every `pollMs` and the partitions ahead hourly, for the app's JobRunner; none with `pollMs` 0. */
  jobs(): readonly ScopedJob[];
  /** LISTEN/NOTIFY among the centrals on this database (with `listen`): a served central leases its share of the checks. */
  changes?: PgChangeBus;
  /** The pool, for tests and the migration tool. */
  db: PgDb;
  close(): Promise<void>;
};

export interface PgStoreOptions {
  /** Pool size (default 20: 8 batches of writes in flight leave room for requests). */
  maxConnections?: number;
  /**
   * How often other processes' changes are read (credentials counter, checks with watchChecks),
   * by the `store-refresh` job of `jobs()`; 0: no jobs (a short-lived process: the CLI). Default 500 ms.
   */
  pollMs?: number;
  /** Polls for checks another process created or changed (CheckRepo.writtenElsewhere): a server. */
  watchChecks?: boolean;
  /**
   * An effect that threw after its unit of work committed, or the listening connection failed
   * (it reconnects); by default an uncaught error.
   */
  effectFailed?: (err: unknown) => void;
  /**
   * The change bus (`changes`): 'listen' for a served central (one connection of its own
   * LISTENs for what the other centrals tell, and the bus makes the central lease its share of
   * the checks); 'publish' for a short-lived process (the CLI) that only tells running centrals
   * what it changed. None by default.
   */
  changes?: 'listen' | 'publish';
}

const HOUR = 3_600_000;

export async function openPgStore(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
  const db = new PgDb(url, { max: options.maxConnections, effectFailed: options.effectFailed });
  const failed = options.effectFailed ?? ((err: unknown) => queueMicrotask(() => { throw err; }));
  try {
    await db.migrate();
    await ensurePartitions(db, Date.now());
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err instanceof StartupError ? err : unreachable(url, err);
  }
  const cred = new Credentials(db);
  let remote = await cred.counter();
  const checks = pgChecks(db);
  const history = pgHistory(db);
  const stateChanges = pgStateChanges(db);
  const alerts = pgAlertStore(db);
  const nodes = pgNodes(db);
  const rollups = pgRollups(db, failed);
  const retention = pgRetention(db, rollups.openBuckets);
  const cluster = pgCluster(db);
  const pingInbox = pgPingInbox(db);
  const applyWrites = pgBatchApplier(db, { checks, history, stateChanges, alerts, rollups, nodes, pingInbox });

  const refresh = async () => {
    remote = await cred.counter();
    if (options.watchChecks) await checks.poll();
  };
  if (options.watchChecks) await checks.poll();
  let changes: PgChangeBus | undefined;
  if (options.changes) changes = new PgChangeBus(url, db.pool, failed);
  if (changes && options.changes === 'listen') {
    try {
      await changes.open();
    } catch (err) {
      changes.close();
      await db.close().catch(() => undefined);
      throw unreachable(url, err);
    }
  }
  const pollMs = options.pollMs ?? 500;
  const jobs: ScopedJob[] = pollMs <= 0 ? [] : [
    { name: 'store-refresh', scope: 'every-central', everyMs: pollMs, run: refresh },
    { name: 'store-partitions', scope: 'every-central', everyMs: HOUR, run: () => ensurePartitions(db, Date.now()) },
  ];

  return {
    kind: 'postgres',
    parallelBatches: 8,
    db,
    accounts: pgAccounts(db, cred),
    keys: pgKeys(db, cred),
    checks,
    history,
    stateChanges,
    idempotency: pgIdempotency(db),
    nodes,
    alerts,
    oauth: pgOAuth(db, cred),
    rollups,
    retention,
    statusPages: pgStatusPages(db),
    incidents: pgIncidents(db),
    subscribers: pgSubscribers(db),
    operations: pgOperations(db),
    sessions: pgSessions(db),
    users: pgUsers(db),
    signInAttempts: pgAttemptTallies(db),
    passkeys: pgPasskeys(db),
    identities: pgIdentities(db),
    audit: pgAudit(db),
    served: pgServedAddresses(db),
    cluster,
    pingInbox,
    kumaImports: pgKumaImports(db),
    maintenanceWindows: pgMaintenanceWindows(db),
    configKeys: pgConfigKeys(db),
    credentialsVersion: () => `${remote}:${cred.local}`,
    transaction: (fn) => db.serviceUnit(fn),
    afterCommit: (effect) => db.afterCommit(effect),
    applyWrites,
    async maintainPartitions(now, rawBefore, minutesBefore) {
      await ensurePartitions(db, now);
      return dropExpiredPartitions(db, rawBefore, minutesBefore);
    },
    refresh,
    jobs: () => jobs,
    changes,
    async close() {
      await changes?.sent();
      changes?.close();
      await db.close();
    },
  };
}
