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
 */
export class ProbeScope {
  readonly startedAt = Date.now();
  readonly timeoutMs: number;
  private readonly origin = performance.now();
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly cleanups: Array<() => void> = [];

  constructor(timeoutMs: number) {
    this.timeoutMs = Number.isFinite(timeoutMs) && timeoutMs > 0 ? Math.min(timeoutMs, MAX_TIMER_MS) : 1;
    this.timer = setTimeout(
      () => this.controller.abort(new ProbeTimeoutError(this.timeoutMs)),
      this.timeoutMs,
    );
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get expired(): boolean {
    return this.controller.signal.aborted;
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
    const signal = this.controller.signal;
    if (signal.aborted) {
      promise.catch(ignore);
      return Promise.reject(signal.reason as Error);
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (err: unknown) => {
          signal.removeEventListener('abort', onAbort);
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
