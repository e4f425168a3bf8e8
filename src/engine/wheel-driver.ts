import type { Clock } from '../domain/clock.js';
import type { FireFn, TimingWheel } from './timing-wheel.js';

/** The timer functions the driver needs; injected so tests can drive it by hand. */
export interface DriverTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: DriverTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface WheelDriverOptions {
  wheel: TimingWheel;
  clock: Clock;
  fire: FireFn;
  /** An error thrown by `fire` is reported here and the tick goes on. Default: console.error. */
  onError?: (error: unknown) => void;
  /** Told how many ms after its boundary each tick ran (the event loop's delay, not the wheel's resolution). */
  onTick?: (lateMs: number) => void;
  timers?: DriverTimers;
}

export interface WheelDriver {
  stop(): void;
  readonly running: boolean;
}

/**
 * Ticks the wheel on real time. One timer at a time, always aimed at the next tick boundary of
 * the clock (not "tickMs from now"), so timer drift never accumulates and an entry fires less
 * than one tick (plus timer jitter) after it is due. A tick that runs late after a blocked event
 * loop sweeps every missed tick in one `advance`.
 */
export function startWheelDriver(options: WheelDriverOptions): WheelDriver {
  const { wheel, clock } = options;
  const timers = options.timers ?? realTimers;
  const onError = options.onError ?? ((error: unknown) => console.error('wheel fire failed', error));
  const tickMs = wheel.tickMs;
  // One failing entry must not hold back the rest of its tick.
  const fire: FireFn = (id, dueAt) => {
    try {
      options.fire(id, dueAt);
    } catch (error) {
      onError(error);
    }
  };
  let handle: unknown = null;
  let running = true;
  let boundary = 0;

  const arm = (): void => {
    const now = clock.now();
    boundary = now - (now % tickMs) + tickMs;
    handle = timers.setTimeout(tick, boundary - now);
  };
  const tick = (): void => {
    handle = null;
    if (!running) return;
    const now = clock.now();
    options.onTick?.(Math.max(0, now - boundary));
    try {
      wheel.advance(now, fire);
    } finally {
      // Re-checked: `fire` may have stopped the driver.
      if (running) arm();
    }
  };

  arm();
  return {
    stop(): void {
      running = false;
      if (handle !== null) timers.clearTimeout(handle);
      handle = null;
    },
    get running(): boolean {
      return running;
    },
  };
}
