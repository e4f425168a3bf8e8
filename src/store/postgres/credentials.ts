import type { Account, ApiKey, KeyAccess, Scope } from '../../domain/records.js';
import type { Tier } from '../../domain/plans.js';
import type { AccountRepo, KeyRepo } from '../store.js';
import type { AgentSignup, FoundToken, OAuthRepo, TokenKind } from '../oauth-repo.js';
import type { PgDb, Row } from './db.js';
import type { Async } from './types.js';

/**
 * Accounts, API keys and OAuth: every change also moves the `credentials` counter in the same
 * statement, which every process's Store.credentialsVersion reads (index.ts), so a key revoked
 * through one process (the CLI, another central) is refused by all.
 */
export class Credentials {
  /** Local changes, seen at once by this process; the counter row tells of everyone's. */
  local = 0;
  constructor(private readonly db: PgDb) {}

  /** Runs a data-modifying statement and bumps the counter with it; returns its row count. */
  async write(sql: string, params: readonly unknown[]): Promise<number> {
    const row = await this.db.one<{ n: number }>(
      `WITH w AS (${sql} RETURNING 1), c AS (UPDATE counters SET value = value + 1 WHERE name = 'credentials')
       SELECT count(*) AS n FROM w`,
      params,
    );
    this.local++;
    return row?.n ?? 0;
  }

  async counter(): Promise<number> {
    const row = await this.db.one<{ value: number }>("SELECT value FROM counters WHERE name = 'credentials'", [], 'vigil_credentials');
    return row?.value ?? 0;
  }
}

const toAccount = (r: Row): Account => ({
  id: r.id as string,
  email: r.email as string,
  tier: r.tier as Tier,
  maxChecksOverride: r.max_checks_override as number | null,
  claimed: r.claimed as boolean,
  createdAt: r.created_at as number,
});

export function pgAccounts(db: PgDb, cred: Credentials): Async<AccountRepo> {
  const many = async (sql: string, params: unknown[] = []) => (await db.query(sql, params)).map(toAccount);
  const one = async (sql: string, params: unknown[]) => {
    const r = await db.one(sql, params);
    return r ? toAccount(r) : null;
  };
  return {
    insert: async (a) =>
      void (await cred.write(
        'INSERT INTO accounts (id, email, tier, max_checks_override, claimed, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [a.id, a.email, a.tier, a.maxChecksOverride, a.claimed, a.createdAt],
      )),
    byId: (id) => one('SELECT * FROM accounts WHERE id = $1', [id]),
    byEmail: (email) => one('SELECT * FROM accounts WHERE lower(email) = lower($1)', [email]),
    count: async () => (await db.one<{ n: number }>('SELECT count(*) AS n FROM accounts'))!.n,
    all: () => many('SELECT * FROM accounts ORDER BY created_at, id'),
    setClaimed: async (id) => void (await cred.write('UPDATE accounts SET claimed = true WHERE id = $1', [id])),
    unclaimedCreatedBefore: (cutoff) => many('SELECT * FROM accounts WHERE NOT claimed AND created_at <= $1 ORDER BY created_at', [cutoff]),
    createdBySignup: async (id) => (await db.one('SELECT 1 FROM agent_signups WHERE account_id = $1', [id])) !== null,
    delete: async (id) => {
      // A cascade would take the checks without their history (kept by check_seq) or the engine knowing.
      const r = await db.one<{ check_count: number }>('SELECT check_count FROM accounts WHERE id = $1', [id]);
      if ((r?.check_count ?? 0) > 0) throw new Error(`account ${id} still has checks`);
      await db.run('DELETE FROM idempotency_keys WHERE account_id = $1', [id]);
      await cred.write('DELETE FROM accounts WHERE id = $1', [id]);
    },
  };
}

const toKey = (r: Row): ApiKey => ({
  id: r.id as string,
  accountId: r.account_id as string,
  name: r.name as string | null,
  scopes: JSON.parse(r.scopes as string) as Scope[],
  access: r.access === null ? null : (JSON.parse(r.access as string) as KeyAccess),
  expiresAt: r.expires_at as number | null,
  disabled: r.disabled as boolean,
  revokedAt: r.revoked_at as number | null,
  createdAt: r.created_at as number,
});

