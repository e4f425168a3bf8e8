import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock.js';
import type { AttemptRecord, Delivery, DeliveryChannel, DeliveryQueue, SettledAttempt } from '../../store/alert-store.js';
import type { AlertChannel, AttemptOutcome } from '../channel.js';

const HOUR = 3_600_000;
/** The longest wait between two attempts, however long the outage. */
export const MAX_BACKOFF_MS = 30 * 60_000;
/** Rows leased per transaction. */
const CLAIM_BATCH = 32;
const DAY = 24 * HOUR;

export interface SenderOptions {
  /** The first retry waits about this long; each next one about twice as long, up to MAX_BACKOFF_MS. */
  retryBaseMs: number;
  /** Issue 17: retries go on this long after an alert is queued (a Retry-After inside it is honoured). */
  retryForHours: number;
  /** Per attempt; a lease lasts a little longer, so only a crash lets one run out. */
  timeoutMs: number;
  concurrency: number;
  /** At most this many attempts to one webhook or recipient at once: a slow receiver cannot take every slot. */
  perTargetConcurrency: number;
  /** Finished deliveries are kept (recorded) this long. */
  keepDays: number;
}

export interface SenderDeps {
  queue: DeliveryQueue;
  /** Alert channels always; the subscriber channels where status page notices are sent (the server). */
  channels: Record<'email' | 'webhook', AlertChannel> & Partial<Record<DeliveryChannel, AlertChannel>>;
  clock: Clock;
  log: Logger;
  options: SenderOptions;
  /** 0 <= random() < 1: the jitter's source (tests pass a fixed one). */
  random?: () => number;
}

/**
 * The delay before attempt `attempts + 1`: exponential (base, 2 x base, 4 x base ...) up to
 * MAX_BACKOFF_MS, with "equal jitter" (half fixed, half random), so many deliveries failed by
 * one outage do not all come back in the same instant.
 */
export function backoffMs(attempts: number, baseMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.min(30, Math.max(0, attempts - 1)));
  return ceiling / 2 + random() * (ceiling / 2);
}

/** A count per key (in flight, or leased), removing keys that reach zero. */
function bump(map: Map<string, number>, key: string, by: number): void {
  const n = (map.get(key) ?? 0) + by;
  if (n <= 0) map.delete(key);
  else map.set(key, n);
}

/**
 * Works the persisted queue. It leases due rows ahead of need (up to twice the concurrency),
 * so a finished attempt is followed by the next one at once, with no database round trip in
 * between; outcomes known in one turn of the event loop are written together, with the next
 * lease when one is needed, in one transaction (group commit: a burst of acknowledgements
 * costs a write per turn, not one each). It sleeps until the next retry is due. Nothing here
 * is awaited by probing: the event sink only enqueues.
 */
export class DeliverySender {
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Attempts in flight per target (webhook id or recipient). */
  private readonly running = new Map<string, number>();
  /** Rows leased per target: in flight or waiting in `ready`. */
  private readonly leased = new Map<string, number>();
  /** Leased rows waiting for a free slot. */
  private ready: Delivery[] = [];
  /** Outcomes known but not yet written: the next turn writes them. */
  private settled: SettledAttempt[] = [];
  private readonly abort = new AbortController();
  private started = false;
  private scheduled: NodeJS.Immediate | null = null;
  /** A pump is running (it awaits the store); a wake meanwhile runs another one after it. */
  private pumping = false;
  private pumpAgain = false;
  private timer: NodeJS.Timeout | null = null;
  readonly metrics = { delivered: 0, retried: 0, failed: 0, cancelled: 0 };
  private readonly random: () => number;

  constructor(private readonly deps: SenderDeps) {
    // Every attempt in flight listens for shutdown on this one signal.
    setMaxListeners(0, this.abort.signal);
    this.random = deps.random ?? Math.random;
  }

  start(): void {
    this.started = true;
    this.wake();
  }

  /** Something may be due (rows committed, an outcome known, a clock moved in tests): look soon. */
  wake(): void {
    if (this.scheduled || (!this.started && this.settled.length === 0)) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.scheduled = setImmediate(() => void this.pumpOnce());
  }

  private async pumpOnce(): Promise<void> {
    this.scheduled = null;
    this.pumping = true;
    try {
      await this.pump();
    } catch (err) {
      this.deps.log.error({ err }, 'alert sender failed');
    } finally {
      this.pumping = false;
    }
    if (this.pumpAgain) {
      this.pumpAgain = false;
      this.wake();
    }
  }

  get busy(): number {
    return this.inFlight.size;
  }

