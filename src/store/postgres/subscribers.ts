import type { Subscriber, SubscriberRepo } from '../subscribers.js';
import { rowToSubscriber, type SubscriberRowDb } from '../rows/subscribers.js';
import type { PgDb, Row } from './db.js';
import type { Async } from './types.js';

const toSubscriber = (r: Row): Subscriber => rowToSubscriber(r as unknown as SubscriberRowDb);

/** Status page subscribers (issue 29) over PostgreSQL: the same table as store/sqlite/subscribers.ts. */
export function pgSubscribers(db: PgDb): Async<SubscriberRepo> {
  const one = async (sql: string, params: unknown[]) => {
    const r = await db.one(sql, params);
    return r ? toSubscriber(r) : null;
  };
  return {
    add: (s, max, expireBefore) =>
      db.transaction(async () => {
        // The page's row locked: two subscriptions racing cannot both pass the limit.
        await db.run('SELECT 1 FROM status_pages WHERE id = $1 FOR UPDATE', [s.pageId]);
        await db.run(
          `DELETE FROM status_page_subscribers WHERE page_id = $1 AND confirmed_at IS NULL
             AND ((kind = 'email' AND created_at < $2) OR (kind = 'webhook' AND created_at < $3))`,
          [s.pageId, expireBefore.email, expireBefore.webhook],
        );
        const existing = await one('SELECT * FROM status_page_subscribers WHERE page_id = $1 AND kind = $2 AND address = $3', [s.pageId, s.kind, s.address]);
        if (existing) return { kind: 'exists' as const, subscriber: existing };
        const total = (await db.one<{ n: number }>('SELECT count(*) AS n FROM status_page_subscribers WHERE page_id = $1', [s.pageId]))!.n;
        if (total >= max) return { kind: 'full' as const };
        await db.run(
          `INSERT INTO status_page_subscribers (id, page_id, kind, address, secret, token, confirmed_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [s.id, s.pageId, s.kind, s.address, s.secret, s.token, s.confirmedAt, s.createdAt],
        );
        return { kind: 'added' as const, subscriber: s };
      }),
    byToken: (token) => one('SELECT * FROM status_page_subscribers WHERE token = $1', [token]),
    byId: (id) => one('SELECT * FROM status_page_subscribers WHERE id = $1', [id]),
    confirm: async (id, at) => (await db.run('UPDATE status_page_subscribers SET confirmed_at = $1 WHERE id = $2 AND confirmed_at IS NULL', [at, id])) === 1,
    delete: async (id) => void (await db.run('DELETE FROM status_page_subscribers WHERE id = $1', [id])),
    list: async (pageId, page) =>
      (await db.query('SELECT * FROM status_page_subscribers WHERE page_id = $1 ORDER BY seq LIMIT $2 OFFSET $3', [pageId, page.limit, page.offset])).map(toSubscriber),
    async counts(pageId) {
      const out = { email: 0, webhook: 0, pending: 0 };
      const rows = await db.query<{ kind: string; confirmed: boolean; n: number }>(
        'SELECT kind, confirmed_at IS NOT NULL AS confirmed, count(*) AS n FROM status_page_subscribers WHERE page_id = $1 GROUP BY 1, 2',
        [pageId],
      );
      for (const r of rows) {
        if (!r.confirmed) out.pending += r.n;
        else if (r.kind === 'email') out.email += r.n;
        else out.webhook += r.n;
      }
      return out;
    },
    expirePending: (kind, before) => db.run('DELETE FROM status_page_subscribers WHERE kind = $1 AND confirmed_at IS NULL AND created_at < $2', [kind, before]),
    confirmed: async (pageId) =>
      (await db.query('SELECT * FROM status_page_subscribers WHERE page_id = $1 AND confirmed_at IS NOT NULL ORDER BY seq', [pageId])).map(toSubscriber),
  };
}
