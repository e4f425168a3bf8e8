import type { AlertEvent } from '../domain/events.js';
import type { NewAlert } from './alert-store.js';

/**
 * An alert event kept with the state change that raised it until an alert pipeline has routed
 * it (a transactional outbox): the recorder's observation write inserts it in the state change's
 * own transaction, and the alerts write that routed it deletes it in its own. So a central that
 * dies between the two (or a crash of a single server) leaves the event behind, and the sweep
 * hands it to a pipeline again.
 */
export interface OutboxEvent {
  id: string;
  checkId: string;
  accountId: string;
  event: AlertEvent;
  createdAt: number;
}

/** An event a drain of the alert pipeline routed (with or without an alert to queue). */
export interface OutboxClaim {
  id: string;
  checkId: string;
}

export interface AlertOutboxRepo {
  /** Inserts events: only inside the transaction of the observation write that raised them. */
  add(events: readonly OutboxEvent[]): Promise<void>;
  /** Events written at or before `before`, oldest first: nobody routed them (their central died, or routing failed). */
  due(before: number, limit: number): Promise<OutboxEvent[]>;
}

/**
 * The alerts an alerts write queues, given the outbox events it deleted (`claimed`, emptied
 * here): an alert routed from an event is queued only when this write deleted the event's row,
 * and once (another central, a sweep, or an observation write that never committed left none);
 * an alert from no event (reminders, notices, released holds) always.
 */
export function claimedAlerts(alerts: readonly NewAlert[], claimed: Set<string>): NewAlert[] {
  return alerts.filter((a) => a.outboxId === undefined || a.outboxId === null || claimed.delete(a.outboxId));
}

/** A stored event row back as the pipeline takes it. */
export function outboxEvent(r: { id: string; check_id: string; account_id: string; event: string; created_at: number | string }): OutboxEvent {
  return { id: r.id, checkId: r.check_id, accountId: r.account_id, event: JSON.parse(r.event) as AlertEvent, createdAt: Number(r.created_at) };
}
