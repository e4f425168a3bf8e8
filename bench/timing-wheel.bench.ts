import v8 from 'node:v8';
import vm from 'node:vm';
import { Bench } from 'tinybench';
import { runIfMain, table } from './lib/harness.js';
import { ManualClock } from '../src/domain/clock.js';
import { TimingWheel, followingDue, nextDue, type FireFn } from '../src/engine/timing-wheel.js';

/**
 * Timing wheel against two baselines at 100,000 scheduled entries:
 * - an indexed binary min-heap (Map id -> position), the usual O(log n) scheduler;
 * - one `setTimeout` per entry kept in a Map (the "timer chain per monitor" design), which
 *   cannot fire synchronously, so it has no fire figure.
 * Every task runs BATCH operations per sample; figures are ns per single operation.
 */

const T0 = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const TICK = 100;
const BATCH = 1000;
const POOL_BATCHES = 64;

interface Scheduler {
  schedule(id: string, dueAt: number): void;
  cancel(id: string): boolean;
  advance(now: number, fire: FireFn): number;
}

/** Baseline: indexed binary min-heap keyed on due time. */
class HeapScheduler implements Scheduler {
  private ids: string[] = [];
  private due: number[] = [];
  private readonly pos = new Map<string, number>();

  schedule(id: string, dueAt: number): void {
    const i = this.pos.get(id);
    if (i === undefined) {
      this.ids.push(id);
      this.due.push(dueAt);
      this.pos.set(id, this.ids.length - 1);
      this.up(this.ids.length - 1);
      return;
    }
    const old = this.due[i]!;
    this.due[i] = dueAt;
    if (dueAt < old) this.up(i);
    else this.down(i);
  }

  cancel(id: string): boolean {
    const i = this.pos.get(id);
    if (i === undefined) return false;
    this.removeAt(i);
    return true;
  }

  advance(now: number, fire: FireFn): number {
    let n = 0;
    while (this.ids.length > 0 && this.due[0]! <= now) {
      const id = this.ids[0]!;
      const dueAt = this.due[0]!;
      this.removeAt(0);
      n++;
      fire(id, dueAt);
    }
    return n;
  }

  private removeAt(i: number): void {
    this.pos.delete(this.ids[i]!);
    const lastId = this.ids.pop()!;
    const lastDue = this.due.pop()!;
    if (i === this.ids.length) return;
    this.ids[i] = lastId;
    this.due[i] = lastDue;
    this.pos.set(lastId, i);
    this.up(i);
    this.down(this.pos.get(lastId)!);
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.due[parent]! <= this.due[i]!) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.ids.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.due[l]! < this.due[m]!) m = l;
      if (r < n && this.due[r]! < this.due[m]!) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(a: number, b: number): void {
    const id = this.ids[a]!;
    const d = this.due[a]!;
    this.ids[a] = this.ids[b]!;
    this.due[a] = this.due[b]!;
    this.ids[b] = id;
    this.due[b] = d;
    this.pos.set(this.ids[a]!, a);
    this.pos.set(id, b);
  }
}

/** Baseline: one unref'd Node timer per entry; due times are relative to the ManualClock. */
class TimeoutScheduler implements Scheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  constructor(private readonly clock: ManualClock) {}

  schedule(id: string, dueAt: number): void {
    const old = this.timers.get(id);
    if (old !== undefined) clearTimeout(old);
    const timer = setTimeout(noop, Math.max(1, dueAt - this.clock.now()));
    timer.unref();
    this.timers.set(id, timer);
  }

  cancel(id: string): boolean {
    const timer = this.timers.get(id);
    if (timer === undefined) return false;
    clearTimeout(timer);
    return this.timers.delete(id);
  }

  advance(): number {
    throw new Error('setTimeout fires on the event loop, not on demand');
  }

  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

function noop(): void {}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 0x1_0000_0000;
  };
}

type Impl = 'wheel' | 'heap' | 'setTimeout';
export type WheelBenchOp = 'add' | 'cancel' | 'reschedule' | 'fire' | 'steady tick';

export interface WheelBenchRow {
  op: WheelBenchOp;
  /** Nanoseconds per operation. */
  wheel: number;
  heap: number;
  /** Null for fire and steady tick: a Node timer fires on the event loop, not on demand. */
  setTimeout: number | null;
}

