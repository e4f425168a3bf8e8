import type { Migration } from './migrations.js';

/**
 * Agent signup and OAuth (spec 4.11–4.13): one row per agent-created account (its claim link,
 * hashed), grants (one per signup; revoking one revokes every token issued under it) and the
 * tokens themselves, looked up by SHA-256 (decisions §1). Rows go with their account (cascade).
 */
export const OAUTH_MIGRATION: Migration = {
  version: 4,
  name: 'agent signups, OAuth grants and tokens',
  sql: `
    CREATE TABLE agent_signups (
      account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
      agent_name TEXT,
      claim_hash BLOB NOT NULL UNIQUE,
      claim_expires_at INTEGER NOT NULL,
      claimed_at INTEGER,
      created_at INTEGER NOT NULL
    );
    -- The daily signup limit counts today's rows.
    CREATE INDEX agent_signups_created ON agent_signups(created_at);

    CREATE TABLE oauth_grants (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      scopes TEXT NOT NULL,
      revoked_at INTEGER,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX oauth_grants_account ON oauth_grants(account_id);

    CREATE TABLE oauth_tokens (
      id TEXT PRIMARY KEY,
      grant_id TEXT NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
      token_hash BLOB NOT NULL UNIQUE,
      scopes TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      -- A refresh token is spent by its one rotation; presenting it again is reuse.
      used_at INTEGER,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX oauth_tokens_grant ON oauth_tokens(grant_id);
    CREATE INDEX oauth_tokens_expires ON oauth_tokens(expires_at);

    -- The claim lifecycle reads only unclaimed accounts, by age.
    CREATE INDEX accounts_unclaimed ON accounts(created_at) WHERE claimed = 0;
  `,
};
