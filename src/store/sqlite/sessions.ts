import type { Synchronous } from '../synchronous.js';
import type { Db } from '../db.js';
import type { SessionRow, SessionStore } from '../session-store.js';

interface SessionRowDb {
  id: string;
  account_id: string;
  key_id: string | null;
  user_id: string | null;
  method: string | null;
  address: string | null;
  user_agent: string | null;
  created_at: number;
  expires_at: number;
}

const COLUMNS = 'id, account_id, key_id, user_id, method, address, user_agent, created_at, expires_at';

const toRow = (r: SessionRowDb): SessionRow => ({
  id: r.id,
  accountId: r.account_id,
  keyId: r.key_id,
  userId: r.user_id,
  method: r.method,
  address: r.address,
  userAgent: r.user_agent,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

export function sqliteSessions(db: Db): Synchronous<SessionStore> {
  const insert = db.prepare(
    'INSERT INTO sessions (id, token_hash, account_id, key_id, user_id, method, address, user_agent, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const byHash = db.prepare(`SELECT ${COLUMNS} FROM sessions WHERE token_hash = ?`);
  const byId = db.prepare(`SELECT ${COLUMNS} FROM sessions WHERE id = ?`);
  const ofUser = db.prepare(`SELECT ${COLUMNS} FROM sessions WHERE user_id = ? AND expires_at > ? ORDER BY created_at DESC, id`);
  const remove = db.prepare('DELETE FROM sessions WHERE id = ?');
  const removeOfUser = db.prepare("DELETE FROM sessions WHERE user_id = ? AND id <> coalesce(?, '')");
  const prune = db.prepare('DELETE FROM sessions WHERE expires_at <= ?');
  const insertLink = db.prepare('INSERT INTO login_links (token_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)');
  const redeem = db
    .prepare('UPDATE login_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING account_id')
    .pluck();
  const one = (r: unknown) => (r ? toRow(r as SessionRowDb) : null);
  return {
    insert: (s, hash) => void insert.run(s.id, hash, s.accountId, s.keyId, s.userId, s.method, s.address, s.userAgent, s.createdAt, s.expiresAt),
    byTokenHash: (hash) => one(byHash.get(hash)),
    byId: (id) => one(byId.get(id)),
    listForUser: (userId, now) => (ofUser.all(userId, now) as SessionRowDb[]).map(toRow),
    delete: (id) => void remove.run(id),
    deleteForUser: (userId, keep) => removeOfUser.run(userId, keep).changes,
    pruneExpired: (now) => prune.run(now).changes,
    insertLoginLink: (hash, accountId, createdAt, expiresAt) => void insertLink.run(hash, accountId, createdAt, expiresAt),
    redeemLoginLink: (hash, now) => (redeem.get(now, hash, now) as string | undefined) ?? null,
  };
}

export type { SessionRow };
