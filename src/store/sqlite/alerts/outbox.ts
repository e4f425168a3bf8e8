import type { Synchronous } from '../../synchronous.js';
import type { Db } from '../../db.js';
import { outboxEvent, type AlertOutboxRepo, type OutboxClaim } from '../../alert-outbox.js';

/** The alert outbox (store/alert-outbox.ts) over SQLite. */
export function sqliteAlertOutbox(db: Db): Synchronous<AlertOutboxRepo> {
  const insert = db.prepare('INSERT INTO alert_outbox (id, check_id, account_id, event, created_at) VALUES (?, ?, ?, ?, ?)');
  const due = db.prepare('SELECT * FROM alert_outbox WHERE created_at <= ? ORDER BY created_at, id LIMIT ?');
  return {
    add(events) {
      for (const e of events) insert.run(e.id, e.checkId, e.accountId, JSON.stringify(e.event), e.createdAt);
    },
    due: (before, limit) => (due.all(before, limit) as Parameters<typeof outboxEvent>[0][]).map(outboxEvent),
  };
}

/** Deletes the routed events' rows, inside the alerts write's transaction; the ids this call deleted. */
export function outboxClaimer(db: Db): (routed: readonly OutboxClaim[] | undefined) => Set<string> {
  const remove = db.prepare('DELETE FROM alert_outbox WHERE id = ?');
  return (routed) => {
    const claimed = new Set<string>();
    for (const r of routed ?? []) if (remove.run(r.id).changes > 0) claimed.add(r.id);
    return claimed;
  };
}
