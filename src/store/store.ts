import type { Account, ApiKey, Check, CheckSettings, HistoryRow, KeyAccess } from '../core/records.js';

/**
 * The store is the interface the services call (SQLite now; DESIGN "Scaling past one machine").
 * No SQL leaves the store; methods speak in domain records.
 */
export interface Store {
  accounts: AccountRepo;
  keys: KeyRepo;
  checks: CheckRepo;
  history: HistoryRepo;
  idempotency: IdempotencyRepo;
  /**
   * Changes whenever an account or API key may have changed, by this process or another one
   * (the CLI): a cheap validator for caches of credentials.
   */
  credentialsVersion(): string;
  /** Runs fn in one transaction; nested calls join the outer one. */
  transaction<T>(fn: () => T): T;
  close(): void;
}

export interface AccountRepo {
  insert(account: Account): void;
  byId(id: string): Account | null;
  byEmail(email: string): Account | null;
  count(): number;
}

/** A key found by its hash, with what authentication needs to decide. */
export interface KeyRepo {
  insert(key: ApiKey, hash: Buffer): void;
  byHash(hash: Buffer): ApiKey | null;
  byId(id: string): ApiKey | null;
  /** Keys that still count against the plan's allowance (not revoked). */
  countLive(accountId: string): number;
  setDisabled(id: string, disabled: boolean): void;
  revoke(id: string, at: number): void;
}

export type ListStatus = 'up' | 'down' | 'paused';

export interface CheckQuery {
  accountId: string;
  access: KeyAccess | null;
  status?: ListStatus;
}

export interface CheckRepo {
  /** Inserts and returns the new check's sequence number. */
  insert(check: Omit<Check, 'seq'>, urlKey: string | null, heartbeatTokenHash: Buffer | null): number;
  byId(id: string): Check | null;
  /** Dashboard order (creation order). `afterSeq` is the cursor; `offset` the page. */
  list(query: CheckQuery, page: { limit: number; offset: number; afterSeq: number | null }): Check[];
  count(query: CheckQuery): number;
  countForAccount(accountId: string): number;
  /** True when another check of the account already has this normalised URL. */
  urlTaken(accountId: string, urlKey: string, exceptId: string | null): boolean;
  updateSettings(id: string, settings: CheckSettings, urlKey: string | null, now: number): void;
  setDisabled(id: string, disabled: boolean, reason: string | null, now: number): void;
  setMaintenance(id: string, on: boolean, until: number | null, now: number): void;
  delete(id: string): void;
  /** Moves on every write to any check: a validator for caches of check lists. */
  version(): number;
}

export interface HistoryEventInput {
  checkSeq: number;
  at: number;
  status: string;
  region: string | null;
  meta: Record<string, unknown>;
}

export interface HistoryRepo {
  insertEvent(event: HistoryEventInput): void;
  forCheck(checkSeq: number, limit: number): HistoryRow[];
  deleteForCheck(checkSeq: number): void;
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
  get(accountId: string, key: string): IdempotencyRecord | null;
  put(record: IdempotencyRecord): void;
  deleteOlderThan(cutoff: number): number;
}