export interface WheelBenchResult {
  entries: number;
  rows: WheelBenchRow[];
  /**
   * Bytes retained per scheduled entry, id strings excluded (a 30-character id such as
   * `probe:<24-char check id>` is a further 48-byte V8 string when built per entry).
   */
  memory: Record<Impl, number>;
  gcExact: boolean;
}

export interface WheelBenchOptions {
  entries?: number;
  /** Sampling time per task, ms. */
  time?: number;
}

export async function runWheelBench(options: WheelBenchOptions = {}): Promise<WheelBenchResult> {
  const entries = options.entries ?? 100_000;
  const time = options.time ?? 500;
  const ids = Array.from({ length: entries }, (_, i) => `probe:chk_${String(i).padStart(20, '0')}`);
  // Fresh ids for add/cancel, rotated so a key comes back only every POOL_BATCHES samples:
  // re-adding just-deleted keys each sample is a V8 Map pathology, not a realistic workload.
  const extra = Array.from({ length: POOL_BATCHES * BATCH }, (_, i) => `probe:new_${String(i).padStart(20, '0')}`);
  const rand = lcg(42);
  // Background: due any time in the next day, as a mix of intervals would leave them.
  const background = Float64Array.from(ids, () => T0 + DAY + Math.floor(rand() * DAY));
  const pickIds = Int32Array.from({ length: 1 << 16 }, () => Math.floor(rand() * entries));
  const pickDue = Float64Array.from({ length: 1 << 16 }, () => T0 + DAY + Math.floor(rand() * DAY));

  const { gcExact, ...memory } = measureMemory(ids, background);
  const bench = new Bench({ time, warmupTime: Math.min(200, time) });
  const counters = new Map<string, { ops: number }>();
  const built: Scheduler[] = [];

  for (const impl of ['wheel', 'heap', 'setTimeout'] as const) {
    const clock = new ManualClock(T0);
    const s: Scheduler = impl === 'wheel'
      ? new TimingWheel({ clock, tickMs: TICK, initialCapacity: entries + 2 * BATCH })
      : impl === 'heap' ? new HeapScheduler() : new TimeoutScheduler(clock);
    built.push(s);
    for (let i = 0; i < entries; i++) s.schedule(ids[i]!, background[i]!);
    let cursor = 0;
    let pool = 0;
    const addBatch = (): void => {
      const from = pool * BATCH;
      for (let i = 0; i < BATCH; i++) s.schedule(extra[from + i]!, pickDue[(cursor + i) & 0xffff]!);
      cursor += BATCH;
    };
    const cancelBatch = (): void => {
      const from = pool * BATCH;
      for (let i = 0; i < BATCH; i++) s.cancel(extra[from + i]!);
      pool = (pool + 1) % POOL_BATCHES;
    };

    bench.add(`${impl} add`, addBatch, { afterEach: cancelBatch });
    bench.add(`${impl} cancel`, cancelBatch, { beforeEach: addBatch });

    bench.add(`${impl} reschedule`, () => {
      for (let i = 0; i < BATCH; i++) {
        const k = (cursor + i) & 0xffff;
        s.schedule(ids[pickIds[k]!]!, pickDue[(k + 7919) & 0xffff]!);
      }
      cursor += BATCH;
    });

    if (impl === 'setTimeout') continue;
    let now = T0;
    const fired = { ops: 0 };
    counters.set(`${impl} fire`, fired);
    const count: FireFn = () => { fired.ops++; };
    bench.add(`${impl} fire`, () => {
      now += TICK;
      s.advance(now, count);
    }, {
      // BATCH entries due within the next tick, among the 100k background entries.
      beforeEach: () => {
        const from = pool * BATCH;
        for (let i = 0; i < BATCH; i++) s.schedule(extra[from + i]!, now + 1 + ((i * 97) % TICK));
        pool = (pool + 1) % POOL_BATCHES;
      },
      beforeAll: () => { fired.ops = 0; },
    });
  }

  addSteadyTick(bench, 'wheel', entries, ids, counters);
  addSteadyTick(bench, 'heap', entries, ids, counters);

  await bench.run();
  for (const s of built) if (s instanceof TimeoutScheduler) s.clear();

  const perOp = (name: string): number => {
    const task = bench.getTask(name)!;
    const r = task.result;
    if (r.state !== 'completed') throw new Error(`${name}: ${r.state === 'errored' ? r.error.message : r.state}`);
    const counter = counters.get(name);
    const opsPerSample = counter ? counter.ops / task.runs : BATCH;
    return (r.latency.mean * 1e6) / opsPerSample;
  };
  const ops: WheelBenchOp[] = ['add', 'cancel', 'reschedule', 'fire', 'steady tick'];
  const rows = ops.map((op): WheelBenchRow => ({
    op,
    wheel: perOp(`wheel ${op}`),
    heap: perOp(`heap ${op}`),
    setTimeout: bench.getTask(`setTimeout ${op}`) ? perOp(`setTimeout ${op}`) : null,
  }));
  return { entries, rows, memory, gcExact };
}

