import type { Migration } from './migrations.js';

/**
 * Members with roles, their sign-in secrets and the audit log (issue 28). Sessions now belong to
 * a member (user_id) when a person signed in; those opened with an API key keep key_id. Only
 * hashes of set-up links and recovery codes are stored; the TOTP secret is kept as it must be
 * read to check a code.
 */
export const PEOPLE_MIGRATION: Migration = {
  version: 18,
  name: 'members, sign-in secrets, sessions per member, audit log',
  sql: `
    CREATE TABLE users (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      email TEXT NOT NULL UNIQUE COLLATE NOCASE,
      name TEXT,
      role TEXT NOT NULL,
      password_hash TEXT,
      totp_secret TEXT,
      totp_enabled_at INTEGER,
      totp_last_step INTEGER,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE INDEX users_account ON users(account_id, created_at);

    CREATE TABLE user_setup_links (
      token_hash BLOB PRIMARY KEY,
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      used_at INTEGER
    );
    CREATE INDEX user_setup_links_user ON user_setup_links(user_id);

    CREATE TABLE user_recovery_codes (
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      code_hash BLOB NOT NULL,
      created_at INTEGER NOT NULL,
      used_at INTEGER,
      PRIMARY KEY (user_id, code_hash)
    ) WITHOUT ROWID;

    ALTER TABLE sessions ADD COLUMN user_id TEXT REFERENCES users(id) ON DELETE CASCADE;
    ALTER TABLE sessions ADD COLUMN method TEXT;
    ALTER TABLE sessions ADD COLUMN address TEXT;
    ALTER TABLE sessions ADD COLUMN user_agent TEXT;
    CREATE INDEX sessions_user ON sessions(user_id);

    CREATE TABLE audit_log (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      at INTEGER NOT NULL,
      actor_kind TEXT NOT NULL,
      actor_id TEXT NOT NULL,
      actor_name TEXT NOT NULL,
      action TEXT NOT NULL,
      target_kind TEXT NOT NULL,
      target_id TEXT,
      target_name TEXT,
      fields TEXT NOT NULL,
      address TEXT
    );
    CREATE INDEX audit_log_account ON audit_log(account_id, seq);
    CREATE INDEX audit_log_at ON audit_log(at);

    -- Every account that existed gets its owner: a member with the account's email.
    INSERT INTO users (id, account_id, email, name, role, created_at, updated_at)
      SELECT 'usr_' || lower(hex(randomblob(10))), a.id, a.email, NULL, 'owner', a.created_at, a.created_at
      FROM accounts a WHERE a.claimed = 1;
  `,
};
