import type { Synchronous } from '../../synchronous.js';
import type { Db } from '../../db.js';
import type { AlertEventType } from '../../../domain/events.js';
import type { Delivery, DeliveryChannel, DeliveryFilter, DeliveryQueue, DeliveryStatus, NewAlert, SettledAttempt } from '../../alert-store.js';
import { claimedAlerts, type OutboxClaim } from '../../alert-outbox.js';
import { outboxClaimer } from './outbox.js';
import { DELIVERY_FILTER_STATUSES } from '../../rows/deliveries.js';

interface DeliveryRow {
  seq: number;
  id: string;
  alert_seq: number;
  channel: string;
  target: string;
  status: string;
  attempts: number;
  next_at: number;
  last_status: number | null;
  last_error: string | null;
  finished_at: number | null;
  retry_until: number;
}

interface AlertRow {
  account_id: string;
  check_id: string;
  event: string;
  content: string;
  created_at: number;
}

const toDelivery = (r: DeliveryRow, a: AlertRow): Delivery => ({
  id: r.id,
  accountId: a.account_id,
  checkId: a.check_id,
  event: a.event as AlertEventType,
  channel: r.channel as DeliveryChannel,
  target: r.target,
  contentJson: a.content,
  status: r.status as DeliveryStatus,
  attempts: r.attempts,
  nextAt: r.next_at,
  lastStatus: r.last_status,
  lastError: r.last_error,
  createdAt: a.created_at,
  finishedAt: r.finished_at,
  retryUntil: r.retry_until,
});

type ClaimArgs = [leaseUntil: number, limit: number, inFlight: ReadonlyMap<string, number>, perTarget: number];

/** Candidates read per free slot: enough to skip past busy targets without scanning the queue. */
const SCAN_FACTOR = 4;
const JOINED = `SELECT d.*, a.account_id, a.check_id, a.event, a.content, a.created_at
  FROM alert_deliveries d JOIN alert_events a ON a.seq = d.alert_seq`;

/**
 * The persisted delivery queue. Exactly-once rests on two rules: a row is leased (status
 * `sending`, next_at = lease end) in the same transaction that picks it, so no two senders
 * hold it; and `delivered` is committed as soon as the receiver acknowledged (in the sender's
 * next write, within a turn of the event loop), so a restart never picks it again. A crash
 * mid-request leaves a lease that runs out, and the row is sent again with the same delivery
 * id (receivers may deduplicate on X-Vigil-Delivery). What an alert says is stored once in
 * alert_events; delivery rows stay small, so a burst writes few pages.
 */
