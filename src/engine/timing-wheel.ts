import type { Clock } from '../domain/clock.js';

/**
 * A hashed timing wheel (DESIGN 9): one wheel holds every scheduled probe and deadline.
 *
 * Entries are nodes in struct-of-arrays storage (typed arrays + one id array) threaded on
 * intrusive circular doubly-linked lists, one list per slot, so add, cancel and reschedule are
 * O(1) and an entry costs a few dozen bytes plus its id. Slot = floor(dueAt / tickMs) & mask.
 * Entries more than one revolution ahead share slots with near ones; instead of a rounds
 * counter each node keeps its absolute `dueAt` and a scan fires only nodes with dueAt <= now,
 * so a far entry is merely looked at once per revolution.
 *
 * The wheel never sets timers: a driver (wheel-driver.ts) calls `advance(now, fire)`.
 * Ids are opaque strings; check-wheel.ts gives them kinds and owners.
 */

export type FireFn = (id: string, dueAt: number) => void;

export interface TimingWheelOptions {
  clock: Clock;
  /** Wheel resolution; entries fire at most one tick late when advanced every tick. Default 100. */
  tickMs?: number;
  /** Slots per revolution, a power of two. Default 16384 (27 min at 100 ms). */
  slots?: number;
  /** Entries to allocate room for up front; storage doubles when exceeded. Default 1024. */
  initialCapacity?: number;
}

const FREE = 0;
const LINKED = 1;
/** Taken off its slot by `advance` and waiting for its turn to fire. */
const COLLECTED = 2;
/**
 * Fired in the current batch and not rescheduled (yet). The node and its Map entry are kept
 * until the batch ends so that the usual `fire` -> `schedule(sameId)` reuses them: deleting
 * and re-adding the same key on every firing leaves a hole per round in V8's Map bucket chains
 * and made steady-state ticks several times slower.
 */
const FIRED = 3;

export class TimingWheel {
  readonly tickMs: number;
  private readonly slotCount: number;
  private readonly mask: number;
  /** First tick not yet fully swept; every linked node sits in a slot for a tick >= cursor. */
  private cursor: number;
  // Nodes 0..slotCount-1 are the slots' list sentinels; entry nodes follow them.
  private due: Float64Array;
  private next: Int32Array;
  private prev: Int32Array;
  private state: Uint8Array;
  private ids: (string | undefined)[] = [];
  private readonly index = new Map<string, number>();
  private freeHead = -1;
  private highWater: number;
  private scratch = new Int32Array(256);
  private firing = false;
  /** Nodes in state FIRED: mapped but no longer scheduled. */
  private firedCount = 0;
  private readonly byDue = (a: number, b: number): number => this.due[a] - this.due[b];

  constructor(options: TimingWheelOptions) {
    const tickMs = options.tickMs ?? 100;
    const slots = options.slots ?? 16384;
    if (!(tickMs > 0) || !Number.isFinite(tickMs)) throw new RangeError('tickMs must be a positive number');
    if (!Number.isInteger(slots) || slots < 2 || (slots & (slots - 1)) !== 0) {
      throw new RangeError('slots must be a power of two >= 2');
    }
    this.tickMs = tickMs;
    this.slotCount = slots;
    this.mask = slots - 1;
    this.cursor = Math.floor(options.clock.now() / tickMs);
    const capacity = slots + Math.max(16, options.initialCapacity ?? 1024);
    this.due = new Float64Array(capacity);
    this.next = new Int32Array(capacity);
    this.prev = new Int32Array(capacity);
    this.state = new Uint8Array(capacity);
    for (let s = 0; s < slots; s++) {
      this.next[s] = s;
      this.prev[s] = s;
    }
    this.highWater = slots;
  }

  get size(): number {
    return this.index.size - this.firedCount;
  }

  has(id: string): boolean {
    const node = this.index.get(id);
    return node !== undefined && this.state[node] !== FIRED;
  }

  /** The due time of a scheduled id, or undefined. */
  dueAt(id: string): number | undefined {
    const node = this.index.get(id);
    return node === undefined || this.state[node] === FIRED ? undefined : this.due[node];
  }

  /** Adds `id`, or moves it if already scheduled. A past `dueAt` fires on the next advance. */
  schedule(id: string, dueAt: number): void {
    if (!Number.isFinite(dueAt)) throw new RangeError(`dueAt must be finite (id ${id})`);
    let node = this.index.get(id);
    if (node === undefined) {
      node = this.allocate();
      this.ids[node - this.slotCount] = id;
      this.index.set(id, node);
    } else if (this.state[node] === LINKED) {
      this.unlink(node);
    } else if (this.state[node] === FIRED) {
      this.firedCount--;
    }
    // A COLLECTED node rescheduled from inside `fire` is simply relinked; the firing loop
    // skips nodes that are no longer COLLECTED.
    this.due[node] = dueAt;
    this.link(node);
  }

  /** Removes `id`; true when it was scheduled. Safe to call from inside `fire`. */
  cancel(id: string): boolean {
    const node = this.index.get(id);
    if (node === undefined) return false;
    const state = this.state[node];
    if (state === LINKED) this.unlink(node);
    else if (state === FIRED) this.firedCount--;
    this.release(node);
    return state !== FIRED;
  }

