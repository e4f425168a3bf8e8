import type { IdentityRepo, IdentityRow } from '../identity-store.js';
import type { PgDb, Row } from './db.js';
import type { Async } from './types.js';

const COLUMNS = 'id, user_id, issuer, subject, email, created_at, last_used_at';

const identity = (r: Row): IdentityRow => ({
  id: r.id as string, userId: r.user_id as string, issuer: r.issuer as string, subject: r.subject as string, email: r.email as string | null,
  createdAt: Number(r.created_at), lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
});

/** Members' single sign-on identities (issue 34), as SQLite keeps them (src/store/sqlite/identities.ts). */
export function pgIdentities(db: PgDb): Async<IdentityRepo> {
  return {
    insert: async (i) =>
      (await db.run(`INSERT INTO sso_identities (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`, [
        i.id, i.userId, i.issuer, i.subject, i.email, i.createdAt, i.lastUsedAt,
      ])) > 0,
    async bySubject(issuer, subject) {
      const r = await db.one(`SELECT ${COLUMNS} FROM sso_identities WHERE issuer = $1 AND subject = $2`, [issuer, subject]);
      return r ? identity(r) : null;
    },
    listForUser: async (userId) => (await db.query(`SELECT ${COLUMNS} FROM sso_identities WHERE user_id = $1 ORDER BY created_at, id`, [userId])).map(identity),
    recordUse: async (id, email, at) => void (await db.run('UPDATE sso_identities SET email = $1, last_used_at = $2 WHERE id = $3', [email, at, id])),
    delete: async (id, userId) => (await db.run('DELETE FROM sso_identities WHERE id = $1 AND user_id = $2', [id, userId])) > 0,
  };
}