export function sqliteDeliveryQueue(db: Db): Synchronous<DeliveryQueue> {
  const claimOutbox = outboxClaimer(db);
  const insertAlert = db.prepare(
    // A second alert of one transition (another central saw it too) is dropped with its deliveries.
    'INSERT INTO alert_events (account_id, check_id, event, content, created_at, transition) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const insertDelivery = db.prepare(
    `INSERT INTO alert_deliveries (id, alert_seq, channel, target, status, attempts, next_at, check_id, retry_until, held)
     VALUES (@id, @alert, @channel, @target, 'pending', 0, @now, @check, @until,
       EXISTS (SELECT 1 FROM alert_deliveries e WHERE e.target = @target AND e.check_id = @check AND e.status IN ('pending', 'sending')))`,
  );
  const alertOf = db.prepare('SELECT account_id, check_id, event, content, created_at FROM alert_events WHERE seq = ?');
  const candidates = db.prepare(
    `SELECT id, target, status, retry_until FROM alert_deliveries
     WHERE status IN ('pending', 'sending') AND held = 0 AND next_at <= ? AND target NOT IN (SELECT value FROM json_each(?))
     ORDER BY next_at, seq LIMIT ?`,
  );
  const lease = db.prepare(
    `UPDATE alert_deliveries SET status = 'sending', attempts = attempts + 1, next_at = ?
     WHERE id = ? AND status IN ('pending', 'sending') AND next_at <= ? RETURNING *`,
  );
  const expire = db.prepare(
    "UPDATE alert_deliveries SET status = 'failed', last_error = coalesce(last_error, 'interrupted'), finished_at = ? WHERE id = ?",
  );
  const finish = db.prepare('UPDATE alert_deliveries SET status = ?, last_status = ?, last_error = ?, finished_at = ? WHERE id = ?');
  // A finished row lets the next of its line (target and check) go, the oldest first.
  const releaseNext = db.prepare(
    `UPDATE alert_deliveries SET held = 0 WHERE id = (
       SELECT n.id FROM alert_deliveries f JOIN alert_deliveries n ON n.target = f.target AND n.check_id = f.check_id
       WHERE f.id = ? AND n.status IN ('pending', 'sending') ORDER BY n.seq LIMIT 1)`,
  );
  const retry = db.prepare("UPDATE alert_deliveries SET status = 'pending', last_status = ?, last_error = ?, next_at = ? WHERE id = ?");
  // The receiver answered again after failing: its other waiting retries need not sit out their backoff.
  const hurry = db.prepare(
    `UPDATE alert_deliveries SET next_at = @now WHERE status = 'pending' AND next_at > @now
       AND target = (SELECT target FROM alert_deliveries WHERE id = @id)`,
  );
  const requeue = db.prepare(
    `UPDATE alert_deliveries SET status = 'pending', next_at = @now, retry_until = @until, finished_at = NULL,
       held = EXISTS (SELECT 1 FROM alert_deliveries e WHERE e.target = alert_deliveries.target AND e.check_id = alert_deliveries.check_id
                      AND e.status IN ('pending', 'sending'))
     WHERE id = @id AND status = 'failed'`,
  );
  const lastQueued = db.prepare(
    `SELECT max(a.created_at) FROM alert_deliveries d JOIN alert_events a ON a.seq = d.alert_seq
     WHERE d.check_id = ? AND d.target = ? AND a.event = ?`,
  ).pluck();
  const release = db.prepare(
    "UPDATE alert_deliveries SET status = 'pending', attempts = max(0, attempts - 1), next_at = ? WHERE id = ? AND status = 'sending'",
  );
  const cancelTarget = db.prepare(
    `UPDATE alert_deliveries SET status = 'cancelled', last_error = 'webhook deleted', finished_at = ?
     WHERE channel = ? AND target = ? AND status = 'pending'`,
  );
  const nextDue = db.prepare("SELECT min(next_at) FROM alert_deliveries WHERE status IN ('pending', 'sending') AND held = 0").pluck();
  const byId = db.prepare(`${JOINED} WHERE d.id = ?`);
  const forCheck = db.prepare(`${JOINED} WHERE a.check_id = ? ORDER BY d.seq`);
  const counts = db.prepare('SELECT status, count(*) AS n FROM alert_deliveries GROUP BY status');
  // Deliveries go with their alert (cascade).
  const prune = db.prepare(
    `DELETE FROM alert_events WHERE created_at < ?
     AND NOT EXISTS (SELECT 1 FROM alert_deliveries d WHERE d.alert_seq = alert_events.seq AND d.finished_at IS NULL)`,
  );

  const joined = (r: DeliveryRow & AlertRow): Delivery => toDelivery(r, r);

  const settle = db.transaction((settled: readonly SettledAttempt[], now: number) => {
    for (const { id, outcome: o } of settled) {
      switch (o.kind) {
        case 'delivered':
          finish.run('delivered', o.status, null, now, id);
          releaseNext.run(id);
          if (o.recovered) hurry.run({ now, id });
          break;
        case 'retry':
          retry.run(o.status, o.error, o.nextAt, id);
          break;
        case 'failed':
          finish.run('failed', o.status, o.error, now, id);
          releaseNext.run(id);
          break;
        case 'cancelled':
          finish.run('cancelled', null, o.error, now, id);
          releaseNext.run(id);
          break;
        case 'released':
          release.run(o.nextAt, id);
          break;
      }
    }
  });

  const claim = db.transaction(
    (now: number, leaseUntil: number, limit: number, inFlight: ReadonlyMap<string, number>, perTarget: number) => {
      const busy = [...inFlight].filter(([, n]) => n >= perTarget).map(([t]) => t);
      const rows = candidates.all(now, JSON.stringify(busy), limit * SCAN_FACTOR) as Array<Pick<DeliveryRow, 'id' | 'target' | 'status' | 'retry_until'>>;
      const taken = new Map<string, number>();
      const alerts = new Map<number, AlertRow>();
      const out: Delivery[] = [];
      for (const r of rows) {
        if (out.length >= limit) break;
        if (r.status === 'sending' && now >= r.retry_until) {
          // A lease that ran out past the retry window: the receiver may or may not have it.
          expire.run(now, r.id);
          releaseNext.run(r.id);
          continue;
        }
        const running = (inFlight.get(r.target) ?? 0) + (taken.get(r.target) ?? 0);
        if (running >= perTarget) continue;
        const leased = lease.get(leaseUntil, r.id, now) as DeliveryRow | undefined;
        if (!leased) continue;
        taken.set(r.target, (taken.get(r.target) ?? 0) + 1);
        let alert = alerts.get(leased.alert_seq);
        if (!alert) alerts.set(leased.alert_seq, (alert = alertOf.get(leased.alert_seq) as AlertRow));
        out.push(toDelivery(leased, alert));
      }
      return out;
    },
  );

  return {
    enqueue: db.transaction((alerts: readonly NewAlert[], now: number, routed?: readonly OutboxClaim[]) => {
      for (const a of routed ? claimedAlerts(alerts, claimOutbox(routed)) : alerts) {
        const inserted = insertAlert.run(a.accountId, a.checkId, a.event, a.contentJson, a.createdAt, a.transition ?? null);
        if (inserted.changes === 0) continue;
        const seq = Number(inserted.lastInsertRowid);
        for (const d of a.deliveries) {
          insertDelivery.run({ id: d.id, alert: seq, channel: d.channel, target: d.target, now, check: a.checkId, until: a.retryUntil });
        }
      }
    }) as Synchronous<DeliveryQueue>['enqueue'],
    claim: (...args) => claim(...args),
    settle: (settled, now) => settle(settled, now),
    settleAndClaim: db.transaction((settled: readonly SettledAttempt[], now: number, ...rest: ClaimArgs) => {
      settle(settled, now);
      return claim(now, ...rest);
    }),
    cancelTarget: (channel, target, now) => cancelTarget.run(now, channel, target).changes,
    nextDueAt: () => (nextDue.get() as number | null) ?? null,
    byId(id) {
      const r = byId.get(id) as (DeliveryRow & AlertRow) | undefined;
      return r ? joined(r) : null;
    },
    forCheck: (checkId) => (forCheck.all(checkId) as Array<DeliveryRow & AlertRow>).map(joined),
    list(filter, page) {
      const w = logWhere(filter, page.beforeSeq);
      const rows = db.prepare(`${JOINED} WHERE ${w.sql} ORDER BY d.seq DESC LIMIT ? OFFSET ?`).all(...w.params, page.limit, page.offset);
      return (rows as Array<DeliveryRow & AlertRow>).map((r) => ({ ...joined(r), seq: r.seq }));
    },
    count(filter) {
      const w = logWhere(filter, null);
      return db.prepare(`SELECT count(*) FROM alert_deliveries d JOIN alert_events a ON a.seq = d.alert_seq WHERE ${w.sql}`).pluck().get(...w.params) as number;
    },
    requeue: (id, now, retryUntil) => requeue.run({ now, until: retryUntil, id }).changes > 0,
    lastQueued: (target, checkId, event) => (lastQueued.get(checkId, target, event) as number | null) ?? null,
    countByStatus() {
      const out: Record<DeliveryStatus, number> = { pending: 0, sending: 0, delivered: 0, failed: 0, cancelled: 0 };
      for (const r of counts.all() as Array<{ status: DeliveryStatus; n: number }>) out[r.status] = r.n;
      return out;
    },
    prune: (before) => prune.run(before).changes,
  };
}

/** The delivery log's WHERE clause (statements vary with the filters, so they are prepared per call). */
function logWhere(f: DeliveryFilter, beforeSeq: number | null): { sql: string; params: unknown[] } {
  // Status page notices to subscribers (issue 29) travel the same queue but are not alerts.
  const parts = ['a.account_id = ?', "d.channel IN ('email', 'webhook')"];
  const params: unknown[] = [f.accountId];
  if (f.status) {
    parts.push('d.status IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(DELIVERY_FILTER_STATUSES[f.status]));
  }
  if (f.checkId !== undefined) {
    parts.push('d.check_id = ?');
    params.push(f.checkId);
  }
  if (f.checkIds !== null) {
    parts.push('d.check_id IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(f.checkIds));
  }
  if (f.target !== undefined) {
    parts.push('d.target = ?');
    params.push(f.target);
  }
  if (beforeSeq !== null) {
    parts.push('d.seq < ?');
    params.push(beforeSeq);
  }
  return { sql: parts.join(' AND '), params };
}
