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
  /**
   * How far apart ticks may be right now, asked before each timer is armed: a whole number of
   * the wheel's ticks (rounded down; at least one). Default: every tick.
   */
  strideMs?: () => number;
  timers?: DriverTimers;
}

export interface WheelDriver {
  stop(): void;
  readonly running: boolean;
}

/**
 * Probes per tick below which a quiet wheel may skip ticks (see strideFor): bursts this small
 * cost a worker nothing, while every wake-up of the threads costs about as much as a probe.
 */
export const QUIET_BURST = 50;
/** The longest stride: an entry fires at most this late on a quiet instance. */
export const QUIET_STRIDE_MS = 500;

/**
 * How far apart ticks go at `perSecond` entries fired: every tick when busy; on a quiet wheel
 * as many ticks at once as keep a burst under QUIET_BURST, up to QUIET_STRIDE_MS. At 25 probes
 * a second, ticking every 500 ms instead of every 100 ms wakes the main thread and the probe
 * worker a fifth as often, and cut the CPU per probe by about a third.
 */
export function strideFor(perSecond: number, tickMs: number): number {
  const ms = perSecond > 0 ? (QUIET_BURST * 1000) / perSecond : QUIET_STRIDE_MS;
  return Math.max(tickMs, Math.min(QUIET_STRIDE_MS, ms));
}

/**
 * Ticks the wheel on real time. One timer at a time, always aimed at a tick boundary of the
 * clock (not "tickMs from now"), so timer drift never accumulates and an entry fires less than
 * one stride (one tick unless `strideMs` says more, plus timer jitter) after it is due. A tick
 * that runs late after a blocked event loop sweeps every missed tick in one `advance`.
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
    const stride = options.strideMs ? Math.max(1, Math.floor(options.strideMs() / tickMs)) * tickMs : tickMs;
    boundary = now - (now % stride) + stride;
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
