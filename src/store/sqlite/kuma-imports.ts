import type { Synchronous } from '../synchronous.js';
import type { Db } from '../db.js';
import type { KumaImportRepo } from '../kuma-imports.js';

export function sqliteKumaImports(db: Db): Synchronous<KumaImportRepo> {
  const find = db.prepare<[string, string, string, number], string>(
    'SELECT vigil_id FROM kuma_imports WHERE account_id = ? AND source_id = ? AND kind = ? AND kuma_id = ?',
  ).pluck();
  const insert = db.prepare(
    'INSERT INTO kuma_imports (account_id, source_id, kind, kuma_id, vigil_id, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const keepPush = db.prepare(
    `INSERT INTO kuma_push_tokens (token_hash, check_id, heartbeat_token_hash)
     SELECT ?, id, heartbeat_token_hash FROM checks WHERE id = ? AND heartbeat_token_hash IS NOT NULL
     ON CONFLICT (token_hash) DO NOTHING`,
  );
  const pingToken = db.prepare<[Buffer], string>(
    `SELECT c.heartbeat_token FROM kuma_push_tokens k JOIN checks c ON c.id = k.check_id AND c.heartbeat_token_hash = k.heartbeat_token_hash
     WHERE k.token_hash = ?`,
  ).pluck();
  return {
    vigilId: (k) => find.get(k.accountId, k.sourceId, k.kind, k.kumaId) ?? null,
    remember: (k, vigilId, at) => void insert.run(k.accountId, k.sourceId, k.kind, k.kumaId, vigilId, at),
    rememberPushToken: (tokenHash, checkId) => void keepPush.run(tokenHash, checkId),
    pingTokenFor: (tokenHash) => pingToken.get(tokenHash) ?? null,
  };
}
