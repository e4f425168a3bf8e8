import type { Synchronous } from '../synchronous.js';
import type { Scope } from '../../domain/records.js';
import type { AgentSignup, FoundToken, OAuthRepo, TokenKind } from '../oauth-repo.js';
import type { Db } from '../db.js';

interface SignupRowDb {
  account_id: string;
  agent_name: string | null;
  claim_expires_at: number;
  claimed_at: number | null;
  created_at: number;
}

interface TokenRowDb {
  id: string;
  grant_id: string;
  account_id: string;
  kind: string;
  scopes: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
  grant_revoked_at: number | null;
}

const toSignup = (r: SignupRowDb): AgentSignup => ({
  accountId: r.account_id,
  agentName: r.agent_name,
  claimExpiresAt: r.claim_expires_at,
  claimedAt: r.claimed_at,
  createdAt: r.created_at,
});

const toToken = (r: TokenRowDb): FoundToken => ({
  id: r.id,
  grantId: r.grant_id,
  accountId: r.account_id,
  kind: r.kind as TokenKind,
  scopes: r.scopes.split(' ') as Scope[],
  expiresAt: r.expires_at,
  usedAt: r.used_at,
  createdAt: r.created_at,
  grantRevokedAt: r.grant_revoked_at,
});

/**
 * Agent signups, grants and tokens in SQLite. `credentialsChanged` moves the store's
 * credentialsVersion, so the authenticator's caches drop a revoked token at once.
 */
export function sqliteOAuth(db: Db, credentialsChanged: () => void): Synchronous<OAuthRepo> {
  const insertSignup = db.prepare(
    `INSERT INTO agent_signups (account_id, agent_name, claim_hash, claim_expires_at, claimed_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const signupByClaimHash = db.prepare('SELECT * FROM agent_signups WHERE claim_hash = ?');
  const signupOf = db.prepare('SELECT * FROM agent_signups WHERE account_id = ?');
  const markClaimed = db.prepare('UPDATE agent_signups SET claimed_at = ? WHERE account_id = ? AND claimed_at IS NULL');
  const countSignupsSince = db.prepare('SELECT count(*) FROM agent_signups WHERE created_at >= ?').pluck();
  const insertGrant = db.prepare('INSERT INTO oauth_grants (id, account_id, scopes, revoked_at, created_at) VALUES (?, ?, ?, ?, ?)');
  const revokeGrant = db.prepare('UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const insertToken = db.prepare(
    `INSERT INTO oauth_tokens (id, grant_id, account_id, kind, token_hash, scopes, expires_at, used_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const tokenByHash = db.prepare(
    `SELECT t.*, g.revoked_at AS grant_revoked_at FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
     WHERE t.token_hash = ?`,
  );
  const markUsed = db.prepare('UPDATE oauth_tokens SET used_at = ? WHERE id = ? AND used_at IS NULL');
  const pruneTokens = db.prepare('DELETE FROM oauth_tokens WHERE expires_at < ?');
  const pruneGrants = db.prepare('DELETE FROM oauth_grants WHERE NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.grant_id = oauth_grants.id)');

  return {
    insertSignup: (s, claimHash) =>
      void insertSignup.run(s.accountId, s.agentName, claimHash, s.claimExpiresAt, s.claimedAt, s.createdAt),
    signupByClaimHash: (hash) => {
      const r = signupByClaimHash.get(hash) as SignupRowDb | undefined;
      return r ? toSignup(r) : null;
    },
    signupOf: (accountId) => {
      const r = signupOf.get(accountId) as SignupRowDb | undefined;
      return r ? toSignup(r) : null;
    },
    markClaimed: (accountId, at) => markClaimed.run(at, accountId).changes === 1,
    countSignupsSince: (from) => countSignupsSince.get(from) as number,
    insertGrant: (g) => void insertGrant.run(g.id, g.accountId, g.scopes.join(' '), g.revokedAt, g.createdAt),
    revokeGrant: (id, at) => {
      revokeGrant.run(at, id);
      credentialsChanged();
    },
    insertToken: (t, hash) =>
      void insertToken.run(t.id, t.grantId, t.accountId, t.kind, hash, t.scopes.join(' '), t.expiresAt, t.usedAt, t.createdAt),
    tokenByHash: (hash) => {
      const r = tokenByHash.get(hash) as TokenRowDb | undefined;
      return r ? toToken(r) : null;
    },
    markUsed: (id, at) => markUsed.run(at, id).changes === 1,
    pruneExpired: (cutoff) => {
      const deleted = pruneTokens.run(cutoff).changes;
      pruneGrants.run();
      if (deleted > 0) credentialsChanged();
      return deleted;
    },
  };
}
