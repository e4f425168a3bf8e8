import type { Synchronous } from '../synchronous.js';
import type { Db } from '../db.js';
import type { DomainWatchRepo } from '../alert-store.js';
import { rowToDomainMemory as toMemory, type DomainMemoryRowDb as Row } from '../rows/domain-watch.js';

export function sqliteDomainWatch(db: Db): Synchronous<DomainWatchRepo> {
  const get = db.prepare('SELECT * FROM domain_watch WHERE check_id = ?');
  const all = db.prepare('SELECT * FROM domain_watch');
  // A check deleted while its lookup ran has no row to refer to: nothing is written.
  const put = db.prepare(
    `INSERT INTO domain_watch (check_id, expires_at, alerted, checked_at, last_error)
     SELECT @checkId, @expiresAt, @alerted, @checkedAt, @lastError WHERE EXISTS (SELECT 1 FROM checks WHERE id = @checkId)
     ON CONFLICT (check_id) DO UPDATE SET expires_at = excluded.expires_at, alerted = excluded.alerted,
       checked_at = excluded.checked_at, last_error = excluded.last_error`,
  );
  return {
    get(checkId) {
      const r = get.get(checkId) as Row | undefined;
      return r ? toMemory(r) : null;
    },
    put: (m) => void put.run({ checkId: m.checkId, expiresAt: m.expiresAt, alerted: m.alerted, checkedAt: m.checkedAt, lastError: m.lastError }),
    all: () => (all.all() as Row[]).map(toMemory),
  };
}
