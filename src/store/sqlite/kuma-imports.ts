import type { Db } from '../db.js';
import type { KumaImportRepo } from '../kuma-imports.js';

export function sqliteKumaImports(db: Db): KumaImportRepo {
  const find = db.prepare<[string, string, string, number], string>(
    'SELECT vigil_id FROM kuma_imports WHERE account_id = ? AND source_id = ? AND kind = ? AND kuma_id = ?',
  ).pluck();
  const insert = db.prepare(
    'INSERT INTO kuma_imports (account_id, source_id, kind, kuma_id, vigil_id, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  return {
    vigilId: (k) => find.get(k.accountId, k.sourceId, k.kind, k.kumaId) ?? null,
    remember: (k, vigilId, at) => void insert.run(k.accountId, k.sourceId, k.kind, k.kumaId, vigilId, at),
  };
}
