import type { Migration } from './migrations.js';

/**
 * Issue 23: the Kuma push tokens of imported push monitors, so `/api/push/<token>` keeps working
 * (each paired with the heartbeat token it was imported beside: regenerating that one retires
 * both); and checks by `updated_at`, so a server finds at once the checks another process (the
 * CLI) created or changed on the same data directory.
 */
export const BESIDE_MIGRATION: Migration = {
  version: 10,
  name: 'Kuma push tokens; checks by updated_at',
  sql: `
    CREATE TABLE kuma_push_tokens (
      token_hash BLOB PRIMARY KEY,
      check_id TEXT NOT NULL REFERENCES checks(id) ON DELETE CASCADE,
      heartbeat_token_hash BLOB NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX kuma_push_tokens_check ON kuma_push_tokens(check_id);
    CREATE INDEX checks_updated ON checks(updated_at);
  `,
};