/**
 * The realistic load: every entry is a check on a 60 s interval at its stable phase; each tick
 * fires the ~entries/600 checks due and reschedules each one interval on (`followingDue`).
 * Reported per fired check, reschedule included.
 */
function addSteadyTick(bench: Bench, impl: 'wheel' | 'heap', entries: number, ids: string[], counters: Map<string, { ops: number }>): void {
  const interval = 60_000;
  const clock = new ManualClock(T0);
  const s: Scheduler = impl === 'wheel'
    ? new TimingWheel({ clock, tickMs: TICK, initialCapacity: entries })
    : new HeapScheduler();
  for (let i = 0; i < entries; i++) s.schedule(ids[i]!, nextDue(ids[i]!, interval, T0));
  let now = T0;
  const fired = { ops: 0 };
  counters.set(`${impl} steady tick`, fired);
  const refire: FireFn = (id, dueAt) => {
    fired.ops++;
    s.schedule(id, followingDue(id, interval, dueAt, now));
  };
  bench.add(`${impl} steady tick`, () => {
    now += TICK;
    s.advance(now, refire);
  }, { beforeAll: () => { fired.ops = 0; } });
}

function collector(): { gc: () => void; exact: boolean } {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return { gc: exposed, exact: true };
  // Not started with --expose-gc: switch the flag on and fetch gc from a fresh context.
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as (() => void) | undefined;
  return gc ? { gc, exact: true } : { gc: noop, exact: false };
}

function measureMemory(ids: string[], due: Float64Array): Record<Impl, number> & { gcExact: boolean } {
  const { gc, exact } = collector();
  const used = (): number => {
    gc();
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  const per = (build: () => unknown, cleanup: (built: unknown) => void = noop): number => {
    const before = used();
    const built = build();
    const after = used();
    cleanup(built);
    return (after - before) / ids.length;
  };
  const fill = (s: Scheduler): Scheduler => {
    for (let i = 0; i < ids.length; i++) s.schedule(ids[i]!, due[i]!);
    return s;
  };
  const clock = new ManualClock(T0);
  return {
    wheel: per(() => fill(new TimingWheel({ clock }))),
    heap: per(() => fill(new HeapScheduler())),
    setTimeout: per(() => fill(new TimeoutScheduler(clock)), (s) => (s as TimeoutScheduler).clear()),
    gcExact: exact,
  };
}

export function formatWheelBench(result: WheelBenchResult): string {
  const ns = (v: number | null): string => (v === null ? 'n/a' : v.toFixed(1));
  const ratio = (v: number | null, w: number): string => (v === null ? 'n/a' : `${(v / w).toFixed(1)}x`);
  return [
    `### Timing wheel at ${result.entries.toLocaleString('en')} entries (ns per operation; ratio = baseline / wheel)`,
    '',
    table(
      ['operation', 'wheel', 'binary heap', 'setTimeout + Map', 'heap / wheel', 'setTimeout / wheel'],
      result.rows.map((r) => [r.op, ns(r.wheel), ns(r.heap), ns(r.setTimeout), ratio(r.heap, r.wheel), ratio(r.setTimeout, r.wheel)]),
    ),
    '',
    `Memory per scheduled entry${result.gcExact ? '' : ' (no gc available: rough)'}, id strings excluded: wheel ` +
      `${result.memory.wheel.toFixed(0)} B, heap ${result.memory.heap.toFixed(0)} B, setTimeout + Map ${result.memory.setTimeout.toFixed(0)} B.`,
  ].join('\n');
}

runIfMain(import.meta.url, async () => formatWheelBench(await runWheelBench()));
