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
import type { ConfigKeyRepo } from './config-keys.js';
import type { OperationsRepo, StatusPageRepo } from './status-pages.js';
import type { IncidentRepo } from './incidents.js';
import type { SubscriberRepo } from './subscribers.js';
import type { WriteFailure, WriteRecord } from './writes.js';
import type { ScopedJob } from '../util/job-runner.js';


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
   * itself rejects. With a `fence` (several centrals), the transaction first checks that the
   * writer still holds its lease and rejects with `StaleOwner`, writing nothing, when it does not.
   */
  applyWrites(batch: readonly WriteRecord[], failed: WriteFailure, fence?: Fence): Promise<void>;
  /**
   * The store's own periodic work, for the app's JobRunner (which logs and counts failures):
   * PostgreSQL reads other processes' changes and makes the days-ahead partitions. None for SQLite.
   */
  jobs?(): readonly ScopedJob[];
  /** Settles once every connection (background ones too) has closed. */
  close(): Promise<void>;
}

export interface AccountRepo {
  insert(account: Account): Promise<void>;
  byId(id: string): Promise<Account | null>;
  byEmail(email: string): Promise<Account | null>;
  count(): Promise<number>;
  /** Every account, oldest first (the CLI's account list). */
  all(): Promise<Account[]>;
  /** Marks an agent-created account claimed (spec 3); credential caches see the change. */
  setClaimed(id: string): Promise<void>;
  /** Unclaimed accounts created at or before `cutoff`, oldest first (the claim lifecycle). */
  unclaimedCreatedBefore(cutoff: number): Promise<Account[]>;
  /** Whether agent signup created the account (claimed since or not). */
  createdBySignup(id: string): Promise<boolean>;
  /**
   * Deletes the account with every row kept by account (keys, alert settings and deliveries,
   * OAuth grants and tokens, idempotency records). Its checks must be removed first (through
   * ChecksService, so their history goes and the engine lets go of them).
   */
  delete(id: string): Promise<void>;
}

/** A key found by its hash, with what authentication needs to decide. */
export interface KeyRepo {
  insert(key: ApiKey, hash: Buffer): Promise<void>;
  byHash(hash: Buffer): Promise<ApiKey | null>;
  byId(id: string): Promise<ApiKey | null>;
  /** Keys of one account, or of every account with null, oldest first (revoked ones included). */
  list(accountId: string | null): Promise<ApiKey[]>;
  /** Keys that still count against the plan's allowance (not revoked). */
  countLive(accountId: string): Promise<number>;
  setDisabled(id: string, disabled: boolean): Promise<void>;
  revoke(id: string, at: number): Promise<void>;
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
  insert(check: Omit<Check, 'seq'>, urlKey: string | null, heartbeatTokenHash: Buffer | null): Promise<number>;
  byId(id: string): Promise<Check | null>;
  /** Dashboard order (creation order). `afterSeq` is the cursor; `offset` the page. */
  list(query: CheckQuery, page: { limit: number; offset: number; afterSeq: number | null }): Promise<Check[]>;
  count(query: CheckQuery): Promise<number>;
  countForAccount(accountId: string): Promise<number>;
  /** True when another check of the account already has this normalised URL. */
  urlTaken(accountId: string, urlKey: string, exceptId: string | null): Promise<boolean>;
  updateSettings(id: string, settings: CheckSettings, urlKey: string | null, now: number): Promise<void>;
  setDisabled(id: string, disabled: boolean, reason: string | null, now: number): Promise<void>;
  setMaintenance(id: string, on: boolean, until: number | null, now: number): Promise<void>;
  /** Whether a scheduled maintenance window is in force for the check (issue 27). */
  setWindowMaintenance(id: string, on: boolean, now: number): Promise<void>;
  /** Ids of the checks a window holds in maintenance now. */
  inWindowMaintenance(): Promise<string[]>;
  delete(id: string): Promise<void>;
  setHeartbeatToken(id: string, token: string, hash: Buffer, now: number): Promise<void>;
  /** Moves on every write to any check: a validator for caches of rendered checks. */
  version(): number;
  /**
   * The checks another process (the CLI) created or changed since the last call, their cached
   * records and lists dropped. Cheap when there are none: it reads the database at all only when
   * another connection has committed, and at most once per turn of the event loop. Deletions by
   * another process are not reported. Answers at once, as version() does (GET /checks is a hot
   * path): SQLite reads its own connection, PostgreSQL hands over what poll() found; while a unit
   * of work another caller opened is in progress SQLite reports nothing, and the next call does.
   */
  writtenElsewhere(): Check[];
  /**
   * byId answered without waiting where the store can (SQLite, unless a unit of work another
   * caller opened is in progress): the one synchronous read, kept for GET /checks/{id} (a hot
   * path). Undefined when it cannot now; absent on a store over the network (PostgreSQL). The
   * caller then awaits byId.
   */
  byIdNow?(id: string): Check | null | undefined;
  /**
   * A store that learns of other processes' checks by polling (PostgreSQL): reads them now, for
   * the next writtenElsewhere(), instead of at the next poll. Absent where writtenElsewhere()
   * reads the database itself (SQLite).
   */
  poll?(): Promise<void>;
  /** Every enabled check, streamed without filling the record cache (engine start). */
  forEachEnabled(visit: (check: Check) => void): Promise<void>;
  /** Every heartbeat check, paused ones too (their pings are still recorded). */
  allHeartbeats(): Promise<Check[]>;
  /** What monitoring learned; `sync` also writes the timing fields (spec 2.2 rule 2). */
  saveRuntime(id: string, runtime: RuntimeWrite): Promise<void>;
  /** What the domain monitor learned (spec 2.2 `domain`); the one writer of that field. */
  saveDomain(id: string, domain: DomainInfo | null): Promise<void>;
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
  insertEvent(event: HistoryEventInput): Promise<void>;
  insertResult(result: HistoryResultInput): Promise<void>;
  /** `before` is the cursor: [at, id] of the last row served. */
  list(query: HistoryQuery, page: { limit: number; offset: number; before: [number, number] | null }): Promise<HistoryRow[]>;
  count(query: HistoryQuery): Promise<number>;
  forCheck(checkSeq: number, limit: number): Promise<HistoryRow[]>;
  /** The latest results (probes and pings that succeeded or failed, and missed heartbeat deadlines), newest first. */
  recentResults(checkSeq: number, limit: number): Promise<RecentResult[]>;
  /** Time of the newest entry of this kind, or null. */
  lastAt(checkSeq: number, kind: 'probe' | 'ping'): Promise<number | null>;
  deleteForCheck(checkSeq: number): Promise<void>;
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
  get(accountId: string, key: string): Promise<IdempotencyRecord | null>;
  put(record: IdempotencyRecord): Promise<void>;
  deleteOlderThan(cutoff: number): Promise<number>;
}

/** A status a check entered: up/down from results, paused/pending from pause and resume. */
export type LoggedStatus = 'up' | 'down' | 'paused' | 'pending';

export interface StateChangeRepo {
  append(checkSeq: number, at: number, status: LoggedStatus): Promise<void>;
  /** Changes in [from, to], plus the last one before `from` (the state in force at `from`). */
  between(checkSeq: number, from: number, to: number): Promise<Array<{ at: number; status: LoggedStatus }>>;
  deleteForCheck(checkSeq: number): Promise<void>;
}
