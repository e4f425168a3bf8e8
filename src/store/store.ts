import type { NodeRepo } from './node-repo.js';
import type { Account, ApiKey, Check, CheckRuntime, CheckSettings, DomainInfo, HistoryRow, KeyAccess } from '../domain/records.js';
import type { AlertStore } from './alert-store.js';
import type { OAuthRepo } from './oauth-repo.js';
import type { RetentionStore, RollupStore } from './rollup-store.js';
import type { SessionStore } from './session-store.js';
import type { AuditRepo, UserRepo } from './people-store.js';
import type { AttemptTallyRepo } from './attempt-tallies.js';
import type { PasskeyRepo } from './passkey-store.js';
import type { IdentityRepo } from './identity-store.js';
import type { ServedAddressesRepo } from './served-addresses.js';
import type { ClusterRepo, Fence } from './cluster-repo.js';
import type { ChangeBus } from './change-bus.js';
import type { PingInboxRepo } from './ping-inbox.js';
import type { KumaImportRepo } from './kuma-imports.js';
import type { MaintenanceWindowRepo } from './maintenance-windows.js';
import type { Answer } from './answer.js';
import type { ConfigKeyRepo } from './config-keys.js';
import type { OperationsRepo, StatusPageRepo } from './status-pages.js';
import type { IncidentRepo } from './incidents.js';
import type { SubscriberRepo } from './subscribers.js';
import type { WriteFailure, WriteRecord } from './writes.js';
import type { ScopedJob } from '../util/job-runner.js';

export { whenAnswered, type Answer } from './answer.js';

/**
 * The store is the interface the services call (SQLite now; DESIGN "Scaling past one machine").
 * No SQL leaves the store; methods speak in domain records. Units of work (docs/architecture.md
 * "Transactions"): a batch of typed write records (`applyWrites`, the batched writer's), and a
 * service's `transaction(fn)` whose fn does nothing but store work.
 */
export interface Store {
  accounts: AccountRepo;
  keys: KeyRepo;
  checks: CheckRepo;
  history: HistoryRepo;
  stateChanges: StateChangeRepo;
  idempotency: IdempotencyRepo;
  /** Regional prober nodes (their registry and what the server last knew of them). */
  nodes: NodeRepo;
  /** Alert settings, webhooks, the delivery queue and the domain monitor's memory. */
  alerts: AlertStore;
  /** Agent signups, OAuth grants and tokens. */
  oauth: OAuthRepo;
  /** Per-minute, hour and day aggregates of results (DESIGN 7), fed by applyWrites. */
  rollups: RollupStore;
  /** Raw-history and minute-rollup pruning. */
  retention: RetentionStore;
  /** Public status pages and the checks they list. */
  statusPages: StatusPageRepo;
  /** Incidents of status pages and their timelines (issue 29). */
  incidents: IncidentRepo;
  /** Who follows each status page (issue 29). */
  subscribers: SubscriberRepo;
  /** What readiness probes write to prove the store takes a commit. */
  operations: OperationsRepo;
  /** Dashboard sessions and one-time login links. */
  sessions: SessionStore;
  /** Members of accounts with their roles, set-up links and recovery codes (issue 28). */
  users: UserRepo;
  /** Password and second-factor attempts per person and per address, shared by every central (issue 34). */
  signInAttempts: AttemptTallyRepo;
  /** Who changed what in an account (issue 28). */
  audit: AuditRepo;
  /** Members' passkeys and the short-lived state of sign-in ceremonies (WebAuthn, single sign-on). */
  passkeys: PasskeyRepo;
  /** Members bound to their accounts at OpenID providers by issuer and subject (issue 34). */
  identities: IdentityRepo;
  /** The public addresses the running server serves on, for the CLI (issue 23). */
  served: ServedAddressesRepo;
  /** What `vigil import kuma` created, and the Kuma push tokens it kept. */
  kumaImports: KumaImportRepo;
  /** Centrals and their leases of check slots (several centrals on one database; one SQLite server records itself). */
  cluster: ClusterRepo;
  /** Heartbeat pings received for checks another central owns, until it records them. */
  pingInbox: PingInboxRepo;
  /** Write batches it commits at once (PostgreSQL, on a pool); absent: one at a time (SQLite). */
  readonly parallelBatches?: number;
  /**
   * Present on a store several centrals share (PostgreSQL: LISTEN/NOTIFY): what one central
   * tells the others at once. Its presence makes a central lease its share of the checks
   * (`cluster/lease-cluster.ts`); the embedded SQLite store has one server and none.
   */
  changes?: ChangeBus;
  /** Scheduled maintenance windows (issue 27). */
  maintenanceWindows: MaintenanceWindowRepo;
  /** The keys monitoring files give an account's checks, webhooks and status pages (issue 30). */
  configKeys: ConfigKeyRepo;
  /**
   * Changes whenever an account or API key may have changed, by this process or another one
   * (the CLI): a cheap validator for caches of credentials.
   */
  credentialsVersion(): string;
  /**
   * Runs fn as one unit of work, bound to the async context: store calls awaited inside fn join
   * it without a handle. A nested call runs in a savepoint of the outer unit (a nested fn that
   * throws undoes only its own writes). Units never interleave: one waits for the open one.
   * fn does store work only (docs/architecture.md#transactions).
   */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Runs effect once the unit of work open now has committed (the outermost one: a nested unit
   * hands its effects on when it succeeds), or at once outside any; a unit that rolls back drops
   * the effects it collected. Effects are what the rest of the process does about a change (the
   * wheel, node frames, feeds, caches), so none of them acts on a change that never happened.
   */
  afterCommit(effect: () => void): void;
  /**
   * Applies a batch of monitoring writes as one transaction (group commit). A record that fails
   * on its own is reported to `failed` and the rest still commit; a failure of the commit
   * itself throws (or rejects, for a store that answers with a promise). With a `fence` (several
   * centrals), the transaction first checks that the writer still holds its lease and throws
   * (rejects with) `StaleOwner`, writing nothing, when it does not.
   */
  applyWrites(batch: readonly WriteRecord[], failed: WriteFailure, fence?: Fence): Answer<void>;
  /**
   * The store's own periodic work, for the app's JobRunner (which logs and counts failures):
   * PostgreSQL reads other processes' changes and makes the days-ahead partitions. None for SQLite.
   */
  jobs?(): readonly ScopedJob[];
  /** Settles once every connection (background ones too) has closed. */
  close(): Promise<void>;
}

