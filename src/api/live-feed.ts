import type { Principal } from '../core/principal.js';
import { accessAllows } from '../core/principal.js';
import type { Check } from '../domain/records.js';
import type { StatusChange, StatusFeed } from '../core/status-feed.js';
import type { StreamSink } from './http-types.js';

/** A comment line every so often keeps proxies from closing an idle stream and re-checks the session. */
const KEEPALIVE_MS = 25_000;

interface Listener {
  principal: Principal;
  sink: StreamSink;
  /** Authenticates the request again: throws once the key or session has ended. */
  reauthenticate: () => Promise<Principal>;
}

/**
 * Server-sent events for open dashboards: each status change or edit of a check is pushed, as
 * that check's list row, to every stream whose credential may see the check. Nothing is
 * polled; a stream whose key was revoked gets `signed-out` and is closed.
 */
export class LiveFeed {
  private readonly listeners = new Set<Listener>();
  private readonly timer: NodeJS.Timeout;
  private pushed: Promise<void> = Promise.resolve();

  constructor(
    feed: StatusFeed,
    private readonly lookup: (checkId: string) => Promise<Check | null>,
    private readonly row: (check: Check) => Promise<unknown>,
  ) {
    feed.subscribe((change) => this.publish(change));
    this.timer = setInterval(() => this.keepAlive(), KEEPALIVE_MS);
    this.timer.unref();
  }

  attach(principal: Principal, sink: StreamSink, reauthenticate: () => Promise<Principal>): void {
    const listener: Listener = { principal, sink, reauthenticate };
    this.listeners.add(listener);
    sink.onClose(() => this.listeners.delete(listener));
    sink.write(`retry: 2000\nevent: hello\ndata: {}\n\n`);
  }

  private publish(change: StatusChange): void {
    if (this.listeners.size === 0) return;
    // One change after another, in the order they came (a row is read from the store first).
    this.pushed = this.pushed
      .then(async () => {
        const check = change.type === 'deleted' ? null : await this.lookup(change.checkId);
        const frame = check
          ? `event: check\ndata: ${JSON.stringify(await this.row(check))}\n\n`
          : `event: removed\ndata: ${JSON.stringify({ id: change.checkId })}\n\n`;
        this.push(change, check, frame);
      })
      .catch(() => {}); // a failed read: the check's next change pushes its row
  }

  private push(change: StatusChange, check: Check | null, frame: string): void {
    for (const l of this.listeners) {
      if (l.principal.account.id !== change.accountId) continue;
      if (!accessAllows(l.principal.access, check ?? { id: change.checkId, folder: change.folder ?? null })) continue;
      l.sink.write(frame);
    }
  }

  close(): void {
    clearInterval(this.timer);
    for (const l of this.listeners) l.sink.end();
    this.listeners.clear();
  }

  get size(): number {
    return this.listeners.size;
  }

  private keepAlive(): void {
    for (const l of this.listeners) {
      const signedOut = () => {
        l.sink.write('event: signed-out\ndata: {}\n\n');
        l.sink.end();
      };
      l.reauthenticate().then((principal) => {
        l.principal = principal;
        l.sink.write(': keep-alive\n\n');
      }, signedOut);
    }
  }
}
