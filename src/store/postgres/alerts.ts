import type { AlertEventType } from '../../domain/events.js';
import type {
  AlertStore, Delivery, DeliveryChannel, DeliveryFilter, DeliveryQueue, DeliveryStatus, DomainMemory, DomainWatchRepo,
  EmailFormat, EmailSettingsRepo, NewAlert, SettledAttempt, Webhook, WebhookRepo, WebhookType,
} from '../alert-store.js';
import { claimedAlerts, outboxEvent, type AlertOutboxRepo, type OutboxClaim } from '../alert-outbox.js';
import { DELIVERY_FILTER_STATUSES } from '../rows/deliveries.js';
import { rowToDomainMemory, type DomainMemoryRowDb } from '../rows/domain-watch.js';
import type { PgDb, Row } from './db.js';
import type { Async } from './types.js';

/** The alerts layer over PostgreSQL: the same tables and rules as store/sqlite/alerts/. */
export type PgAlertStore = { [K in keyof AlertStore]: Async<AlertStore[K]> };

export function pgAlertStore(db: PgDb): PgAlertStore {
  return { emailSettings: pgEmailSettings(db), webhooks: pgWebhooks(db), deliveries: pgDeliveryQueue(db), domainWatch: pgDomainWatch(db), outbox: pgAlertOutbox(db) };
}

/** The alert outbox (store/alert-outbox.ts): a batch's events in one statement (a storm of state changes is one batch). */
function pgAlertOutbox(db: PgDb): Async<AlertOutboxRepo> {
  return {
    add: async (events) => {
      if (events.length === 0) return;
      await db.run(
        `INSERT INTO alert_outbox (id, check_id, account_id, event, created_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])`,
        [events.map((e) => e.id), events.map((e) => e.checkId), events.map((e) => e.accountId), events.map((e) => JSON.stringify(e.event)), events.map((e) => e.createdAt)],
      );
    },
    due: async (before, limit) =>
      (await db.query<Parameters<typeof outboxEvent>[0]>('SELECT * FROM alert_outbox WHERE created_at <= $1 ORDER BY created_at, id LIMIT $2', [before, limit])).map(outboxEvent),
  };
}

function pgEmailSettings(db: PgDb): Async<EmailSettingsRepo> {
  return {
    async get(accountId) {
      const r = await db.one('SELECT * FROM email_settings WHERE account_id = $1', [accountId]);
      if (!r) return null;
      return {
        accountId: r.account_id as string,
        enabled: r.enabled as boolean,
        recipients: JSON.parse(r.recipients as string) as string[],
        events: JSON.parse(r.events as string) as AlertEventType[],
        emailFormat: r.email_format as EmailFormat,
        updatedAt: r.updated_at as number,
        checkIds: JSON.parse(r.check_ids as string) as string[],
        folders: JSON.parse(r.folders as string) as string[],
        tags: JSON.parse(r.tags as string) as string[],
        remindEveryMinutes: r.remind_every_minutes as number | null,
      };
    },
    put: async (s) =>
      void (await db.run(
        `INSERT INTO email_settings (account_id, enabled, recipients, events, email_format, updated_at, check_ids, folders, remind_every_minutes, tags)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (account_id) DO UPDATE SET enabled = excluded.enabled, recipients = excluded.recipients,
           events = excluded.events, email_format = excluded.email_format, updated_at = excluded.updated_at,
           check_ids = excluded.check_ids, folders = excluded.folders, remind_every_minutes = excluded.remind_every_minutes, tags = excluded.tags`,
        [s.accountId, s.enabled, JSON.stringify(s.recipients), JSON.stringify(s.events), s.emailFormat, s.updatedAt,
          JSON.stringify(s.checkIds), JSON.stringify(s.folders), s.remindEveryMinutes, JSON.stringify(s.tags)],
      )),
    remindingAccounts: async () =>
      (await db.query<{ account_id: string }>('SELECT account_id FROM email_settings WHERE remind_every_minutes IS NOT NULL AND enabled')).map((r) => r.account_id),
  };
}

const toWebhook = (r: Row): Webhook => ({
  id: r.id as string,
  accountId: r.account_id as string,
  name: r.name as string,
  url: r.url as string,
  urlKey: r.url_key as string,
  webhookType: r.webhook_type as WebhookType,
  events: JSON.parse(r.events as string) as AlertEventType[],
  enabled: r.enabled as boolean,
  secret: r.secret as string | null,
  createdAt: r.created_at as number,
  checkIds: JSON.parse(r.check_ids as string) as string[],
  folders: JSON.parse(r.folders as string) as string[],
  tags: JSON.parse(r.tags as string) as string[],
  remindEveryMinutes: r.remind_every_minutes as number | null,
});

