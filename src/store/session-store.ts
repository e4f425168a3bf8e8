import type { Answer } from './answer.js';
/** Dashboard sessions and login links beside the store (SQLite now, like the rest of it). */

export interface SessionRow {
  id: string;
  accountId: string;
  /** The key the session was opened with; null when a login link opened it. */
  keyId: string | null;
  createdAt: number;
  expiresAt: number;
}

export interface SessionStore {
  insert(session: SessionRow, tokenHash: Buffer): Answer<void>;
  byTokenHash(tokenHash: Buffer): Answer<SessionRow | null>;
  delete(id: string): Answer<void>;
  /** Deletes sessions expired before `now`; returns how many. */
  pruneExpired(now: number): Answer<number>;
  insertLoginLink(tokenHash: Buffer, accountId: string, createdAt: number, expiresAt: number): Answer<void>;
  /**
   * Marks an unused, unexpired link used and returns its account, or null: one statement, so
   * two redemptions racing cannot both succeed.
   */
  redeemLoginLink(tokenHash: Buffer, now: number): Answer<string | null>;
}
