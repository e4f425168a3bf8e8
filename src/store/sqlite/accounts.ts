import type { Tier } from '../../config.js';
import type { Account } from '../../core/records.js';
import type { Db } from '../db.js';
import type { AccountRepo } from '../store.js';
import { fromBool, toBool } from './statements.js';

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

export function sqliteAccounts(db: Db, changed: () => void): AccountRepo {
  const insert = db.prepare(
    'INSERT INTO accounts (id, email, tier, max_checks_override, claimed, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const byId = db.prepare('SELECT * FROM accounts WHERE id = ?');
  const byEmail = db.prepare('SELECT * FROM accounts WHERE email = ?');
  const count = db.prepare('SELECT count(*) FROM accounts').pluck();
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
  };
}
