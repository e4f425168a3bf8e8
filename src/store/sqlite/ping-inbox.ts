import type { Synchronous } from '../synchronous.js';
import type { Db } from '../db.js';
import { inboxColumns, inboxItem, type PingInboxRepo } from '../ping-inbox.js';

interface Row {
  seq: number;
  check_id: string;
  slot: number;
  at: number;
  signal: string;
  error: string | null;
  details: string;
  region: string | null;
  received_by: string;
}

export function sqlitePingInbox(db: Db): Synchronous<PingInboxRepo> {
  const add = db.prepare(
    'INSERT INTO ping_inbox (check_id, slot, at, signal, error, details, region, received_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const remove = db.prepare('DELETE FROM ping_inbox WHERE seq = ?');
  const take = db.prepare<[string, number], Row>(
    'SELECT * FROM ping_inbox WHERE slot IN (SELECT value FROM json_each(?)) ORDER BY seq LIMIT ?',
  );
  return {
    add: (item) => {
      const c = inboxColumns(item);
      add.run(item.checkId, item.slot, item.at, item.signal, c.error, c.details, c.region, item.receivedBy);
    },
    remove: (seq) => void remove.run(seq),
    take: (slots, limit) =>
      slots.length === 0
        ? []
        : take.all(JSON.stringify(slots), limit).map((r) => inboxItem({
            seq: r.seq, checkId: r.check_id, slot: r.slot, at: r.at, signal: r.signal, error: r.error, details: r.details, region: r.region, receivedBy: r.received_by,
          })),
  };
}
