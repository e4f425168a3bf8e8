import type { Db } from '../../db.js';
import type { AlertEventType } from '../../../domain/events.js';
import type { Delivery, DeliveryChannel, DeliveryQueue, DeliveryStatus, SettledAttempt } from '../../alert-store.js';

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
});

type ClaimArgs = [leaseUntil: number, limit: number, inFlight: ReadonlyMap<string, number>, perTarget: number, maxAttempts: number];

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
export function sqliteDeliveryQueue(db: Db): DeliveryQueue {
  const insertAlert = db.prepare(
    'INSERT INTO alert_events (account_id, check_id, event, content, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const insertDelivery = db.prepare(
    "INSERT INTO alert_deliveries (id, alert_seq, channel, target, status, attempts, next_at) VALUES (?, ?, ?, ?, 'pending', 0, ?)",
  );
  const alertOf = db.prepare('SELECT account_id, check_id, event, content, created_at FROM alert_events WHERE seq = ?');
  const candidates = db.prepare(
    `SELECT id, target, attempts FROM alert_deliveries
     WHERE status IN ('pending', 'sending') AND next_at <= ? AND target NOT IN (SELECT value FROM json_each(?))
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
  const retry = db.prepare("UPDATE alert_deliveries SET status = 'pending', last_status = ?, last_error = ?, next_at = ? WHERE id = ?");
  const release = db.prepare(
    "UPDATE alert_deliveries SET status = 'pending', attempts = max(0, attempts - 1), next_at = ? WHERE id = ? AND status = 'sending'",
  );
  const cancelTarget = db.prepare(
    `UPDATE alert_deliveries SET status = 'cancelled', last_error = 'webhook deleted', finished_at = ?
     WHERE channel = ? AND target = ? AND status = 'pending'`,
  );
  const nextDue = db.prepare("SELECT min(next_at) FROM alert_deliveries WHERE status IN ('pending', 'sending')").pluck();
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
          break;
        case 'retry':
          retry.run(o.status, o.error, o.nextAt, id);
          break;
        case 'failed':
          finish.run('failed', o.status, o.error, now, id);
          break;
        case 'cancelled':
          finish.run('cancelled', null, o.error, now, id);
          break;
        case 'released':
          release.run(o.nextAt, id);
          break;
      }
    }
  });

  const claim = db.transaction(
    (now: number, leaseUntil: number, limit: number, inFlight: ReadonlyMap<string, number>, perTarget: number, maxAttempts: number) => {
      const busy = [...inFlight].filter(([, n]) => n >= perTarget).map(([t]) => t);
      const rows = candidates.all(now, JSON.stringify(busy), limit * SCAN_FACTOR) as Array<Pick<DeliveryRow, 'id' | 'target' | 'attempts'>>;
      const taken = new Map<string, number>();
      const alerts = new Map<number, AlertRow>();
      const out: Delivery[] = [];
      for (const r of rows) {
        if (out.length >= limit) break;
        if (r.attempts >= maxAttempts) {
          // A lease that ran out on the last attempt: the receiver may or may not have it.
          expire.run(now, r.id);
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
    enqueue: db.transaction((alerts, now: number) => {
      for (const a of alerts) {
        const seq = Number(insertAlert.run(a.accountId, a.checkId, a.event, a.contentJson, a.createdAt).lastInsertRowid);
        for (const d of a.deliveries) insertDelivery.run(d.id, seq, d.channel, d.target, now);
      }
    }) as DeliveryQueue['enqueue'],
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
    countByStatus() {
      const out: Record<DeliveryStatus, number> = { pending: 0, sending: 0, delivered: 0, failed: 0, cancelled: 0 };
      for (const r of counts.all() as Array<{ status: DeliveryStatus; n: number }>) out[r.status] = r.n;
      return out;
    },
    prune: (before) => prune.run(before).changes,
  };
}
