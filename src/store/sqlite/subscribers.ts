import type { Synchronous } from '../synchronous.js';
import type { Db } from '../db.js';
import type { PendingCutoffs, SubscribeOutcome, Subscriber, SubscriberRepo } from '../subscribers.js';
import { rowToSubscriber as toSubscriber, type SubscriberRowDb } from '../rows/subscribers.js';

export function sqliteSubscribers(db: Db): Synchronous<SubscriberRepo> {
  const insert = db.prepare(
    `INSERT INTO status_page_subscribers (id, page_id, kind, address, secret, token, confirmed_at, created_at)
     VALUES (@id, @pageId, @kind, @address, @secret, @token, @confirmedAt, @createdAt)`,
  );
  const expire = db.prepare('DELETE FROM status_page_subscribers WHERE page_id = ? AND kind = ? AND confirmed_at IS NULL AND created_at < ?');
  const expireAll = db.prepare('DELETE FROM status_page_subscribers WHERE kind = ? AND confirmed_at IS NULL AND created_at < ?');
  const same = db.prepare<[string, string, string], SubscriberRowDb>('SELECT * FROM status_page_subscribers WHERE page_id = ? AND kind = ? AND address = ?');
  const total = db.prepare<[string], number>('SELECT count(*) FROM status_page_subscribers WHERE page_id = ?').pluck();
  const byToken = db.prepare<[string], SubscriberRowDb>('SELECT * FROM status_page_subscribers WHERE token = ?');
  const byId = db.prepare<[string], SubscriberRowDb>('SELECT * FROM status_page_subscribers WHERE id = ?');
  const confirm = db.prepare('UPDATE status_page_subscribers SET confirmed_at = ? WHERE id = ? AND confirmed_at IS NULL');
  const remove = db.prepare('DELETE FROM status_page_subscribers WHERE id = ?');
  const list = db.prepare<[string, number, number], SubscriberRowDb>('SELECT * FROM status_page_subscribers WHERE page_id = ? ORDER BY seq LIMIT ? OFFSET ?');
  const counts = db.prepare<[string], { kind: string; confirmed: number; n: number }>(
    'SELECT kind, confirmed_at IS NOT NULL AS confirmed, count(*) AS n FROM status_page_subscribers WHERE page_id = ? GROUP BY 1, 2',
  );
  const confirmed = db.prepare<[string], SubscriberRowDb>('SELECT * FROM status_page_subscribers WHERE page_id = ? AND confirmed_at IS NOT NULL ORDER BY seq');
  const one = (row: SubscriberRowDb | undefined) => (row === undefined ? null : toSubscriber(row));

  return {
    add: db.transaction((s: Subscriber, max: number, expireBefore: PendingCutoffs): SubscribeOutcome => {
      for (const [kind, before] of Object.entries(expireBefore)) expire.run(s.pageId, kind, before);
      const existing = same.get(s.pageId, s.kind, s.address);
      if (existing) return { kind: 'exists', subscriber: toSubscriber(existing) };
      if ((total.get(s.pageId) ?? 0) >= max) return { kind: 'full' };
      insert.run(s);
      return { kind: 'added', subscriber: s };
    }),
    byToken: (token) => one(byToken.get(token)),
    byId: (id) => one(byId.get(id)),
    confirm: (id, at) => confirm.run(at, id).changes === 1,
    delete: (id) => void remove.run(id),
    list: (pageId, page) => list.all(pageId, page.limit, page.offset).map(toSubscriber),
    counts: (pageId) => {
      const out = { email: 0, webhook: 0, pending: 0 };
      for (const r of counts.all(pageId)) {
        if (!r.confirmed) out.pending += r.n;
        else if (r.kind === 'email') out.email += r.n;
        else out.webhook += r.n;
      }
      return out;
    },
    expirePending: (kind, before) => expireAll.run(kind, before).changes,
    confirmed: (pageId) => confirmed.all(pageId).map(toSubscriber),
  };
}