export function pgKeys(db: PgDb, cred: Credentials): Async<KeyRepo> {
  const one = async (sql: string, params: unknown[], name?: string) => {
    const r = await db.one(sql, params, name);
    return r ? toKey(r) : null;
  };
  return {
    insert: async (k, hash) =>
      void (await cred.write(
        `INSERT INTO api_keys (id, account_id, name, key_hash, scopes, access, expires_at, disabled, revoked_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [k.id, k.accountId, k.name, hash, JSON.stringify(k.scopes), k.access === null ? null : JSON.stringify(k.access), k.expiresAt, k.disabled, k.revokedAt, k.createdAt],
      )),
    byHash: (hash) => one('SELECT * FROM api_keys WHERE key_hash = $1', [hash], 'vigil_key_by_hash'),
    byId: (id) => one('SELECT * FROM api_keys WHERE id = $1', [id]),
    list: async (accountId) =>
      (accountId === null
        ? await db.query('SELECT * FROM api_keys ORDER BY created_at, id')
        : await db.query('SELECT * FROM api_keys WHERE account_id = $1 ORDER BY created_at, id', [accountId])
      ).map(toKey),
    countLive: async (accountId) =>
      (await db.one<{ n: number }>('SELECT count(*) AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL', [accountId]))!.n,
    setDisabled: async (id, disabled) => void (await cred.write('UPDATE api_keys SET disabled = $1 WHERE id = $2', [disabled, id])),
    revoke: async (id, at) => void (await cred.write('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id])),
  };
}

const toSignup = (r: Row): AgentSignup => ({
  accountId: r.account_id as string,
  agentName: r.agent_name as string | null,
  claimExpiresAt: r.claim_expires_at as number,
  claimedAt: r.claimed_at as number | null,
  createdAt: r.created_at as number,
});

const toToken = (r: Row): FoundToken => ({
  id: r.id as string,
  grantId: r.grant_id as string,
  accountId: r.account_id as string,
  kind: r.kind as TokenKind,
  scopes: (r.scopes as string).split(' ') as Scope[],
  expiresAt: r.expires_at as number,
  usedAt: r.used_at as number | null,
  createdAt: r.created_at as number,
  grantRevokedAt: r.grant_revoked_at as number | null,
});

export function pgOAuth(db: PgDb, cred: Credentials): Async<OAuthRepo> {
  return {
    insertSignup: async (s, claimHash) =>
      void (await db.run(
        `INSERT INTO agent_signups (account_id, agent_name, claim_hash, claim_expires_at, claimed_at, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [s.accountId, s.agentName, claimHash, s.claimExpiresAt, s.claimedAt, s.createdAt],
      )),
    signupByClaimHash: async (hash) => {
      const r = await db.one('SELECT * FROM agent_signups WHERE claim_hash = $1', [hash]);
      return r ? toSignup(r) : null;
    },
    signupOf: async (accountId) => {
      const r = await db.one('SELECT * FROM agent_signups WHERE account_id = $1', [accountId]);
      return r ? toSignup(r) : null;
    },
    markClaimed: async (accountId, at) =>
      (await db.run('UPDATE agent_signups SET claimed_at = $1 WHERE account_id = $2 AND claimed_at IS NULL', [at, accountId])) === 1,
    countSignupsSince: async (from) => (await db.one<{ n: number }>('SELECT count(*) AS n FROM agent_signups WHERE created_at >= $1', [from]))!.n,
    insertGrant: async (g) =>
      void (await db.run('INSERT INTO oauth_grants (id, account_id, scopes, revoked_at, created_at) VALUES ($1, $2, $3, $4, $5)', [
        g.id, g.accountId, g.scopes.join(' '), g.revokedAt, g.createdAt,
      ])),
    revokeGrant: async (id, at) => void (await cred.write('UPDATE oauth_grants SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id])),
    insertToken: async (t, hash) =>
      void (await db.run(
        `INSERT INTO oauth_tokens (id, grant_id, account_id, kind, token_hash, scopes, expires_at, used_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [t.id, t.grantId, t.accountId, t.kind, hash, t.scopes.join(' '), t.expiresAt, t.usedAt, t.createdAt],
      )),
    tokenByHash: async (hash) => {
      const r = await db.one(
        `SELECT t.*, g.revoked_at AS grant_revoked_at FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = $1`,
        [hash],
        'vigil_token_by_hash',
      );
      return r ? toToken(r) : null;
    },
    markUsed: async (id, at) => (await db.run('UPDATE oauth_tokens SET used_at = $1 WHERE id = $2 AND used_at IS NULL', [at, id])) === 1,
    pruneExpired: async (cutoff) => {
      const deleted = await cred.write('DELETE FROM oauth_tokens WHERE expires_at < $1', [cutoff]);
      await db.run('DELETE FROM oauth_grants g WHERE NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.grant_id = g.id)');
      return deleted;
    },
  };
}
