import type { Scope } from '../domain/records.js';

/**
 * What agent signup, tokens and claims keep, beside the store (SQLite now, like the rest).
 * Secrets (claim links, tokens) are passed in and found by their SHA-256 only.
 */

/** An account created by an agent, and the state of its claim link. */
export interface AgentSignup {
  accountId: string;
  agentName: string | null;
  claimExpiresAt: number;
  claimedAt: number | null;
  createdAt: number;
}

/** One signup's authorization: every token is issued under a grant, and dies with it. */
export interface OAuthGrant {
  id: string;
  accountId: string;
  scopes: Scope[];
  revokedAt: number | null;
  createdAt: number;
}

export type TokenKind = 'access' | 'refresh';

export interface OAuthToken {
  id: string;
  grantId: string;
  accountId: string;
  kind: TokenKind;
  scopes: Scope[];
  expiresAt: number;
  /** When a refresh token was spent by its rotation; null while unused (and for access tokens). */
  usedAt: number | null;
  createdAt: number;
}

/** A token found by its hash, with what deciding on it needs from its grant. */
export interface FoundToken extends OAuthToken {
  grantRevokedAt: number | null;
}

export interface OAuthRepo {
  insertSignup(signup: AgentSignup, claimHash: Buffer): Promise<void>;
  signupByClaimHash(hash: Buffer): Promise<AgentSignup | null>;
  /** The signup that created the account (its agent's name), or null for an account made otherwise. */
  signupOf(accountId: string): Promise<AgentSignup | null>;
  /** Records the claim unless one is recorded; true when this call claimed. */
  markClaimed(accountId: string, at: number): Promise<boolean>;
  /** Signups created at or after `from` (the daily limit). */
  countSignupsSince(from: number): Promise<number>;

  insertGrant(grant: OAuthGrant): Promise<void>;
  /** Revokes the grant and so every token issued under it; credential caches see it. */
  revokeGrant(id: string, at: number): Promise<void>;

  insertToken(token: OAuthToken, hash: Buffer): Promise<void>;
  tokenByHash(hash: Buffer): Promise<FoundToken | null>;
  /** Spends a refresh token; true when this call spent it (it was unused until now). */
  markUsed(id: string, at: number): Promise<boolean>;
  /** Deletes tokens expired before `cutoff`, then grants left without a token; returns tokens deleted. */
  pruneExpired(cutoff: number): Promise<number>;
}
