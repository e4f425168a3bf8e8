import type { Migration } from './migrations.js';

/**
 * Issue 34: sign-in attempt tallies in the store, counted before any password is hashed
 * (store/attempt-tallies.ts; PostgreSQL version 12).
 */
export const SIGN_IN_ATTEMPTS_MIGRATION: Migration = {
  version: 25,
  name: 'sign-in attempt tallies',
  sql: `
    CREATE TABLE sign_in_attempts (
      key TEXT PRIMARY KEY,
      attempts INTEGER NOT NULL,
      forget_at INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX sign_in_attempts_forget ON sign_in_attempts(forget_at);
  `,
};
