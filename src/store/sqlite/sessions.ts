import type { Synchronous } from '../answer.js';
import type { Db } from '../db.js';
import type { SessionRow, SessionStore } from '../session-store.js';

interface SessionRowDb {
  id: string;
  account_id: string;
  key_id: string | null;
  created_at: number;
  expires_at: number;
}

export function sqliteSessions(db: Db): Synchronous<SessionStore> {
  const insert = db.prepare('INSERT INTO sessions (id, token_hash, account_id, key_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)');
  const byHash = db.prepare('SELECT id, account_id, key_id, created_at, expires_at FROM sessions WHERE token_hash = ?');
  const remove = db.prepare('DELETE FROM sessions WHERE id = ?');
  const prune = db.prepare('DELETE FROM sessions WHERE expires_at <= ?');
  const insertLink = db.prepare('INSERT INTO login_links (token_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)');
  const redeem = db
    .prepare('UPDATE login_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING account_id')
    .pluck();
  return {
    insert: (s, hash) => void insert.run(s.id, hash, s.accountId, s.keyId, s.createdAt, s.expiresAt),
    byTokenHash(hash) {
      const r = byHash.get(hash) as SessionRowDb | undefined;
      return r ? { id: r.id, accountId: r.account_id, keyId: r.key_id, createdAt: r.created_at, expiresAt: r.expires_at } : null;
    },
    delete: (id) => void remove.run(id),
    pruneExpired: (now) => prune.run(now).changes,
    insertLoginLink: (hash, accountId, createdAt, expiresAt) => void insertLink.run(hash, accountId, createdAt, expiresAt),
    redeemLoginLink: (hash, now) => (redeem.get(now, hash, now) as string | undefined) ?? null,
  };
}

export type { SessionRow };
