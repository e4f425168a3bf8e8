import type { AuthChallengeRow, PasskeyRepo, PasskeyRow } from '../passkey-store.js';
import type { PgDb, Row } from './db.js';
import type { Async } from './types.js';

const COLUMNS = 'id, user_id, credential_id, public_key, counter, transports, name, backed_up, created_at, last_used_at';

const passkey = (r: Row): PasskeyRow => ({
  id: r.id as string, userId: r.user_id as string, credentialId: r.credential_id as string, publicKey: r.public_key as Buffer,
  counter: Number(r.counter), transports: JSON.parse(r.transports as string) as string[], name: r.name as string,
  backedUp: r.backed_up as boolean, createdAt: Number(r.created_at), lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
});

const challenge = (r: Row): AuthChallengeRow => ({
  hash: r.hash as Buffer, purpose: r.purpose as string, userId: r.user_id as string | null, data: r.data as string,
  createdAt: Number(r.created_at), expiresAt: Number(r.expires_at),
});

/** Members' passkeys and sign-in ceremony state (issue 28), as SQLite keeps them (src/store/sqlite/passkeys.ts). */
export function pgPasskeys(db: PgDb): Async<PasskeyRepo> {
  return {
    insert: async (p) =>
      void (await db.run(`INSERT INTO passkeys (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [
        p.id, p.userId, p.credentialId, p.publicKey, p.counter, JSON.stringify(p.transports), p.name, p.backedUp, p.createdAt, p.lastUsedAt,
      ])),
    listForUser: async (userId) => (await db.query(`SELECT ${COLUMNS} FROM passkeys WHERE user_id = $1 ORDER BY created_at, id`, [userId])).map(passkey),
    async byCredentialId(credentialId) {
      const r = await db.one(`SELECT ${COLUMNS} FROM passkeys WHERE credential_id = $1`, [credentialId]);
      return r ? passkey(r) : null;
    },
    rename: async (id, userId, name) => (await db.run('UPDATE passkeys SET name = $1 WHERE id = $2 AND user_id = $3', [name, id, userId])) > 0,
    delete: async (id, userId) => (await db.run('DELETE FROM passkeys WHERE id = $1 AND user_id = $2', [id, userId])) > 0,
    recordUse: async (id, counter, at) => void (await db.run('UPDATE passkeys SET counter = $1, last_used_at = $2 WHERE id = $3', [counter, at, id])),
    insertChallenge: async (c) =>
      void (await db.run('INSERT INTO auth_challenges (hash, purpose, user_id, data, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        c.hash, c.purpose, c.userId, c.data, c.createdAt, c.expiresAt,
      ])),
    async takeChallenge(hash, purpose, now) {
      const r = await db.one(
        'DELETE FROM auth_challenges WHERE hash = $1 AND purpose = $2 AND expires_at > $3 RETURNING hash, purpose, user_id, data, created_at, expires_at',
        [hash, purpose, now],
      );
      return r ? challenge(r) : null;
    },
    pruneChallenges: (now) => db.run('DELETE FROM auth_challenges WHERE expires_at <= $1', [now]),
  };
}
