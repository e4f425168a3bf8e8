import { performance } from 'node:perf_hooks';

/** The reason a probe's signal aborts when its overall deadline passes. */
export class ProbeTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`Timed out after ${timeoutMs} ms`);
    this.name = 'ProbeTimeoutError';
  }
}

// setTimeout clamps larger delays to 1 ms.
const MAX_TIMER_MS = 2_147_483_647;

interface Releasable {
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/**
 * The lifetime of one probe: an overall deadline, a clock for phase timing, and every
 * resource the probe opened. `close()` (in a finally) releases them all, whether the probe
 * succeeded, failed or timed out, so no socket outlives its probe.
 *
 * The deadline rejects the probe's races directly; an AbortSignal is made only for a step that
 * asks for one (a library call that takes a signal). An HTTP probe needs none: each AbortSignal
 * and each listener on it (Node's EventTarget) cost a few percent of a probe's CPU.
 */
export class ProbeScope {
  readonly startedAt = Date.now();
  readonly timeoutMs: number;
  private readonly origin = performance.now();
  private controller: AbortController | null = null;
  /** Set once the deadline has passed. */
  private timedOut: ProbeTimeoutError | null = null;
  /** The races still waiting: the deadline rejects them. */
  private readonly racing = new Set<(err: Error) => void>();
  private readonly timer: NodeJS.Timeout;
  private readonly cleanups: Array<() => void> = [];

  constructor(timeoutMs: number) {
    this.timeoutMs = Number.isFinite(timeoutMs) && timeoutMs > 0 ? Math.min(timeoutMs, MAX_TIMER_MS) : 1;
    this.timer = setTimeout(() => this.expire(), this.timeoutMs);
  }

  private expire(): void {
    const reason = (this.timedOut = new ProbeTimeoutError(this.timeoutMs));
    this.controller?.abort(reason);
    for (const reject of this.racing) reject(reason);
    this.racing.clear();
  }

  /** Aborts when the deadline passes (made on first use). */
  get signal(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController();
      if (this.timedOut !== null) this.controller.abort(this.timedOut);
    }
    return this.controller.signal;
  }

  get expired(): boolean {
    return this.timedOut !== null;
  }

  get timeoutMessage(): string {
    return `Timed out after ${this.timeoutMs} ms`;
  }

  /** High-resolution milliseconds since the probe started. */
  now(): number {
    return performance.now() - this.origin;
  }

  remaining(): number {
    return Math.max(0, this.timeoutMs - this.now());
  }

  onClose(cleanup: () => void): void {
    this.cleanups.push(cleanup);
  }

  /**
   * Releases `resource` when the probe ends. A late 'error' event on a socket nobody listens
   * to any more would crash the worker, so a tracked resource always has one listener.
   */
  track<T extends Releasable>(resource: T, release: (resource: T) => void): T {
    resource.on('error', ignore);
    this.onClose(() => release(resource));
    return resource;
  }

  /** Settles like `promise`, or rejects with ProbeTimeoutError when the deadline passes first. */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.timedOut !== null) {
      promise.catch(ignore);
      return Promise.reject(this.timedOut);
    }
    return new Promise<T>((resolve, reject) => {
      this.racing.add(reject);
      promise.then(
        (value) => {
          this.racing.delete(reject);
          resolve(value);
        },
        (err: unknown) => {
          this.racing.delete(reject);
          reject(err);
        },
      );
    });
  }

  /**
   * Waits for a courtesy step (QUIT, close frame) for at most `capMs` and never within the
   * deadline's last moment; its outcome does not matter, so it never throws.
   */
  async grace(promise: Promise<unknown>, capMs: number): Promise<void> {
    promise.catch(ignore);
    const wait = Math.min(capMs, this.remaining());
    if (wait <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      promise.catch(ignore),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, wait);
      }),
    ]);
    clearTimeout(timer);
  }

  close(): void {
    clearTimeout(this.timer);
    for (const cleanup of this.cleanups.splice(0).reverse()) {
      try {
        cleanup();
      } catch {
        // Releasing an already-closed resource may throw; it is released either way.
      }
    }
  }
}

export function ignore(): void {}