  /** Resolves once nothing is in flight, unwritten or due now (tests, benchmarks). */
  async idle(): Promise<void> {
    for (;;) {
      if (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
      else if (this.scheduled || this.pumping || this.settled.length > 0 || this.ready.length > 0) await new Promise((r) => setImmediate(r));
      else {
        const next = await this.deps.queue.nextDueAt();
        if (next === null || next > this.deps.clock.now() || !this.started) return;
        this.wake();
        await new Promise((r) => setImmediate(r));
      }
    }
  }

  /**
   * Stops taking work and lets attempts in flight finish for up to `graceMs`; any still running
   * are aborted, and they and the leased rows not started go back to pending (a restart sends
   * them at once, with the same delivery id).
   */
  async stop(graceMs = 5_000): Promise<void> {
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const now = this.deps.clock.now();
    for (const d of this.ready) this.settled.push({ id: d.id, outcome: { kind: 'released', nextAt: now } });
    this.ready = [];
    if (this.inFlight.size > 0) {
      let timeout: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((r) => (timeout = setTimeout(r, graceMs)));
      await Promise.race([Promise.allSettled([...this.inFlight.values()]), grace]);
      clearTimeout(timeout);
      this.abort.abort();
      await Promise.allSettled([...this.inFlight.values()]);
    }
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    await this.write(() => this.deps.queue.settle(this.takeSettled(), this.deps.clock.now()));
  }

  private takeSettled(): SettledAttempt[] {
    const out = this.settled;
    this.settled = [];
    return out;
  }

  private async write<T>(fn: () => Promise<T>): Promise<T | null> {
    try {
      return await fn();
    } catch (err) {
      // The store failed or closed under us: leases run out and the rows are sent again later.
      this.deps.log.error({ err }, 'alert queue write failed');
      return null;
    }
  }

  private async pump(): Promise<void> {
    const { queue, clock, options } = this.deps;
    const now = clock.now();
    const settled = this.takeSettled();
    const window = options.concurrency * 2;
    // Lease more only when half the window is free (fewer, larger claims), and never so many at
    // once that the transaction holds up the wheel's next tick.
    const want = this.started && this.inFlight.size + this.ready.length <= options.concurrency
      ? Math.min(CLAIM_BATCH, window - this.inFlight.size - this.ready.length)
      : 0;
    if (want > 0) {
      const leaseUntil = now + options.timeoutMs * 2 + 5_000;
      const rows = await this.write(() => queue.settleAndClaim(settled, now, leaseUntil, want, this.leased, options.perTargetConcurrency * 2));
      for (const d of rows ?? []) {
        bump(this.leased, d.target, 1);
        this.ready.push(d);
      }
    } else if (settled.length > 0) {
      await this.write(() => queue.settle(settled, now));
    }
    this.launchReady();
    await this.sleep();
  }

  /** Starts waiting rows while there are free slots, no target past its share. */
  private launchReady(): void {
    const { concurrency, perTargetConcurrency } = this.deps.options;
    if (!this.started) return;
    for (let i = 0; i < this.ready.length && this.inFlight.size < concurrency; ) {
      const d = this.ready[i]!;
      if ((this.running.get(d.target) ?? 0) < perTargetConcurrency) {
        this.ready.splice(i, 1);
        this.launch(d);
      } else i++;
    }
  }

  /** Sets one timer for the next retry; attempts in flight wake the sender when they end. */
  private async sleep(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.started || this.inFlight.size > 0 || this.ready.length > 0) return;
    const next = await this.deps.queue.nextDueAt();
    if (next === null) return;
    const delay = next - this.deps.clock.now();
    this.timer = setTimeout(() => this.wake(), Math.min(Math.max(delay, 10), 2 ** 31 - 1));
    this.timer.unref();
  }

  private launch(d: Delivery): void {
    bump(this.running, d.target, 1);
    const run = this.attempt(d).finally(() => {
      bump(this.running, d.target, -1);
      bump(this.leased, d.target, -1);
      this.inFlight.delete(d.id);
      this.launchReady();
      this.wake();
    });
    this.inFlight.set(d.id, run);
  }

  private async attempt(d: Delivery): Promise<void> {
    let outcome: AttemptOutcome;
    try {
      const channel = this.deps.channels[d.channel];
      outcome = channel ? await channel.attempt(d, this.abort.signal) : { kind: 'failed', status: null, error: `no ${d.channel} channel here`, retryable: true };
    } catch (err) {
      this.deps.log.error({ err, deliveryId: d.id }, 'alert delivery attempt threw');
      outcome = { kind: 'failed', status: null, error: 'internal error', retryable: true };
    }
    const now = this.deps.clock.now();
    const record: AttemptRecord =
      this.abort.signal.aborted && outcome.kind === 'failed' ? { kind: 'released', nextAt: now } : this.recordOf(d, outcome, now);
    this.settled.push({ id: d.id, outcome: record });
    this.count(record);
    const line = { deliveryId: d.id, checkId: d.checkId, event: d.event, channel: d.channel, target: d.channel === 'webhook' ? d.target : 'email', attempt: d.attempts, outcome: record.kind };
    if (record.kind === 'delivered') this.deps.log.debug(line, 'alert delivered');
    else this.deps.log.warn({ ...line, status: 'status' in record ? record.status : null, error: 'error' in record ? record.error : null }, 'alert delivery not done');
  }

  private recordOf(d: Delivery, o: AttemptOutcome, now: number): AttemptRecord {
    if (o.kind === 'delivered') return d.attempts > 1 ? { ...o, recovered: true } : o;
    if (o.kind !== 'failed') return o;
    if (o.retryable && now < d.retryUntil) {
      const wait = o.retryAfterMs ?? backoffMs(d.attempts, this.deps.options.retryBaseMs, this.random);
      // The last attempt lands on the window's end rather than past it.
      return { kind: 'retry', status: o.status, error: o.error, nextAt: Math.min(now + wait, d.retryUntil) };
    }
    const error = o.retryable ? `${o.error} (gave up after ${d.attempts} attempts)` : o.error;
    return { kind: 'failed', status: o.status, error };
  }

  /** When a delivery queued now stops being retried. */
  retryUntil(now: number): number {
    return now + this.deps.options.retryForHours * HOUR;
  }

  private count(r: AttemptRecord): void {
    if (r.kind === 'delivered') this.metrics.delivered++;
    else if (r.kind === 'retry') this.metrics.retried++;
    else if (r.kind === 'failed') this.metrics.failed++;
    else if (r.kind === 'cancelled') this.metrics.cancelled++;
  }

  /** Drops finished deliveries past `keepDays` (a periodic job: hourly, and at start). */
  async prune(): Promise<void> {
    await this.write(() => this.deps.queue.prune(this.deps.clock.now() - this.deps.options.keepDays * DAY));
  }
}
