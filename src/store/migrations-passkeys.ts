import type { Migration } from './migrations.js';

/**
 * Passkeys (WebAuthn credentials) of members, and the short-lived state of sign-in ceremonies
 * (WebAuthn challenges, single sign-on state/nonce/PKCE), stored by the hash of what the client
 * holds (issue 28).
 */
export const PASSKEYS_MIGRATION: Migration = {
  version: 19,
  name: 'passkeys and sign-in challenges',
  sql: `
    CREATE TABLE passkeys (
      id TEXT PRIMARY KEY,
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      credential_id TEXT NOT NULL UNIQUE,
      public_key BLOB NOT NULL,
      counter INTEGER NOT NULL,
      transports TEXT NOT NULL,
      name TEXT NOT NULL,
      backed_up INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      last_used_at INTEGER
    );
    CREATE INDEX passkeys_user ON passkeys(user_id, created_at);

    CREATE TABLE auth_challenges (
      hash BLOB PRIMARY KEY,
      purpose TEXT NOT NULL,
      user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
      data TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    );
    CREATE INDEX auth_challenges_expiry ON auth_challenges(expires_at);
  `,
};
