import type { Role, User } from '../../domain/people.js';
import type { Db } from '../db.js';
import type { UserRepo } from '../people-store.js';
import type { Synchronous } from '../synchronous.js';

interface UserRowDb {
  id: string;
  account_id: string;
  email: string;
  name: string | null;
  role: string;
  password_hash: string | null;
  totp_secret: string | null;
  totp_enabled_at: number | null;
  totp_last_step: number | null;
  created_at: number;
  updated_at: number;
}

const toUser = (r: UserRowDb): User => ({
  id: r.id,
  accountId: r.account_id,
  email: r.email,
  name: r.name,
  role: r.role as Role,
  passwordHash: r.password_hash,
  totpSecret: r.totp_secret,
  totpEnabledAt: r.totp_enabled_at,
  totpLastStep: r.totp_last_step,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * Members and their sign-in secrets. `changed` moves the credentials version, so a role change or
 * a removal made by the CLI reaches a running server's next request.
 */
export function sqliteUsers(db: Db, changed: () => void): Synchronous<UserRepo> {
  const insert = db.prepare(
    `INSERT INTO users (id, account_id, email, name, role, password_hash, totp_secret, totp_enabled_at, totp_last_step, created_at, updated_at)
     VALUES (@id, @accountId, @email, @name, @role, @passwordHash, @totpSecret, @totpEnabledAt, @totpLastStep, @createdAt, @updatedAt)`,
  );
  const byId = db.prepare('SELECT * FROM users WHERE id = ?');
  const byEmail = db.prepare('SELECT * FROM users WHERE email = ?');
  const ofAccount = db.prepare('SELECT * FROM users WHERE account_id = ? ORDER BY created_at, id');
  const all = db.prepare('SELECT * FROM users ORDER BY created_at, id');
  const owners = db.prepare("SELECT count(*) FROM users WHERE account_id = ? AND role = 'owner'").pluck();
  const setRole = db.prepare('UPDATE users SET role = ?, updated_at = ? WHERE id = ?');
  const setPassword = db.prepare('UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?');
  const setTotp = db.prepare('UPDATE users SET totp_secret = ?, totp_enabled_at = ?, totp_last_step = NULL, updated_at = ? WHERE id = ?');
  const useStep = db.prepare('UPDATE users SET totp_last_step = ? WHERE id = ? AND (totp_last_step IS NULL OR totp_last_step < ?)');
  const remove = db.prepare('DELETE FROM users WHERE id = ?');
  const insertLink = db.prepare('INSERT INTO user_setup_links (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)');
  const retireLinks = db.prepare('UPDATE user_setup_links SET used_at = ? WHERE user_id = ? AND used_at IS NULL');
  const redeem = db
    .prepare('UPDATE user_setup_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING user_id')
    .pluck();
  const clearCodes = db.prepare('DELETE FROM user_recovery_codes WHERE user_id = ?');
  const insertCode = db.prepare('INSERT OR IGNORE INTO user_recovery_codes (user_id, code_hash, created_at) VALUES (?, ?, ?)');
  const useCode = db.prepare('UPDATE user_recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL');
  const unusedCodes = db.prepare('SELECT count(*) FROM user_recovery_codes WHERE user_id = ? AND used_at IS NULL').pluck();
  const replaceCodes = db.transaction((userId: string, hashes: Buffer[], now: number) => {
    clearCodes.run(userId);
    for (const h of hashes) insertCode.run(userId, h, now);
  });
  const one = (r: unknown) => (r ? toUser(r as UserRowDb) : null);
  const touched = <A extends unknown[]>(fn: (...args: A) => unknown) => (...args: A): void => {
    fn(...args);
    changed();
  };
  return {
    insert: touched((u: User) => insert.run(u)),
    byId: (id) => one(byId.get(id)),
    byEmail: (email) => one(byEmail.get(email)),
    list: (accountId) => ((accountId === null ? all.all() : ofAccount.all(accountId)) as UserRowDb[]).map(toUser),
    countOwners: (accountId) => owners.get(accountId) as number,
    setRole: touched((id: string, role: Role, now: number) => setRole.run(role, now, id)),
    setPassword: touched((id: string, hash: string, now: number) => setPassword.run(hash, now, id)),
    setTotp: touched((id: string, secret: string | null, enabledAt: number | null, now: number) => setTotp.run(secret, enabledAt, now, id)),
    useTotpStep: (id, step) => useStep.run(step, id, step).changes === 1,
    delete: touched((id: string) => remove.run(id)),
    insertSetupLink: (hash, userId, createdAt, expiresAt) => void insertLink.run(hash, userId, createdAt, expiresAt),
    retireSetupLinks: (userId, now) => void retireLinks.run(now, userId),
    redeemSetupLink: (hash, now) => (redeem.get(now, hash, now) as string | undefined) ?? null,
    replaceRecoveryCodes: (userId, hashes, now) => replaceCodes(userId, hashes, now),
    useRecoveryCode: (userId, hash, now) => useCode.run(now, userId, hash).changes === 1,
    unusedRecoveryCodes: (userId) => unusedCodes.get(userId) as number,
  };
}