export interface AccountRepo {
  insert(account: Account): Answer<void>;
  byId(id: string): Answer<Account | null>;
  byEmail(email: string): Answer<Account | null>;
  count(): Answer<number>;
  /** Every account, oldest first (the CLI's account list). */
  all(): Answer<Account[]>;
  /** Marks an agent-created account claimed (spec 3); credential caches see the change. */
  setClaimed(id: string): Answer<void>;
  /** Unclaimed accounts created at or before `cutoff`, oldest first (the claim lifecycle). */
  unclaimedCreatedBefore(cutoff: number): Answer<Account[]>;
  /** Whether agent signup created the account (claimed since or not). */
  createdBySignup(id: string): Answer<boolean>;
  /**
   * Deletes the account with every row kept by account (keys, alert settings and deliveries,
   * OAuth grants and tokens, idempotency records). Its checks must be removed first (through
   * ChecksService, so their history goes and the engine lets go of them).
   */
  delete(id: string): Answer<void>;
}

/** A key found by its hash, with what authentication needs to decide. */
export interface KeyRepo {
  insert(key: ApiKey, hash: Buffer): Answer<void>;
  byHash(hash: Buffer): Answer<ApiKey | null>;
  byId(id: string): Answer<ApiKey | null>;
  /** Keys of one account, or of every account with null, oldest first (revoked ones included). */
  list(accountId: string | null): Answer<ApiKey[]>;
  /** Keys that still count against the plan's allowance (not revoked). */
  countLive(accountId: string): Answer<number>;
  setDisabled(id: string, disabled: boolean): Answer<void>;
  revoke(id: string, at: number): Answer<void>;
}

export type ListStatus = 'up' | 'down' | 'paused';

export interface CheckQuery {
  accountId: string;
  access: KeyAccess | null;
  status?: ListStatus;
  /** Every one must match (domain/tags.ts `hasEveryTag`). */
  tags?: readonly string[];
}

