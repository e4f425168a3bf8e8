import type { AlertEvent } from '../domain/events.js';
import type { Check } from '../domain/records.js';
import type { Answer } from '../store/answer.js';

/** A check's status as monitoring knows it now: the live state, newer than the stored row (read when not live here). */
export type StatusNow = (checkId: string) => Answer<'pending' | 'up' | 'down' | 'paused' | null>;

export interface HeldAlert {
  ref: { id: string; accountId: string };
  event: AlertEvent;
}

/**
 * Alerts of dependants while a check they depend on is down (issue 27 item 3): the dependant's
 * `website_down` waits here and `website_error` is dropped; when a parent comes back up and the
 * dependant is still down (and nothing else it depends on is down), its held alert goes out
 * then; when it recovered meanwhile, neither its down nor its up is sent. Only the parent
 * pages. Kept in memory: a restart forgets what was held.
 */
export class DependencyHold {
  private readonly held = new Map<string, HeldAlert & { dependsOn: readonly string[] }>();

  constructor(private readonly statusNow: StatusNow) {}

  /** The parents that are down now. */
  async blockers(check: { dependsOn: readonly string[] }): Promise<string[]> {
    const down: string[] = [];
    for (const id of check.dependsOn) if ((await this.statusNow(id)) === 'down') down.push(id);
    return down;
  }

  /** True when the event is held or dropped here (the caller routes it otherwise). */
  async intercept(held: HeldAlert, check: Pick<Check, 'id' | 'accountId' | 'dependsOn'>): Promise<boolean> {
    if (held.event.type === 'website_up' && this.held.delete(check.id)) return true;
    if (check.dependsOn.length === 0) return false;
    if (held.event.type !== 'website_down' && held.event.type !== 'website_error') return false;
    if ((await this.blockers(check)).length === 0) return false;
    if (held.event.type === 'website_down') this.held.set(check.id, { ...held, dependsOn: check.dependsOn });
    return true;
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

  get size(): number {
    return this.held.size;
  }
}
