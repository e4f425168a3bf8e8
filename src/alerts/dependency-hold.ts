import type { AlertEvent, MonitorStatus } from '../domain/events.js';
import type { Check } from '../domain/records.js';

/** A check's status as monitoring knows it now: the live state, newer than the stored row (read when not live here). */
export type StatusNow = (checkId: string) => Promise<'pending' | 'up' | 'down' | 'paused' | null>;

/**
 * A parent's status from a result newer than the asking: it is probed at once and answers once
 * its status has settled (down, or a result that counts no failure); null when no such result
 * can be had (a heartbeat, a paused check, no answer in time).
 */
export type VerdictNow = (checkId: string) => Promise<MonitorStatus | null>;

export interface HeldAlert {
  ref: { id: string; accountId: string };
  event: AlertEvent;
}

/** A dependant's alerts waiting for fresh verdicts of its parents. */
interface Waiting {
  alerts: HeldAlert[];
  dependsOn: readonly string[];
}

/**
 * Alerts of dependants while a check they depend on is down (issue 27 item 3): the dependant's
 * `website_down` waits here and `website_error` is dropped; when a parent comes back up and the
 * dependant is still down (and nothing else it depends on is down), its held alert goes out
 * then; when it recovered meanwhile, neither its down nor its up is sent. Only the parent
 * pages.
 *
 * Whether a parent is down must not depend on where the two checks sit in their intervals
 * (issue 35 item 1): a dependant failing while its parents look up has its alert wait while
 * they are probed at once (`VerdictNow`); a parent found down holds it as above, parents up (or
 * unanswerable) let it go out. Kept in memory: a restart forgets what was held.
 */
export class DependencyHold {
  private readonly held = new Map<string, HeldAlert & { dependsOn: readonly string[] }>();
  private readonly waiting = new Map<string, Waiting>();
  private dueListener: (alerts: HeldAlert[]) => void = () => {};

  constructor(
    private readonly statusNow: StatusNow,
    private readonly verdictNow?: VerdictNow,
  ) {}

  /** Where alerts go once their parents' verdicts let them (the pipeline routes them, without asking here again). */
  onDue(listener: (alerts: HeldAlert[]) => void): void {
    this.dueListener = listener;
  }

  /** The parents that are down now. */
  async blockers(check: { dependsOn: readonly string[] }): Promise<string[]> {
    const down: string[] = [];
    for (const id of check.dependsOn) if ((await this.statusNow(id)) === 'down') down.push(id);
    return down;
  }

  /** True when the event is held or dropped here (the caller routes it otherwise). */
  async intercept(alert: HeldAlert, check: Pick<Check, 'id' | 'accountId' | 'dependsOn'>): Promise<boolean> {
    if (alert.event.type === 'website_up' && (this.held.delete(check.id) || this.waiting.delete(check.id))) return true;
    if (check.dependsOn.length === 0) return false;
    if (alert.event.type !== 'website_down' && alert.event.type !== 'website_error') return false;
    const waiting = this.waiting.get(check.id);
    if (waiting !== undefined) {
      // The verdicts asked at its first failure are newer than it: this one waits for them too.
      waiting.alerts.push(alert);
      return true;
    }
    if ((await this.blockers(check)).length > 0) {
      if (alert.event.type === 'website_down') this.held.set(check.id, { ...alert, dependsOn: check.dependsOn });
      return true;
    }
    if (this.verdictNow === undefined) return false;
    const fresh: Waiting = { alerts: [alert], dependsOn: check.dependsOn };
    this.waiting.set(check.id, fresh);
    void this.decide(check.id, fresh);
    return true;
  }

  /** Once every parent has answered: held when one is down, else out (a down only while the dependant still is). */
  private async decide(childId: string, waiting: Waiting): Promise<void> {
    const verdicts = await Promise.all(waiting.dependsOn.map((id) => this.verdictNow!(id).catch(() => null)));
    // Recovered meanwhile (its up was dropped with it), or another decision took it.
    if (this.waiting.get(childId) !== waiting) return;
    const blocked = verdicts.includes('down') || (await this.blockers(waiting)).length > 0;
    if (this.waiting.get(childId) !== waiting) return;
    this.waiting.delete(childId);
    const down = waiting.alerts.findLast((a) => a.event.type === 'website_down');
    if (blocked) {
      if (down !== undefined) this.held.set(childId, { ...down, dependsOn: waiting.dependsOn });
      return;
    }
    const stillDown = down !== undefined && (await this.statusNow(childId)) === 'down';
    const due = waiting.alerts.filter((a) => a.event.type === 'website_error' || (a === down && stillDown));
    if (due.length > 0) this.dueListener(due);
  }

  /** A check came back up: the held alerts of its dependants now due (still down, no other parent down). */
  async released(parentId: string): Promise<HeldAlert[]> {
    const due: HeldAlert[] = [];
    for (const [childId, h] of [...this.held]) {
      if (!h.dependsOn.includes(parentId) || (await this.blockers(h)).length > 0) continue;
      if (!this.held.delete(childId)) continue; // released meanwhile by another parent's recovery
      if ((await this.statusNow(childId)) === 'down') due.push({ ref: h.ref, event: h.event });
    }
    return due;
  }

  /** Alerts held or waiting for verdicts. */
  get size(): number {
    return this.held.size + this.waiting.size;
  }
}
