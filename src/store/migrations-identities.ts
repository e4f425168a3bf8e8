import type { Migration } from './migrations.js';

/**
 * Members bound to their accounts at OpenID providers by (issuer, subject) (issue 34 item 3):
 * single sign-on finds a member by this binding, not by the email the provider sends.
 */
export const IDENTITIES_MIGRATION: Migration = {
  version: 24,
  name: 'single sign-on identities',
  sql: `
    CREATE TABLE sso_identities (
      id TEXT PRIMARY KEY,
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      issuer TEXT NOT NULL,
      subject TEXT NOT NULL,
      email TEXT,
      created_at INTEGER NOT NULL,
      last_used_at INTEGER,
      UNIQUE (issuer, subject),
      UNIQUE (user_id, issuer)
    );
  `,
};
