import type { Synchronous } from '../synchronous.js';
import type { Db } from '../db.js';
import type { IdempotencyRecord, IdempotencyRepo } from '../store.js';

export function sqliteIdempotency(db: Db): Synchronous<IdempotencyRepo> {
  const get = db.prepare('SELECT * FROM idempotency_keys WHERE account_id = ? AND key = ?');
  const put = db.prepare(
    `INSERT OR REPLACE INTO idempotency_keys (account_id, key, method, path, body_hash, status, response, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const prune = db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?');
  return {
    get(accountId, key) {
      const r = get.get(accountId, key) as
        | { account_id: string; key: string; method: string; path: string; body_hash: string; status: number; response: string; created_at: number }
        | undefined;
      if (!r) return null;
      return {
        accountId: r.account_id, key: r.key, method: r.method, path: r.path,
        bodyHash: r.body_hash, status: r.status, response: r.response, createdAt: r.created_at,
      };
    },
    put: (r: IdempotencyRecord) =>
      void put.run(r.accountId, r.key, r.method, r.path, r.bodyHash, r.status, r.response, r.createdAt),
    deleteOlderThan: (cutoff) => prune.run(cutoff).changes,
  };
}
