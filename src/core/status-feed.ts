import type { CheckEvents, CheckObserver } from '../domain/check-observer.js';
import type { Clock } from '../domain/clock.js';
import type { Check } from '../domain/records.js';
import type { Recorder } from '../monitor/recorder.js';

/** A check's state changed (or the check was saved or deleted): what subscribers are told. */
export interface StatusChange {
  checkId: string;
  accountId: string;
  /**
   * An alert event's type (`down`, `up`, `maintenance_start`, …), `status` (any status change),
   * `degraded` (became or stopped being slow), `ping` (a heartbeat ping that changed no status),
   * or `saved` / `deleted` for edits.
   */
  type: string;
  at: number;
  /** A deleted check's folder: who may hear of the deletion is decided by it, as for the check. */
  folder?: string | null;
}

/**
 * The one place status changes are published (`StatusPublisher` publishes every check event and edit);
 * the live dashboard, status-page caches and others subscribe. A failing subscriber cannot
 * stop the others or the publisher.
 */
export class StatusFeed {
  private readonly listeners = new Set<(change: StatusChange) => void>();

  subscribe(listener: (change: StatusChange) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  publish(change: StatusChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // A subscriber's own problem; the others still hear of the change.
      }
    }
  }
}

/**
 * Changes reported during one turn of the event loop, published together once the writer has
 * applied them (a subscriber that re-reads the check sees the change): one wait per turn
 * however many pings arrive, and a check's change of one type once, at its latest time.
 */
export class PendingChanges {
  private pending = new Map<string, StatusChange>();
  private scheduled = false;

  constructor(
    private readonly feed: StatusFeed,
    private readonly applied: () => Promise<void>,
  ) {}

  add(change: StatusChange): void {
    this.pending.set(`${change.type}:${change.checkId}`, change);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      const batch = this.pending;
      this.pending = new Map();
      this.scheduled = false;
      this.applied().then(
        () => {
          for (const change of batch.values()) this.feed.publish(change);
        },
        () => {},
      );
    });
  }
}

export interface StatusPublisherDeps {
  feed: StatusFeed;
  /** Resolves once the writer has applied what was submitted so far. */
  applied: () => Promise<void>;
  /** Check events, status changes and pings, as recorded. */
  recorder: Pick<Recorder, 'onEvent' | 'onChange'>;
  /** Check edits (saved, paused, deleted). */
  checks: CheckEvents;
  clock: Clock;
}

/**
 * Publishes on the feed every check event, non-alert status change (pending to up), heartbeat
 * ping and edit, once the writer has applied what it wrote (the group commit queued in the same
 * turn runs first), so a subscriber reading the check sees the new record.
 */
export class StatusPublisher implements CheckObserver {
  private readonly pending: PendingChanges;

  constructor(private readonly deps: StatusPublisherDeps) {
    this.pending = new PendingChanges(deps.feed, deps.applied);
    deps.recorder.onEvent((check, event) => this.publish(check, event.type));
    deps.recorder.onChange((check, what) => this.publish(check, what));
    deps.checks.observe(this);
  }

  checkSaved(check: Check): void {
    this.publish(check, 'saved');
  }

  checkEdited(check: Check): void {
    this.publish(check, 'saved');
  }

  checkDeleted(check: Check): void {
    this.publish(check, 'deleted', check.folder);
  }

  private publish(check: { id: string; accountId: string }, type: string, folder?: string | null): void {
    const change: StatusChange = { checkId: check.id, accountId: check.accountId, type, at: this.deps.clock.now() };
    if (folder !== undefined) change.folder = folder;
    this.pending.add(change);
  }
}
