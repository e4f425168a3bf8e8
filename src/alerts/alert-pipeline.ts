import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { inMaintenance } from '../monitor/maintenance.js';
import type { Clock } from '../domain/clock.js';
import type { Mailer } from './delivery/mailer.js';
import { newId } from '../domain/secrets.js';
import type { BatchWriter } from '../store/batch-writer.js';
import type { Store } from '../store/store.js';
import { alertContent } from './alert-content.js';
import { transitionKey, type AlertEvent } from '../domain/events.js';
import type { AlertRouting } from './alert-routing.js';
import type { NewAlert } from '../store/alert-store.js';
import type { OutboxClaim } from '../store/alert-outbox.js';
import type { DeliverySender } from './delivery/sender.js';
import { routeMatches } from './target-options.js';
import type { DependencyHold } from './dependency-hold.js';

export interface AlertPipelineDeps {
  store: Pick<Store, 'checks' | 'alerts'>;
  routing: AlertRouting;
  writer: BatchWriter;
  sender: DeliverySender;
  mailer: Mailer;
  clock: Clock;
  config: Config;
  log: Logger;
  /** Alerts of dependants held while a check they depend on is down (absent: nothing is held). */
  hold?: DependencyHold;
}

/**
 * Time routed per turn of the event loop: a burst is spread over many turns, so the wheel's
 * timer never waits long behind it.
 */
const SLICE_MS = 0.5;

/**
 * How old an outbox event must be before a sweep routes it: far longer than routing an event
 * ever takes (a few milliseconds; seconds when the store is slow), so the sweep finds only events
 * whose central died, or whose routing failed, before they were routed.
 */
export const OUTBOX_GRACE_MS = 10_000;
/** Outbox events handed back per sweep. */
const SWEEP_LIMIT = 500;

interface PendingAlert {
  ref: { id: string; accountId: string };
  event: AlertEvent;
  /** Its row in the alert outbox, claimed by the alerts write of the drain that routes it. */
  outboxId?: string | null;
  /** Let out by the dependency hold: routed without asking it again. */
  cleared?: boolean;
}

/**
 * The event sink's far end (DESIGN: state machine -> events -> deliveries). The sink itself
 * only appends to a buffer; in later turns of the event loop, a chunk at a time, each event
 * picks the account's email setting and webhooks that listen to it, and one delivery per
 * recipient and webhook is queued through the group-committing writer. The sender is woken
 * once they are durable. Probing never waits on any of it.
 */
export class AlertPipeline {
  readonly metrics = { events: 0, suppressed: 0, queued: 0, swept: 0 };
  private buffer: PendingAlert[] = [];
  private scheduled: NodeJS.Immediate | null = null;
  private committing = 0;
  /** A drain is routing (it awaits the store): the next one starts when it is done. */
  private draining = false;
  /** Outbox events buffered or being claimed here: a sweep does not hand them in again. */
  private readonly outboxIds = new Set<string>();
  private readonly unroutedListeners: Array<() => void> = [];

  constructor(private readonly deps: AlertPipelineDeps) {
    deps.hold?.onDue((alerts) => this.requeue(alerts));
  }

  /** Alerts the dependency hold lets out, routed like any (in a later turn). */
  private requeue(alerts: ReadonlyArray<{ ref: PendingAlert['ref']; event: AlertEvent }>): void {
    for (const a of alerts) this.buffer.push({ ...a, cleared: true });
    if (!this.draining) this.scheduled ??= setImmediate(() => void this.drain());
  }

  /** A check another central owns came back up (several centrals): the alerts held here for its dependants go out. */
  async parentRecovered(checkId: string): Promise<void> {
    const due = (await this.deps.hold?.released(checkId)) ?? [];
    if (due.length > 0) this.requeue(due);
  }

  /** `outboxId`: the event's outbox row (the recorder's); its alerts are queued only if this pipeline's write claims it. */
  handle(ref: { id: string; accountId: string }, event: AlertEvent, outboxId: string | null = null): void {
    if (outboxId !== null) {
      if (this.outboxIds.has(outboxId)) return;
      this.outboxIds.add(outboxId);
    }
    this.metrics.events++;
    this.buffer.push({ ref, event, outboxId });
    if (!this.draining) this.scheduled ??= setImmediate(() => void this.drain());
  }

  /**
   * Routes the outbox events nobody routed within OUTBOX_GRACE_MS (their central died between
   * the state change and its routing, or routing failed). Another central sweeping the same
   * event, or its own central routing it late, is harmless: only the write that deletes its row
   * queues its alerts. Says how many it handed in.
   */
  async sweep(): Promise<number> {
    const due = await this.deps.store.alerts.outbox.due(this.deps.clock.now() - OUTBOX_GRACE_MS, SWEEP_LIMIT);
    let handed = 0;
    for (const e of due) {
      if (this.outboxIds.has(e.id)) continue;
      this.deps.log.warn({ checkId: e.checkId, event: e.event.type, outboxId: e.id }, 'alert event left unrouted: routing it now');
      this.handle({ id: e.checkId, accountId: e.accountId }, e.event, e.id);
      handed++;
    }
    this.metrics.swept += handed;
    return handed;
  }