function pgWebhooks(db: PgDb): Async<WebhookRepo> {
  return {
    list: async (accountId) => (await db.query('SELECT * FROM webhooks WHERE account_id = $1 ORDER BY seq', [accountId])).map(toWebhook),
    byId: async (id) => {
      const r = await db.one('SELECT * FROM webhooks WHERE id = $1', [id]);
      return r ? toWebhook(r) : null;
    },
    count: async (accountId) => (await db.one<{ n: number }>('SELECT count(*) AS n FROM webhooks WHERE account_id = $1', [accountId]))!.n,
    any: async () => (await db.one('SELECT 1 FROM webhooks LIMIT 1')) !== null,
    urlTaken: async (accountId, urlKey) => (await db.one('SELECT 1 FROM webhooks WHERE account_id = $1 AND url_key = $2', [accountId, urlKey])) !== null,
    insert: async (w) =>
      void (await db.run(
        `INSERT INTO webhooks (id, account_id, name, url, url_key, webhook_type, events, enabled, secret, created_at, check_ids, folders, remind_every_minutes, tags)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [w.id, w.accountId, w.name, w.url, w.urlKey, w.webhookType, JSON.stringify(w.events), w.enabled, w.secret, w.createdAt,
          JSON.stringify(w.checkIds), JSON.stringify(w.folders), w.remindEveryMinutes, JSON.stringify(w.tags)],
      )),
    update: async (w) =>
      void (await db.run(
        `UPDATE webhooks SET name = $1, url = $2, url_key = $3, webhook_type = $4, events = $5, enabled = $6, secret = $7, check_ids = $8,
           folders = $9, remind_every_minutes = $10, tags = $12 WHERE id = $11`,
        [w.name, w.url, w.urlKey, w.webhookType, JSON.stringify(w.events), w.enabled, w.secret, JSON.stringify(w.checkIds),
          JSON.stringify(w.folders), w.remindEveryMinutes, w.id, JSON.stringify(w.tags)],
      )),
    delete: async (id) => void (await db.run('DELETE FROM webhooks WHERE id = $1', [id])),
    remindingAccounts: async () =>
      (await db.query<{ account_id: string }>('SELECT DISTINCT account_id FROM webhooks WHERE remind_every_minutes IS NOT NULL AND enabled')).map((r) => r.account_id),
  };
}

const toMemory = (r: Row): DomainMemory => rowToDomainMemory(r as unknown as DomainMemoryRowDb);

/** A check deleted while its lookup ran has no row to refer to: nothing is written. */
export const PUT_DOMAIN_MEMORY = `INSERT INTO domain_watch (check_id, expires_at, alerted, checked_at, last_error)
  SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM checks WHERE id = $1)
  ON CONFLICT (check_id) DO UPDATE SET expires_at = excluded.expires_at, alerted = excluded.alerted,
    checked_at = excluded.checked_at, last_error = excluded.last_error`;

function pgDomainWatch(db: PgDb): Async<DomainWatchRepo> {
  return {
    get: async (checkId) => {
      const r = await db.one('SELECT * FROM domain_watch WHERE check_id = $1', [checkId]);
      return r ? toMemory(r) : null;
    },
    put: async (m) => void (await db.run(PUT_DOMAIN_MEMORY, [m.checkId, m.expiresAt, m.alerted, m.checkedAt, m.lastError])),
    all: async () => (await db.query('SELECT * FROM domain_watch')).map(toMemory),
  };
}

const toDelivery = (r: Row): Delivery => ({
  id: r.id as string,
  accountId: r.account_id as string,
  checkId: r.check_id as string,
  event: r.event as AlertEventType,
  channel: r.channel as DeliveryChannel,
  target: r.target as string,
  contentJson: r.content as string,
  status: r.status as DeliveryStatus,
  attempts: r.attempts as number,
  nextAt: r.next_at as number,
  lastStatus: r.last_status as number | null,
  lastError: r.last_error as string | null,
  createdAt: r.created_at as number,
  finishedAt: r.finished_at as number | null,
  retryUntil: r.retry_until as number,
});

/** Candidates read per free slot: enough to skip past busy targets without scanning the queue. */
const SCAN_FACTOR = 4;
const JOINED = `SELECT d.*, a.account_id, a.event, a.content, a.created_at
  FROM alert_deliveries d JOIN alert_events a ON a.seq = d.alert_seq`;


function logWhere(f: DeliveryFilter, beforeSeq: number | null): { sql: string; params: unknown[] } {
  const params: unknown[] = [f.accountId];
  // Status page notices to subscribers (issue 29) travel the same queue but are not alerts.
  const parts = ['a.account_id = $1', "d.channel IN ('email', 'webhook')"];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    parts.push(sql.replace('?', `$${params.length}`));
  };
  if (f.status) add('d.status = ANY(?)', DELIVERY_FILTER_STATUSES[f.status]);
  if (f.checkId !== undefined) add('d.check_id = ?', f.checkId);
  if (f.checkIds !== null) add('d.check_id = ANY(?)', f.checkIds);
  if (f.target !== undefined) add('d.target = ?', f.target);
  if (beforeSeq !== null) add('d.seq < ?', beforeSeq);
  return { sql: parts.join(' AND '), params };
}

/**
 * The persisted delivery queue (see store/sqlite/alerts/delivery-queue.ts for the rules). A claim
 * locks its candidate rows (FOR UPDATE SKIP LOCKED), so senders on several centrals never lease
 * the same row; the lease itself is the same compare-and-set as SQLite's.
 */
function pgDeliveryQueue(db: PgDb): Async<DeliveryQueue> {
  const releaseNext = (id: string) =>
    db.run(
      `UPDATE alert_deliveries SET held = false WHERE id = (
         SELECT n.id FROM alert_deliveries f JOIN alert_deliveries n ON n.target = f.target AND n.check_id = f.check_id
         WHERE f.id = $1 AND n.status IN ('pending', 'sending') ORDER BY n.seq LIMIT 1)`,
      [id],
    );
  const finish = (status: DeliveryStatus, lastStatus: number | null, error: string | null, now: number, id: string) =>
    db.run('UPDATE alert_deliveries SET status = $1, last_status = $2, last_error = $3, finished_at = $4 WHERE id = $5', [status, lastStatus, error, now, id]);

  const enqueue = async (alerts: readonly NewAlert[], now: number, routed?: readonly OutboxClaim[]) => {
    // Another central routing the same event waits on the row lock here, then finds it gone.
    const claimed = routed
      ? new Set((await db.query<{ id: string }>('DELETE FROM alert_outbox WHERE id = ANY($1::text[]) RETURNING id', [routed.map((r) => r.id)])).map((r) => r.id))
      : null;
    for (const a of claimed ? claimedAlerts(alerts, claimed) : alerts) {
      // A second alert of one transition (another central saw it too) is dropped with its deliveries.
      const inserted = await db.one<{ seq: number }>(
        `INSERT INTO alert_events (account_id, check_id, event, content, created_at, transition) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT DO NOTHING RETURNING seq`,
        [a.accountId, a.checkId, a.event, a.contentJson, a.createdAt, a.transition ?? null],
      );
      if (!inserted) continue;
      const { seq } = inserted;
      for (const d of a.deliveries) {
        await db.run(
          `INSERT INTO alert_deliveries (id, alert_seq, channel, target, status, attempts, next_at, check_id, retry_until, held)
           VALUES ($1, $2, $3, $4, 'pending', 0, $5, $6, $7,
             EXISTS (SELECT 1 FROM alert_deliveries e WHERE e.target = $4 AND e.check_id = $6 AND e.status IN ('pending', 'sending')))`,
          [d.id, seq, d.channel, d.target, now, a.checkId, a.retryUntil],
        );
      }
    }
  };

  const settle = async (settled: readonly SettledAttempt[], now: number) => {
    for (const { id, outcome: o } of settled) {
      switch (o.kind) {
        case 'delivered':
          await finish('delivered', o.status, null, now, id);
          await releaseNext(id);
          if (o.recovered) {
            await db.run(
              `UPDATE alert_deliveries SET next_at = $1 WHERE status = 'pending' AND next_at > $1
                 AND target = (SELECT target FROM alert_deliveries WHERE id = $2)`,
              [now, id],
            );
          }
          break;
        case 'retry':
          await db.run("UPDATE alert_deliveries SET status = 'pending', last_status = $1, last_error = $2, next_at = $3 WHERE id = $4", [o.status, o.error, o.nextAt, id]);
          break;
        case 'failed':
          await finish('failed', o.status, o.error, now, id);
          await releaseNext(id);
          break;
        case 'cancelled':
          await finish('cancelled', null, o.error, now, id);
          await releaseNext(id);
          break;
        case 'released':
          await db.run("UPDATE alert_deliveries SET status = 'pending', attempts = greatest(0, attempts - 1), next_at = $1 WHERE id = $2 AND status = 'sending'", [o.nextAt, id]);
          break;
      }
    }
  };

  const claim = async (now: number, leaseUntil: number, limit: number, inFlight: ReadonlyMap<string, number>, perTarget: number) => {
    const busy = [...inFlight].filter(([, n]) => n >= perTarget).map(([t]) => t);
    const rows = await db.query<{ id: string; target: string; status: string; retry_until: number }>(
      `SELECT id, target, status, retry_until FROM alert_deliveries
       WHERE status IN ('pending', 'sending') AND NOT held AND next_at <= $1 AND NOT (target = ANY($2))
       ORDER BY next_at, seq LIMIT $3 FOR UPDATE SKIP LOCKED`,
      [now, busy, limit * SCAN_FACTOR],
    );
    const taken = new Map<string, number>();
    const out: Delivery[] = [];
    for (const r of rows) {
      if (out.length >= limit) break;
      if (r.status === 'sending' && now >= r.retry_until) {
        // A lease that ran out past the retry window: the receiver may or may not have it.
        await db.run("UPDATE alert_deliveries SET status = 'failed', last_error = coalesce(last_error, 'interrupted'), finished_at = $1 WHERE id = $2", [now, r.id]);
        await releaseNext(r.id);
        continue;
      }
      const running = (inFlight.get(r.target) ?? 0) + (taken.get(r.target) ?? 0);
      if (running >= perTarget) continue;
      const leased = await db.one(
        `WITH l AS (UPDATE alert_deliveries SET status = 'sending', attempts = attempts + 1, next_at = $1
           WHERE id = $2 AND status IN ('pending', 'sending') AND next_at <= $3 RETURNING *)
         SELECT l.*, a.account_id, a.event, a.content, a.created_at FROM l JOIN alert_events a ON a.seq = l.alert_seq`,
        [leaseUntil, r.id, now],
      );
      if (!leased) continue;
      taken.set(r.target, (taken.get(r.target) ?? 0) + 1);
      out.push(toDelivery(leased));
    }
    return out;
  };

  return {
    enqueue: (alerts, now, routed) => db.transaction(() => enqueue(alerts, now, routed)),
    claim: (...args) => db.transaction(() => claim(...args)),
    settle: (settled, now) => db.transaction(() => settle(settled, now)),
    settleAndClaim: (settled, now, leaseUntil, limit, inFlight, perTarget) =>
      db.transaction(async () => {
        await settle(settled, now);
        return claim(now, leaseUntil, limit, inFlight, perTarget);
      }),
    cancelTarget: (channel, target, now) =>
      db.run(
        `UPDATE alert_deliveries SET status = 'cancelled', last_error = 'webhook deleted', finished_at = $1
         WHERE channel = $2 AND target = $3 AND status = 'pending'`,
        [now, channel, target],
      ),
    nextDueAt: async () => (await db.one<{ at: number | null }>("SELECT min(next_at) AS at FROM alert_deliveries WHERE status IN ('pending', 'sending') AND NOT held"))?.at ?? null,
    byId: async (id) => {
      const r = await db.one(`${JOINED} WHERE d.id = $1`, [id]);
      return r ? toDelivery(r) : null;
    },
    forCheck: async (checkId) => (await db.query(`${JOINED} WHERE a.check_id = $1 ORDER BY d.seq`, [checkId])).map(toDelivery),
    async list(filter, page) {
      const w = logWhere(filter, page.beforeSeq);
      const n = w.params.length;
      const rows = await db.query(`${JOINED} WHERE ${w.sql} ORDER BY d.seq DESC LIMIT $${n + 1} OFFSET $${n + 2}`, [...w.params, page.limit, page.offset]);
      return rows.map((r) => ({ ...toDelivery(r), seq: r.seq as number }));
    },
    async count(filter) {
      const w = logWhere(filter, null);
      return (await db.one<{ n: number }>(`SELECT count(*) AS n FROM alert_deliveries d JOIN alert_events a ON a.seq = d.alert_seq WHERE ${w.sql}`, w.params))!.n;
    },
    requeue: async (id, now, retryUntil) =>
      (await db.run(
        `UPDATE alert_deliveries SET status = 'pending', next_at = $1, retry_until = $2, finished_at = NULL,
           held = EXISTS (SELECT 1 FROM alert_deliveries e WHERE e.target = alert_deliveries.target AND e.check_id = alert_deliveries.check_id
                          AND e.status IN ('pending', 'sending'))
         WHERE id = $3 AND status = 'failed'`,
        [now, retryUntil, id],
      )) > 0,
    lastQueued: async (target, checkId, event) =>
      (await db.one<{ at: number | null }>(
        `SELECT max(a.created_at) AS at FROM alert_deliveries d JOIN alert_events a ON a.seq = d.alert_seq
         WHERE d.check_id = $1 AND d.target = $2 AND a.event = $3`,
        [checkId, target, event],
      ))?.at ?? null,
    async countByStatus() {
      const out: Record<DeliveryStatus, number> = { pending: 0, sending: 0, delivered: 0, failed: 0, cancelled: 0 };
      for (const r of await db.query<{ status: DeliveryStatus; n: number }>('SELECT status, count(*) AS n FROM alert_deliveries GROUP BY status')) out[r.status] = r.n;
      return out;
    },
    prune: (before) =>
      db.run(
        `DELETE FROM alert_events e WHERE created_at < $1
         AND NOT EXISTS (SELECT 1 FROM alert_deliveries d WHERE d.alert_seq = e.seq AND d.finished_at IS NULL)`,
        [before],
      ),
  };
}
