import type { Migration } from './migrations.js';

/**
 * What `vigil import kuma` created (issue 18): one row per Kuma object and account, so a second
 * import of the same Kuma installation recognises it and creates nothing new.
 */
export const KUMA_IMPORTS_MIGRATION: Migration = {
  version: 9,
  name: 'Uptime Kuma import memory',
  sql: `
    CREATE TABLE kuma_imports (
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      source_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      kuma_id INTEGER NOT NULL,
      vigil_id TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (account_id, source_id, kind, kuma_id)
    ) WITHOUT ROWID;
  `,
};
