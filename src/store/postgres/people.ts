import type { Actor, Role, User } from '../../domain/people.js';
import type { AuditEntry, AuditRepo, UserRepo } from '../people-store.js';
import type { PgDb, Row } from './db.js';
import type { Async } from './types.js';

/** Members, their set-up links and recovery codes, and the audit log (issue 28): store/sqlite/users.ts and audit.ts over PostgreSQL. */

const toUser = (r: Row): User => ({
  id: r.id as string,
  accountId: r.account_id as string,
  email: r.email as string,
  name: r.name as string | null,
  role: r.role as Role,
  passwordHash: r.password_hash as string | null,
  totpSecret: r.totp_secret as string | null,
  totpEnabledAt: r.totp_enabled_at as number | null,
  totpLastStep: r.totp_last_step as number | null,
  createdAt: r.created_at as number,
  updatedAt: r.updated_at as number,
});

export function pgUsers(db: PgDb): Async<UserRepo> {
  const one = async (sql: string, params: unknown[]) => {
    const r = await db.one(sql, params);
    return r ? toUser(r) : null;
  };
  return {
    insert: async (u) =>
      void (await db.run(
        `INSERT INTO users (id, account_id, email, name, role, password_hash, totp_secret, totp_enabled_at, totp_last_step, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [u.id, u.accountId, u.email, u.name, u.role, u.passwordHash, u.totpSecret, u.totpEnabledAt, u.totpLastStep, u.createdAt, u.updatedAt],
      )),
    byId: (id) => one('SELECT * FROM users WHERE id = $1', [id]),
    // The SQLite column is NOCASE; emails are stored lower-cased, and looked up so.
    byEmail: (email) => one('SELECT * FROM users WHERE lower(email) = lower($1)', [email]),
    list: async (accountId) =>
      (accountId === null
        ? await db.query('SELECT * FROM users ORDER BY created_at, id')
        : await db.query('SELECT * FROM users WHERE account_id = $1 ORDER BY created_at, id', [accountId])).map(toUser),
    countOwners: async (accountId) => Number((await db.one("SELECT count(*) AS n FROM users WHERE account_id = $1 AND role = 'owner'", [accountId]))!.n),
    setRole: async (id, role, now) => void (await db.run('UPDATE users SET role = $1, updated_at = $2 WHERE id = $3', [role, now, id])),
    setPassword: async (id, hash, now) => void (await db.run('UPDATE users SET password_hash = $1, updated_at = $2 WHERE id = $3', [hash, now, id])),
    setTotp: async (id, secret, enabledAt, now) =>
      void (await db.run('UPDATE users SET totp_secret = $1, totp_enabled_at = $2, totp_last_step = NULL, updated_at = $3 WHERE id = $4', [secret, enabledAt, now, id])),
    useTotpStep: async (id, step) =>
      (await db.run('UPDATE users SET totp_last_step = $1 WHERE id = $2 AND (totp_last_step IS NULL OR totp_last_step < $1)', [step, id])) === 1,
    delete: async (id) => void (await db.run('DELETE FROM users WHERE id = $1', [id])),
    insertSetupLink: async (hash, userId, createdAt, expiresAt) =>
      void (await db.run('INSERT INTO user_setup_links (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [hash, userId, createdAt, expiresAt])),
    retireSetupLinks: async (userId, now) =>
      void (await db.run('UPDATE user_setup_links SET used_at = $1 WHERE user_id = $2 AND used_at IS NULL', [now, userId])),
    redeemSetupLink: async (hash, now) =>
      (await db.one<{ user_id: string }>(
        'UPDATE user_setup_links SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING user_id', [now, hash],
      ))?.user_id ?? null,
    async replaceRecoveryCodes(userId, hashes, now) {
      await db.transaction(async () => {
        await db.run('DELETE FROM user_recovery_codes WHERE user_id = $1', [userId]);
        if (hashes.length === 0) return;
        await db.run(
          'INSERT INTO user_recovery_codes (user_id, code_hash, created_at) SELECT $1, h, $3 FROM unnest($2::bytea[]) AS h ON CONFLICT DO NOTHING',
          [userId, hashes, now],
        );
      });
    },
    useRecoveryCode: async (userId, hash, now) =>
      (await db.run('UPDATE user_recovery_codes SET used_at = $1 WHERE user_id = $2 AND code_hash = $3 AND used_at IS NULL', [now, userId, hash])) === 1,
    unusedRecoveryCodes: async (userId) =>
      Number((await db.one('SELECT count(*) AS n FROM user_recovery_codes WHERE user_id = $1 AND used_at IS NULL', [userId]))!.n),
  };
}

const toEntry = (r: Row): AuditEntry => ({
  seq: Number(r.seq),
  accountId: r.account_id as string,
  at: r.at as number,
  actor: { kind: r.actor_kind as Actor['kind'], id: r.actor_id as string, name: r.actor_name as string },
  action: r.action as string,
  target: { kind: r.target_kind as string, id: r.target_id as string | null, name: r.target_name as string | null },
  fields: JSON.parse(r.fields as string) as string[],
  address: r.address as string | null,
});

export function pgAudit(db: PgDb): Async<AuditRepo> {
  return {
    append: async (e) =>
      void (await db.run(
        `INSERT INTO audit_log (account_id, at, actor_kind, actor_id, actor_name, action, target_kind, target_id, target_name, fields, address)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [e.accountId, e.at, e.actor.kind, e.actor.id, e.actor.name, e.action, e.target.kind, e.target.id, e.target.name, JSON.stringify(e.fields), e.address],
      )),
    async list(query, page) {
      const where = ['account_id = $1'];
      const args: unknown[] = [query.accountId];
      const add = (sql: (n: string) => string, value: unknown) => {
        args.push(value);
        where.push(sql(`$${args.length}`));
      };
      if (query.actorId !== undefined) add((n) => `actor_id = ${n}`, query.actorId);
      if (query.actorKind !== undefined) add((n) => `actor_kind = ${n}`, query.actorKind);
      if (query.action !== undefined) {
        if (query.action.endsWith('.')) add((n) => `starts_with(action, ${n})`, query.action);
        else add((n) => `action = ${n}`, query.action);
      }
      if (query.targetId !== undefined) add((n) => `target_id = ${n}`, query.targetId);
      if (query.from !== undefined) add((n) => `at >= ${n}`, query.from);
      if (query.to !== undefined) add((n) => `at <= ${n}`, query.to);
      if (page.beforeSeq !== null) add((n) => `seq < ${n}`, page.beforeSeq);
      args.push(page.limit);
      return (await db.query(`SELECT * FROM audit_log WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $${args.length}`, args)).map(toEntry);
    },
    deleteOlderThan: (cutoff) => db.run('DELETE FROM audit_log WHERE at < $1', [cutoff]),
  };
}
