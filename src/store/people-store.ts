import type { Actor, Role, User } from '../domain/people.js';

/** Members of accounts (issue 28): people with a role, their set-up links and recovery codes. */
export interface UserRepo {
  insert(user: User): Promise<void>;
  byId(id: string): Promise<User | null>;
  /** Case-insensitive: one person, one address, across the server. */
  byEmail(email: string): Promise<User | null>;
  /** The members of one account, or of every account with null, oldest first. */
  list(accountId: string | null): Promise<User[]>;
  countOwners(accountId: string): Promise<number>;
  setRole(id: string, role: Role, now: number): Promise<void>;
  setPassword(id: string, passwordHash: string, now: number): Promise<void>;
  /** A pending secret (enabledAt null), an enabled one, or none (secret null). */
  setTotp(id: string, secret: string | null, enabledAt: number | null, now: number): Promise<void>;
  /**
   * Records the TOTP step just accepted, only if it is later than the last one: false when it is
   * not (the same code twice), in one statement so two sign-ins racing cannot both use it.
   */
  useTotpStep(id: string, step: number): Promise<boolean>;
  /** Deletes the member with their sessions, links and recovery codes. */
  delete(id: string): Promise<void>;
  insertSetupLink(tokenHash: Buffer, userId: string, createdAt: number, expiresAt: number): Promise<void>;
  /** Retires the member's unused set-up links (a new one replaces them). */
  retireSetupLinks(userId: string, now: number): Promise<void>;
  /** Marks an unused, unexpired set-up link used and returns its user, or null (one statement). */
  redeemSetupLink(tokenHash: Buffer, now: number): Promise<string | null>;
  /** Replaces the member's recovery codes (their hashes). */
  replaceRecoveryCodes(userId: string, codeHashes: Buffer[], now: number): Promise<void>;
  /** Uses one unused recovery code: true when it was there (one statement). */
  useRecoveryCode(userId: string, codeHash: Buffer, now: number): Promise<boolean>;
  unusedRecoveryCodes(userId: string): Promise<number>;
}

/** One line of the audit log (issue 28 item 4). */
export interface AuditEntry {
  /** Ascending, never reused: the cursor. */
  seq: number;
  accountId: string;
  at: number;
  actor: Actor;
  /** `check.create`, `webhook.delete`, `member.role_change`, `session.sign_in_failed`, … */
  action: string;
  target: { kind: string; id: string | null; name: string | null };
  /** Names of the fields the change set; never their values. */
  fields: string[];
  address: string | null;
}

export interface AuditQuery {
  accountId: string;
  actorId?: string;
  actorKind?: Actor['kind'];
  /** An exact action, or a prefix ending in `.` (`check.`). */
  action?: string;
  targetId?: string;
  from?: number;
  to?: number;
}

export interface AuditRepo {
  append(entry: Omit<AuditEntry, 'seq'>): Promise<void>;
  /** Newest first; `beforeSeq` is the cursor. */
  list(query: AuditQuery, page: { limit: number; beforeSeq: number | null }): Promise<AuditEntry[]>;
  /** Deletes entries older than `cutoff`; returns how many. */
  deleteOlderThan(cutoff: number): Promise<number>;
}
