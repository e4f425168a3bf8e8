import type { Synchronous } from '../synchronous.js';
import type { Db } from '../db.js';
import type { IdentityRepo, IdentityRow } from '../identity-store.js';

interface IdentityDb {
  id: string;
  user_id: string;
  issuer: string;
  subject: string;
  email: string | null;
  created_at: number;
  last_used_at: number | null;
}

const COLUMNS = 'id, user_id, issuer, subject, email, created_at, last_used_at';

const identity = (r: IdentityDb): IdentityRow => ({
  id: r.id, userId: r.user_id, issuer: r.issuer, subject: r.subject, email: r.email, createdAt: r.created_at, lastUsedAt: r.last_used_at,
});

/** Members' single sign-on identities (issue 34), as PostgreSQL keeps them too (src/store/postgres/identities.ts). */
export function sqliteIdentities(db: Db): Synchronous<IdentityRepo> {
  const insert = db.prepare(`INSERT INTO sso_identities (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`);
  const bySubject = db.prepare<[string, string], IdentityDb>(`SELECT ${COLUMNS} FROM sso_identities WHERE issuer = ? AND subject = ?`);
  const forUser = db.prepare<[string], IdentityDb>(`SELECT ${COLUMNS} FROM sso_identities WHERE user_id = ? ORDER BY created_at, id`);
  const used = db.prepare('UPDATE sso_identities SET email = ?, last_used_at = ? WHERE id = ?');
  const remove = db.prepare('DELETE FROM sso_identities WHERE id = ? AND user_id = ?');
  return {
    insert: (i) => insert.run(i.id, i.userId, i.issuer, i.subject, i.email, i.createdAt, i.lastUsedAt).changes > 0,
    bySubject(issuer, subject) {
      const r = bySubject.get(issuer, subject);
      return r ? identity(r) : null;
    },
    listForUser: (userId) => forUser.all(userId).map(identity),
    recordUse: (id, email, at) => void used.run(email, at, id),
    delete: (id, userId) => remove.run(id, userId).changes > 0,
  };
}