export interface CheckRepo {
  /** Inserts and returns the new check's sequence number. */
  insert(check: Omit<Check, 'seq'>, urlKey: string | null, heartbeatTokenHash: Buffer | null): Answer<number>;
  byId(id: string): Answer<Check | null>;
  /** Dashboard order (creation order). `afterSeq` is the cursor; `offset` the page. */
  list(query: CheckQuery, page: { limit: number; offset: number; afterSeq: number | null }): Answer<Check[]>;
  count(query: CheckQuery): Answer<number>;
  countForAccount(accountId: string): Answer<number>;
  /** True when another check of the account already has this normalised URL. */
  urlTaken(accountId: string, urlKey: string, exceptId: string | null): Answer<boolean>;
  updateSettings(id: string, settings: CheckSettings, urlKey: string | null, now: number): Answer<void>;
  setDisabled(id: string, disabled: boolean, reason: string | null, now: number): Answer<void>;
  setMaintenance(id: string, on: boolean, until: number | null, now: number): Answer<void>;
  /** Whether a scheduled maintenance window is in force for the check (issue 27). */
  setWindowMaintenance(id: string, on: boolean, now: number): Answer<void>;
  /** Ids of the checks a window holds in maintenance now. */
  inWindowMaintenance(): Answer<string[]>;
  delete(id: string): Answer<void>;
  setHeartbeatToken(id: string, token: string, hash: Buffer, now: number): Answer<void>;
  /** Moves on every write to any check: a validator for caches of rendered checks. */
  version(): number;
  /**
   * The checks another process (the CLI) created or changed since the last call, their cached
   * records and lists dropped. Cheap when there are none: it reads the database at all only when
   * another connection has committed, and at most once per turn of the event loop. Deletions by
   * another process are not reported.
   */
  writtenElsewhere(): Answer<Check[]>;
  /**
   * A store that learns of other processes' checks by polling (PostgreSQL): reads them now, for
   * the next writtenElsewhere(), instead of at the next poll. Absent where writtenElsewhere()
   * reads the database itself (SQLite).
   */
  poll?(): Answer<void>;
  /** Every enabled check, streamed without filling the record cache (engine start). */
  forEachEnabled(visit: (check: Check) => void): Answer<void>;
  /** Every heartbeat check, paused ones too (their pings are still recorded). */
  allHeartbeats(): Answer<Check[]>;
  /** What monitoring learned; `sync` also writes the timing fields (spec 2.2 rule 2). */
  saveRuntime(id: string, runtime: RuntimeWrite): Answer<void>;
  /** What the domain monitor learned (spec 2.2 `domain`); the one writer of that field. */
  saveDomain(id: string, domain: DomainInfo | null): Answer<void>;
}

/** Everything but `domain`: the domain monitor owns that field (saveDomain). */
export type RuntimeWrite = Omit<CheckRuntime, 'lastChecked' | 'lastResponseTime' | 'lastStatusCode' | 'domain'> & {
  sync: { lastChecked: number; lastResponseTime: number | null; lastStatusCode: number | null } | null;
  /** The status differs from the one stored: lists filtered by status change. */
  statusChanged: boolean;
};

export interface HistoryEventInput {
  checkSeq: number;
  at: number;
  status: string;
  region: string | null;
  meta: Record<string, unknown>;
}

/** One probe result or heartbeat ping as history keeps it. */
export interface HistoryResultInput extends Omit<HistoryRow, 'id' | 'kind' | 'status'> {
  kind: 'probe' | 'ping';
  /** `start`: a heartbeat's /start ping, which is neither success nor failure. */
  status: 'up' | 'down' | 'start';
}

/** History filters (spec 4.2, decisions §5): `from`/`to` inclusive, newest first. */
export interface HistoryQuery {
  checkSeq: number;
  from: number | null;
  to: number | null;
  /** up: successful results; down: failed ones; error: failed with no answer at all. */
  status: 'up' | 'down' | 'error' | null;
  /** Case-insensitive substring of the error message or response snippet. */
  q: string | null;
}

/** A result reduced to what a beat bar shows. */
export interface RecentResult {
  at: number;
  status: 'up' | 'down';
  responseTime: number | null;
}

export interface HistoryRepo {
  insertEvent(event: HistoryEventInput): Answer<void>;
  insertResult(result: HistoryResultInput): Answer<void>;
  /** `before` is the cursor: [at, id] of the last row served. */
  list(query: HistoryQuery, page: { limit: number; offset: number; before: [number, number] | null }): Answer<HistoryRow[]>;
  count(query: HistoryQuery): Answer<number>;
  forCheck(checkSeq: number, limit: number): Answer<HistoryRow[]>;
  /** The latest results (probes and pings that succeeded or failed, and missed heartbeat deadlines), newest first. */
  recentResults(checkSeq: number, limit: number): Answer<RecentResult[]>;
  /** Time of the newest entry of this kind, or null. */
  lastAt(checkSeq: number, kind: 'probe' | 'ping'): Answer<number | null>;
  deleteForCheck(checkSeq: number): Answer<void>;
}

export interface IdempotencyRecord {
  accountId: string;
  key: string;
  method: string;
  path: string;
  bodyHash: string;
  status: number;
  response: string;
  createdAt: number;
}

export interface IdempotencyRepo {
  get(accountId: string, key: string): Answer<IdempotencyRecord | null>;
  put(record: IdempotencyRecord): Answer<void>;
  deleteOlderThan(cutoff: number): Answer<number>;
}

/** A status a check entered: up/down from results, paused/pending from pause and resume. */
export type LoggedStatus = 'up' | 'down' | 'paused' | 'pending';

export interface StateChangeRepo {
  append(checkSeq: number, at: number, status: LoggedStatus): Answer<void>;
  /** Changes in [from, to], plus the last one before `from` (the state in force at `from`). */
  between(checkSeq: number, from: number, to: number): Answer<Array<{ at: number; status: LoggedStatus }>>;
  deleteForCheck(checkSeq: number): Answer<void>;
}
