import type { Synchronous } from '../synchronous.js';
import type { ApiKey, KeyAccess, Scope } from '../../domain/records.js';
import type { Db } from '../db.js';
import type { KeyRepo } from '../store.js';
import { fromBool, parseJson, toBool, toJson } from '../rows/values.js';

interface KeyRowDb {
  id: string;
  account_id: string;
  name: string | null;
  scopes: string;
  access: string | null;
  expires_at: number | null;
  disabled: number;
  revoked_at: number | null;
  created_at: number;
}

const toKey = (r: KeyRowDb): ApiKey => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  scopes: JSON.parse(r.scopes) as Scope[],
  access: parseJson<KeyAccess>(r.access),
  expiresAt: r.expires_at,
  disabled: toBool(r.disabled),
  revokedAt: r.revoked_at,
  createdAt: r.created_at,
});

export function sqliteKeys(db: Db, changed: () => void): Synchronous<KeyRepo> {
  const insert = db.prepare(
    `INSERT INTO api_keys (id, account_id, name, key_hash, scopes, access, expires_at, disabled, revoked_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const byHash = db.prepare('SELECT * FROM api_keys WHERE key_hash = ?');
  const byId = db.prepare('SELECT * FROM api_keys WHERE id = ?');
  const listAll = db.prepare('SELECT * FROM api_keys ORDER BY created_at, id');
  const listOf = db.prepare('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id');
  const countLive = db.prepare('SELECT count(*) FROM api_keys WHERE account_id = ? AND revoked_at IS NULL').pluck();
  const setDisabled = db.prepare('UPDATE api_keys SET disabled = ? WHERE id = ?');
  const revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const one = (r: unknown) => (r ? toKey(r as KeyRowDb) : null);
  return {
    insert: (k, hash) => {
      insert.run(
        k.id, k.accountId, k.name, hash, JSON.stringify(k.scopes), toJson(k.access),
        k.expiresAt, fromBool(k.disabled), k.revokedAt, k.createdAt,
      );
      changed();
    },
    byHash: (hash) => one(byHash.get(hash)),
    byId: (id) => one(byId.get(id)),
    list: (accountId) => ((accountId === null ? listAll.all() : listOf.all(accountId)) as KeyRowDb[]).map(toKey),
    countLive: (accountId) => countLive.get(accountId) as number,
    setDisabled: (id, disabled) => {
      setDisabled.run(fromBool(disabled), id);
      changed();
    },
    revoke: (id, at) => {
      revoke.run(at, id);
      changed();
    },
  };
}
