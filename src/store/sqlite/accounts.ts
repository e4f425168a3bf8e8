import type { Synchronous } from '../synchronous.js';
import type { Tier } from '../../domain/plans.js';
import type { Account } from '../../domain/records.js';
import type { Db } from '../db.js';
import type { AccountRepo } from '../store.js';
import { fromBool, toBool } from '../rows/values.js';

interface AccountRowDb {
  id: string;
  email: string;
  tier: string;
  max_checks_override: number | null;
  claimed: number;
  created_at: number;
}

const toAccount = (r: AccountRowDb): Account => ({
  id: r.id,
  email: r.email,
  tier: r.tier as Tier,
  maxChecksOverride: r.max_checks_override,
  claimed: toBool(r.claimed),
  createdAt: r.created_at,
});

export function sqliteAccounts(db: Db, changed: () => void): Synchronous<AccountRepo> {
  const insert = db.prepare(
    'INSERT INTO accounts (id, email, tier, max_checks_override, claimed, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const byId = db.prepare('SELECT * FROM accounts WHERE id = ?');
  const byEmail = db.prepare('SELECT * FROM accounts WHERE email = ?');
  const count = db.prepare('SELECT count(*) FROM accounts').pluck();
  const all = db.prepare('SELECT * FROM accounts ORDER BY created_at, id');
  const setClaimed = db.prepare('UPDATE accounts SET claimed = 1 WHERE id = ?');
  const unclaimed = db.prepare('SELECT * FROM accounts WHERE claimed = 0 AND created_at <= ? ORDER BY created_at');
  const bySignup = db.prepare('SELECT EXISTS (SELECT 1 FROM agent_signups WHERE account_id = ?)').pluck();
  const checkCount = db.prepare('SELECT check_count FROM accounts WHERE id = ?').pluck();
  // Idempotency records have no foreign key; every other table kept by account cascades.
  const deleteIdempotency = db.prepare('DELETE FROM idempotency_keys WHERE account_id = ?');
  const deleteAccount = db.prepare('DELETE FROM accounts WHERE id = ?');
  return {
    insert: (a) => {
      insert.run(a.id, a.email, a.tier, a.maxChecksOverride, fromBool(a.claimed), a.createdAt);
      changed();
    },
    byId: (id) => {
      const r = byId.get(id) as AccountRowDb | undefined;
      return r ? toAccount(r) : null;
    },
    byEmail: (email) => {
      const r = byEmail.get(email) as AccountRowDb | undefined;
      return r ? toAccount(r) : null;
    },
    count: () => count.get() as number,
    all: () => (all.all() as AccountRowDb[]).map(toAccount),
    setClaimed: (id) => {
      setClaimed.run(id);
      changed();
    },
    unclaimedCreatedBefore: (cutoff) => (unclaimed.all(cutoff) as AccountRowDb[]).map(toAccount),
    createdBySignup: (id) => bySignup.get(id) === 1,
    delete: (id) => {
      // A cascade would take the checks without their history (kept by check_seq) or the engine knowing.
      if (((checkCount.get(id) as number | undefined) ?? 0) > 0) throw new Error(`account ${id} still has checks`);
      deleteIdempotency.run(id);
      deleteAccount.run(id);
      changed();
    },
  };
}