  /** Called when an event is left in the outbox here (its routing or its write failed): a sweep is due after the grace. */
  onLeftUnrouted(listener: () => void): void {
    this.unroutedListeners.push(listener);
  }

  private leftUnrouted(): void {
    for (const listener of this.unroutedListeners) listener();
  }

  /** Events not yet durable as deliveries (tests and benchmarks wait for zero). */
  get pending(): number {
    return this.buffer.length + this.committing;
  }

  /** Resolves once every event handed in so far is routed and its deliveries are durable. */
  async settled(): Promise<void> {
    while (this.pending > 0) await new Promise((resolve) => setImmediate(resolve));
  }

  private async drain(): Promise<void> {
    this.scheduled = null;
    this.draining = true;
    const now = this.deps.clock.now();
    const rows: NewAlert[] = [];
    // Every outbox event routed, alert or not: the write claims them all.
    const routed: OutboxClaim[] = [];
    const until = performance.now() + SLICE_MS;
    let taken = 0;
    try {
      while (taken < this.buffer.length && (taken === 0 || performance.now() < until)) {
        const { ref, event, outboxId = null, cleared = false } = this.buffer[taken++]!;
        try {
          await this.route(ref, event, now, rows, outboxId, cleared);
          if (outboxId !== null) routed.push({ id: outboxId, checkId: ref.id });
        } catch (err) {
          // Left in the outbox: a sweep routes it again.
          if (outboxId !== null) {
            this.outboxIds.delete(outboxId);
            this.leftUnrouted();
          }
          this.deps.log.error({ err, checkId: ref.id, event: event.type }, 'alert not routed');
        }
      }
    } finally {
      this.draining = false;
    }
    this.buffer = taken === this.buffer.length ? [] : this.buffer.slice(taken);
    if (this.buffer.length > 0) this.scheduled ??= setImmediate(() => void this.drain());
    if (rows.length === 0 && routed.length === 0) return;
    this.metrics.queued += rows.reduce((n, a) => n + a.deliveries.length, 0);
    this.committing++;
    void this.deps.writer
      .commit(routed.length > 0 ? { kind: 'alerts', alerts: rows, at: now, routed } : { kind: 'alerts', alerts: rows, at: now })
      .then(
        () => (rows.length > 0 ? this.deps.sender.wake() : undefined),
        // The events stay in the outbox: a sweep routes them again.
        (err: unknown) => {
          this.deps.log.error({ err, alerts: rows.length }, 'alert deliveries not queued');
          if (routed.length > 0) this.leftUnrouted();
        },
      )
      .finally(() => {
        this.committing--;
        for (const r of routed) this.outboxIds.delete(r.id);
      });
  }

  private async route(ref: PendingAlert['ref'], event: AlertEvent, now: number, rows: NewAlert[], outboxId: string | null, cleared: boolean): Promise<void> {
    const hold = cleared ? undefined : this.deps.hold;
    if (hold && event.type === 'website_up') {
      // A parent back up releases its dependants' held alerts, routed like any (in a later turn).
      const due = await hold.released(ref.id);
      if (due.length > 0) this.requeue(due);
    }
    if (hold && (event.type === 'website_down' || event.type === 'website_error' || event.type === 'website_up')) {
      const check = await this.deps.store.checks.byId(ref.id);
      if (check && (await hold.intercept({ ref, event }, check))) {
        this.suppress(ref, event, 'held: a check it depends on is down');
        return;
      }
    }
    const { routing, config, mailer } = this.deps;
    const targets = await routing.targets(ref.accountId);
    if (!targets.claimed) {
      this.suppress(ref, event, 'account unclaimed');
      return;
    }
    const email = targets.email;
    const emailListens = email !== null && email.enabled && mailer.configured && email.events.includes(event.type);
    const listening = targets.webhooks.filter((w) => w.enabled && w.events.includes(event.type));
    if (!emailListens && listening.length === 0) return;
    const check = await this.deps.store.checks.byId(ref.id);
    if (!check) return;
    const recipients = emailListens && routeMatches(email, check) ? email.recipients : [];
    const webhooks = listening.filter((w) => routeMatches(w, check));
    if (recipients.length === 0 && webhooks.length === 0) return;
    // The state machine already stays silent in maintenance; this also covers domain events.
    if (inMaintenance(check, now)) {
      this.suppress(ref, event, 'maintenance');
      return;
    }
    rows.push({
      accountId: ref.accountId,
      checkId: ref.id,
      event: event.type,
      contentJson: JSON.stringify(alertContent(check, event, config)),
      createdAt: now,
      retryUntil: this.deps.sender.retryUntil(now),
      deliveries: [
        ...recipients.map((to) => ({ id: newId('dlv'), channel: 'email' as const, target: to })),
        ...webhooks.map((w) => ({ id: newId('dlv'), channel: 'webhook' as const, target: w.id })),
      ],
      transition: transitionKey(event),
      outboxId,
    });
  }

  private suppress(ref: { id: string }, event: AlertEvent, reason: string): void {
    this.metrics.suppressed++;
    this.deps.log.debug({ checkId: ref.id, event: event.type, reason }, 'alert suppressed');
  }
}
