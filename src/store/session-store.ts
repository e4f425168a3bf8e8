/** Dashboard sessions and login links beside the store (SQLite now, like the rest of it). */

export interface SessionRow {
  id: string;
  accountId: string;
  /** The key the session was opened with; null when a person (or a login link) opened it. */
  keyId: string | null;
  /** The member who signed in (issue 28); null for a session opened with an API key. */
  userId: string | null;
  /** How it was opened: `password`, `totp`, `recovery_code`, `setup_link`, `login_link`, `api_key`, … */
  method: string | null;
  /** The client's address and User-Agent when it was opened (the sessions list shows them). */
  address: string | null;
  userAgent: string | null;
  createdAt: number;
  expiresAt: number;
}

export interface SessionStore {
  insert(session: SessionRow, tokenHash: Buffer): Promise<void>;
  byTokenHash(tokenHash: Buffer): Promise<SessionRow | null>;
  byId(id: string): Promise<SessionRow | null>;
  /** The member's unexpired sessions at `now`, newest first. */
  listForUser(userId: string, now: number): Promise<SessionRow[]>;
  delete(id: string): Promise<void>;
  /** Deletes every session of the member but `keep` (null: all of them); returns how many. */
  deleteForUser(userId: string, keep: string | null): Promise<number>;
  /** Deletes sessions expired before `now`; returns how many. */
  pruneExpired(now: number): Promise<number>;
  insertLoginLink(tokenHash: Buffer, accountId: string, createdAt: number, expiresAt: number): Promise<void>;
  /**
   * Marks an unused, unexpired link used and returns its account, or null: one statement, so
   * two redemptions racing cannot both succeed.
   */
  redeemLoginLink(tokenHash: Buffer, now: number): Promise<string | null>;
}
