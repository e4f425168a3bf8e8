import type { Synchronous } from '../synchronous.js';
import type { Db } from '../db.js';
import type { AuthChallengeRow, PasskeyRepo, PasskeyRow } from '../passkey-store.js';

interface PasskeyDb {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: Buffer;
  counter: number;
  transports: string;
  name: string;
  backed_up: number;
  created_at: number;
  last_used_at: number | null;
}

interface ChallengeDb {
  hash: Buffer;
  purpose: string;
  user_id: string | null;
  data: string;
  created_at: number;
  expires_at: number;
}

const COLUMNS = 'id, user_id, credential_id, public_key, counter, transports, name, backed_up, created_at, last_used_at';

const passkey = (r: PasskeyDb): PasskeyRow => ({
  id: r.id, userId: r.user_id, credentialId: r.credential_id, publicKey: r.public_key, counter: r.counter,
  transports: JSON.parse(r.transports) as string[], name: r.name, backedUp: r.backed_up === 1, createdAt: r.created_at, lastUsedAt: r.last_used_at,
});

const challenge = (r: ChallengeDb): AuthChallengeRow => ({
  hash: r.hash, purpose: r.purpose, userId: r.user_id, data: r.data, createdAt: r.created_at, expiresAt: r.expires_at,
});

export function sqlitePasskeys(db: Db): Synchronous<PasskeyRepo> {
  const insert = db.prepare(`INSERT INTO passkeys (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const forUser = db.prepare<[string], PasskeyDb>(`SELECT ${COLUMNS} FROM passkeys WHERE user_id = ? ORDER BY created_at, id`);
  const byCredential = db.prepare<[string], PasskeyDb>(`SELECT ${COLUMNS} FROM passkeys WHERE credential_id = ?`);
  const rename = db.prepare('UPDATE passkeys SET name = ? WHERE id = ? AND user_id = ?');
  const remove = db.prepare('DELETE FROM passkeys WHERE id = ? AND user_id = ?');
  const used = db.prepare('UPDATE passkeys SET counter = ?, last_used_at = ? WHERE id = ?');
  const insertChallenge = db.prepare('INSERT INTO auth_challenges (hash, purpose, user_id, data, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)');
  const take = db.prepare<[Buffer, string, number], ChallengeDb>(
    'DELETE FROM auth_challenges WHERE hash = ? AND purpose = ? AND expires_at > ? RETURNING hash, purpose, user_id, data, created_at, expires_at',
  );
  const prune = db.prepare('DELETE FROM auth_challenges WHERE expires_at <= ?');
  return {
    insert: (p) =>
      void insert.run(p.id, p.userId, p.credentialId, p.publicKey, p.counter, JSON.stringify(p.transports), p.name, p.backedUp ? 1 : 0, p.createdAt, p.lastUsedAt),
    listForUser: (userId) => forUser.all(userId).map(passkey),
    byCredentialId(credentialId) {
      const r = byCredential.get(credentialId);
      return r ? passkey(r) : null;
    },
    rename: (id, userId, name) => rename.run(name, id, userId).changes > 0,
    delete: (id, userId) => remove.run(id, userId).changes > 0,
    recordUse: (id, counter, at) => void used.run(counter, at, id),
    insertChallenge: (c) => void insertChallenge.run(c.hash, c.purpose, c.userId, c.data, c.createdAt, c.expiresAt),
    takeChallenge(hash, purpose, now) {
      const r = take.get(hash, purpose, now);
      return r ? challenge(r) : null;
    },
    pruneChallenges: (now) => prune.run(now).changes,
  };
}
