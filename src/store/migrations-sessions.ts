import type { Migration } from './migrations.js';

/**
 * Dashboard sessions and one-time login links. A session rests on the API key it was opened
 * with (its scopes and restrictions are read from the key on every request) or, opened by a
 * login link, on the account alone. Only SHA-256 hashes of the tokens are stored.
 */
export const SESSIONS_MIGRATION: Migration = {
  version: 6,
  name: 'dashboard sessions and login links',
  sql: `
    CREATE TABLE sessions (
      id TEXT PRIMARY KEY,
      token_hash BLOB NOT NULL UNIQUE,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      key_id TEXT REFERENCES api_keys(id) ON DELETE CASCADE,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    );
    CREATE INDEX sessions_expiry ON sessions(expires_at);

    CREATE TABLE login_links (
      token_hash BLOB PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      used_at INTEGER
    );
  `,
};