  /**
   * Fires every entry with dueAt <= now, in due order (ties in scheduling order), each exactly
   * once; a fired entry is no longer scheduled when `fire` runs, so `fire` may reschedule it.
   * Entries scheduled by `fire` at or before `now` fire on the next advance, never in this one,
   * so a callback cannot loop the wheel. Missed ticks are swept in one call. Returns the count.
   */
  advance(now: number, fire: FireFn): number {
    if (this.firing) throw new Error('TimingWheel.advance is not reentrant');
    const nowTick = Math.floor(now / this.tickMs);
    // A clock that stepped backwards just waits for time to catch up.
    if (nowTick < this.cursor) return 0;
    let count = 0;
    if (nowTick - this.cursor >= this.slotCount) {
      for (let s = 0; s < this.slotCount; s++) count = this.collect(s, now, count);
    } else {
      for (let t = this.cursor; t <= nowTick; t++) count = this.collect(t & this.mask, now, count);
    }
    // The tick containing `now` may still hold entries due later within it: sweep it again.
    this.cursor = nowTick;
    if (count > 1) this.scratch.subarray(0, count).sort(this.byDue);
    return this.fireCollected(count, fire);
  }

  private fireCollected(count: number, fire: FireFn): number {
    const base = this.slotCount;
    let fired = 0;
    let i = 0;
    this.firing = true;
    try {
      for (; i < count; i++) {
        const node = this.scratch[i];
        if (this.state[node] !== COLLECTED) continue; // cancelled or rescheduled by an earlier fire
        this.state[node] = FIRED;
        this.firedCount++;
        fired++;
        fire(this.ids[node - base]!, this.due[node]);
      }
    } finally {
      this.firing = false;
      for (i = 0; i < count; i++) {
        const node = this.scratch[i];
        const state = this.state[node];
        if (state === FIRED) {
          this.firedCount--;
          this.release(node);
        } else if (state === COLLECTED) {
          this.link(node); // `fire` threw before its turn: keep it for the next advance
        }
      }
    }
    return fired;
  }

  /** Moves the due nodes of one slot into `scratch` starting at `count`. */
  private collect(slot: number, now: number, count: number): number {
    const { next, due } = this;
    let node = next[slot];
    while (node !== slot) {
      const after = next[node];
      if (due[node] <= now) {
        this.unlink(node);
        this.state[node] = COLLECTED;
        if (count === this.scratch.length) {
          const grown = new Int32Array(count * 2);
          grown.set(this.scratch);
          this.scratch = grown;
        }
        this.scratch[count++] = node;
      }
      node = after;
    }
    return count;
  }

  private link(node: number): void {
    let tick = Math.floor(this.due[node] / this.tickMs);
    if (tick < this.cursor) tick = this.cursor;
    const sentinel = tick & this.mask;
    const tail = this.prev[sentinel];
    this.next[tail] = node;
    this.prev[node] = tail;
    this.next[node] = sentinel;
    this.prev[sentinel] = node;
    this.state[node] = LINKED;
  }

  private unlink(node: number): void {
    const before = this.prev[node];
    const after = this.next[node];
    this.next[before] = after;
    this.prev[after] = before;
  }

  private allocate(): number {
    if (this.freeHead !== -1) {
      const node = this.freeHead;
      this.freeHead = this.next[node];
      return node;
    }
    if (this.highWater === this.state.length) this.grow();
    return this.highWater++;
  }

  private release(node: number): void {
    const base = this.slotCount;
    this.index.delete(this.ids[node - base]!);
    this.ids[node - base] = undefined;
    this.state[node] = FREE;
    this.next[node] = this.freeHead;
    this.freeHead = node;
  }

  private grow(): void {
    const capacity = this.slotCount + (this.state.length - this.slotCount) * 2;
    const due = new Float64Array(capacity);
    due.set(this.due);
    this.due = due;
    const next = new Int32Array(capacity);
    next.set(this.next);
    this.next = next;
    const prev = new Int32Array(capacity);
    prev.set(this.prev);
    this.prev = prev;
    const state = new Uint8Array(capacity);
    state.set(this.state);
    this.state = state;
  }
}

/** 32-bit FNV-1a over UTF-16 code units, finished with murmur3's fmix32 so nearby ids spread. */
export function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * A check's stable phase inside its interval, an integer in [0, intervalMs). It depends only
 * on the id and the interval, so equal intervals spread evenly and a restart keeps each
 * check's slot (no thundering herd).
 */
export function phaseOffset(id: string, intervalMs: number): number {
  assertInterval(intervalMs);
  return Math.floor((hashId(id) / 0x1_0000_0000) * intervalMs);
}

/** The first instant t >= now with (t - phase) a multiple of intervalMs. */
export function nextDue(id: string, intervalMs: number, now: number): number {
  const phase = phaseOffset(id, intervalMs);
  return phase + Math.ceil((now - phase) / intervalMs) * intervalMs;
}

/**
 * The slot after a firing at `firedDueAt`: strictly later than it (nextDue(firedDueAt) would
 * return the same instant and fire twice) and not in the past, so a late or off-phase run
 * (PATCH, resume, immediate recheck) falls back onto the phase without a catch-up burst.
 */
export function followingDue(id: string, intervalMs: number, firedDueAt: number, now: number): number {
  return nextDue(id, intervalMs, Math.max(now, firedDueAt + 1));
}

function assertInterval(intervalMs: number): void {
  if (!(intervalMs > 0) || !Number.isFinite(intervalMs)) {
    throw new RangeError('intervalMs must be a positive number');
  }
}
