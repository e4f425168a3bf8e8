import type { Clock } from '../domain/clock.js';
import { TimingWheel, type FireFn } from './timing-wheel.js';

/** What a wheel entry stands for: a probe to send, a heartbeat deadline, a domain lookup. */
export type WheelKind = 'probe' | 'deadline' | 'domain';

/** The owner of one kind of entry, told when one of its checks is due. */
export type WheelHandler = (checkId: string, dueAt: number) => void;

const KINDS: readonly WheelKind[] = ['probe', 'deadline', 'domain'];

/**
 * The engine's one timing wheel, typed: each entry is (kind, check) and each kind has one
 * handler (the engine probes, the heartbeat monitor misses deadlines, the domain monitor looks
 * up domains). The wheel underneath keys entries by `kind:checkId`, which nobody else sees.
 */
export class CheckWheel {
  private readonly wheel: TimingWheel;
  private readonly handlers = new Map<WheelKind, WheelHandler>();

  constructor(clock: Clock, tickMs = 100) {
    this.wheel = new TimingWheel({ clock, tickMs });
  }

  get tickMs(): number {
    return this.wheel.tickMs;
  }

  /** Entries scheduled, of every kind. */
  get size(): number {
    return this.wheel.size;
  }

  /** Sets the one handler of a kind. */
  handle(kind: WheelKind, handler: WheelHandler): void {
    if (this.handlers.has(kind)) throw new Error(`wheel entries of kind ${kind} already have a handler`);
    this.handlers.set(kind, handler);
  }

  /** Schedules (or moves) the check's entry of this kind. */
  schedule(kind: WheelKind, checkId: string, dueAt: number): void {
    this.wheel.schedule(`${kind}:${checkId}`, dueAt);
  }

  cancel(kind: WheelKind, checkId: string): void {
    this.wheel.cancel(`${kind}:${checkId}`);
  }

  has(kind: WheelKind, checkId: string): boolean {
    return this.wheel.has(`${kind}:${checkId}`);
  }

  dueAt(kind: WheelKind, checkId: string): number | undefined {
    return this.wheel.dueAt(`${kind}:${checkId}`);
  }

  /** Fires every entry due by `now`, each to its kind's handler (the driver, or tests with a manual clock). */
  advance(now: number, fire: FireFn = this.fire): void {
    this.wheel.advance(now, fire);
  }

  /** Routes one fired entry to its kind's handler. */
  readonly fire: FireFn = (id, dueAt) => {
    const colon = id.indexOf(':');
    const kind = id.slice(0, colon) as WheelKind;
    if (!KINDS.includes(kind)) return;
    this.handlers.get(kind)?.(id.slice(colon + 1), dueAt);
  };

  /** The wheel underneath, for the driver. */
  get timingWheel(): TimingWheel {
    return this.wheel;
  }
}
