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
 * The one place status changes are published (app.ts publishes every check event and edit);
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
