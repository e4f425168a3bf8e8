import type { Migration } from './migrations.js';

/**
 * Monitoring as code (issue 30): the key a monitoring file gives each check, webhook and status
 * page of an account, so that a name changed in the dashboard or in the file keeps its object.
 */
export const CONFIG_KEYS_MIGRATION: Migration = {
  version: 17,
  name: 'monitoring file keys',
  sql: `
    CREATE TABLE config_keys (
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      kind TEXT NOT NULL,
      key TEXT NOT NULL,
      object_id TEXT NOT NULL,
      PRIMARY KEY (account_id, kind, key)
    ) WITHOUT ROWID;
  `,
};
