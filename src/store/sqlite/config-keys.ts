import type { Synchronous } from '../synchronous.js';
import type { Db } from '../db.js';
import type { ConfigKey, ConfigKeyRepo, ConfigKind } from '../config-keys.js';

export function sqliteConfigKeys(db: Db): Synchronous<ConfigKeyRepo> {
  const list = db.prepare<[string, string], ConfigKey>('SELECT key, object_id AS objectId FROM config_keys WHERE account_id = ? AND kind = ?');
  const clear = db.prepare('DELETE FROM config_keys WHERE account_id = ? AND kind = ?');
  const insert = db.prepare('INSERT INTO config_keys (account_id, kind, key, object_id) VALUES (?, ?, ?, ?)');
  const replace = db.transaction((accountId: string, kind: ConfigKind, keys: readonly ConfigKey[]) => {
    clear.run(accountId, kind);
    for (const k of keys) insert.run(accountId, kind, k.key, k.objectId);
  });
  return {
    list: (accountId, kind) => list.all(accountId, kind),
    replace: (accountId, kind, keys) => replace(accountId, kind, keys),
  };
}
