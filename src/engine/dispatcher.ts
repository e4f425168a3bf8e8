import { availableParallelism } from 'node:os';
import { Piscina, queueOptionsSymbol } from 'piscina';
import type { ProbeResult, ProbeTask } from '../domain/probe-types.js';
import { bundledFile } from '../util/bundled-file.js';
import { RequestChannel } from '../util/request-channel.js';
import { failedResult, type ProbeBatch, type ResultBatch } from './probe-thread.js';
import type { ProbeThreadData } from './probe-worker.js';

export { failedResult } from './probe-thread.js';

/**
 * Where probes run. In-process worker threads now; a remote prober node later implements the
 * same role (DESIGN "Scaling past one machine"). `run` never rejects: a failure is a result.
 */
export interface ProbeDispatcher {
  run(task: ProbeTask): Promise<ProbeResult>;
  /** Probes handed to a worker and not yet settled (shutdown waits for these). */
  readonly inFlight: number;
  /** Probes waiting for a free slot. */
  readonly queued: number;
  /** Drops the queue and stops the workers; every pending `run` settles. */
  close(): Promise<void>;
}

const WORKER = bundledFile('probe-worker', new URL('./probe-worker.js', import.meta.url));
/**
 * A probe thread's young generation: V8 grew it to its default maximum under load, and the
 * thread's heap then reserved about four times what it held. At 40,000 checks this bound cut
 * the process's RSS by about 16 MiB at no measurable CPU per probe.
 */
const YOUNG_GENERATION_MB = 16;
/**
 * Slack beyond the probe's own deadline before the dispatcher gives up waiting. Every probe
 * settles at its deadline inside the worker, so a probe this late means its worker's event
 * loop is stuck.
 */
const GUARD_MS = 5_000;
/** Probes one thread keeps in flight on its event loop unless told otherwise. */
const PROBES_IN_FLIGHT_PER_THREAD = 512;

export interface PoolOptions {
  /** Worker threads (0 or absent: one less than the cores, at most 2). */
  threads?: number;
  /** Probes one thread runs at once; beyond threads × this, probes queue. */
  probesInFlightPerThread?: number;
  /** The worker module, whose default export handles a ProbeBatch (tests substitute one). */
  filename?: string;
  /** Overrides GUARD_MS (tests). */
  guardMs?: number;
  /** probes.dnsServers, for every name the probes resolve (absent or empty: the system resolver). */
  dnsServers?: readonly string[];
}

/** One of the pool's threads, as the dispatcher counts it (piscina's worker `id` is its threadId). */
interface PoolThread {
  id: number;
  /** Probes sent to it and not settled. */
  load: number;
  /** When it last answered, or started. */
  answeredAt: number;
}

/** What the dispatcher keeps with each probe between `run` and its result. */
interface Probe {
  task: ProbeTask;
  /** 0 while queued; when a thread took it. */
  startedAt: number;
  /** When the guard fails it: the probe's own deadline plus the guard period. */
  limitMs: number;
  thread: PoolThread | null;
}

/** Rides on a batch (under piscina's queue-options symbol, never cloned) to pin it to its thread. */
interface Pin {
  thread: number | null;
}
type PinnedBatch = ProbeBatch & { [queueOptionsSymbol]: Pin };

/**
 * Runs probes on a piscina pool of a fixed number of threads, each keeping
 * `probesInFlightPerThread` probes in flight on its own event loop. Beyond that the dispatcher
 * queues, so a probe's guard starts when a thread takes it: a saturated pool makes probes
 * late, never falsely failed.
 *
 * One piscina task is one batch: the probes of a wheel tick (of one turn of the main thread)
 * for one thread, the least busy counted in probes; a load balancer pins the task to that
 * thread. So piscina's per-task cost (a task record, an async resource, a message each way) is
 * paid per batch, not per probe; timing histograms and atomics wake-ups are off.
 *
 * A probe whose guard expires is failed here, and its thread, if it has not answered for a
 * whole guard period, is terminated: its probes fail and piscina starts a new thread. A
 * crashed thread fails its own probes, recorded as errors.
 */
export class ThreadDispatcher implements ProbeDispatcher {
  readonly threads: number;
  readonly probesInFlightPerThread: number;
  private readonly capacity: number;
  private readonly guardMs: number;
  private readonly pool: Piscina<PinnedBatch, ResultBatch>;
  private readonly known = new Map<number, PoolThread>();
  /** Threads terminated for hanging, until piscina has removed them: no batch goes there. */
  private readonly retired = new Set<number>();
  private readonly probes = new RequestChannel<ProbeResult, Probe>();
  /** Ids of probes waiting for a free slot; the array is compacted as it drains. */
  private readonly waiting: number[] = [];
  private head = 0;
  private running = 0;
  /** This turn's batches by thread (the null key: no thread known, piscina picks). */
  private outbox = new Map<PoolThread | null, ProbeBatch>();
  private posting = false;
  private closed = false;
  /**
   * One sweep for every probe's guard rather than a timer per probe (a timer started and
   * cleared per probe was a twentieth of the main thread's work at 25 probes/s). A guard is a
   * backstop, so failing a probe up to one sweep after its limit is soon enough. Armed only
   * while probes run: between a quiet instance's bursts nothing is there to sweep.
   */
  private sweeper: NodeJS.Timeout | null = null;
  private readonly sweepEveryMs: number;

  constructor(opts: PoolOptions = {}) {
    const threads = opts.threads || Math.max(1, Math.min(2, availableParallelism() - 1));
    this.threads = threads;
    this.probesInFlightPerThread = opts.probesInFlightPerThread ?? PROBES_IN_FLIGHT_PER_THREAD;
    this.capacity = threads * this.probesInFlightPerThread;
    this.guardMs = opts.guardMs ?? GUARD_MS;
    this.pool = new Piscina<PinnedBatch, ResultBatch>({
      filename: opts.filename ?? WORKER,
      workerData: { dnsServers: [...(opts.dnsServers ?? [])] } satisfies ProbeThreadData,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
      // Batches, not probes: the dispatcher bounds the probes; a thread may hold many ticks' batches.
      concurrentTasksPerWorker: this.capacity,
      atomics: 'disabled',
      recordTiming: false,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      loadBalancer: (task, workers) => {
        const pinned = (task[queueOptionsSymbol] as Pin | null)?.thread;
        let best = null;
        for (const worker of workers) {
          if (worker.terminating || worker.destroyed || this.retired.has(worker.id)) continue;
          if (worker.id === pinned) return worker;
          if (best === null || worker.currentUsage < best.currentUsage) best = worker;
        }
        return best;
      },
    });
    for (const worker of this.pool.threads) this.track(worker.threadId);
    this.pool.on('workerCreate', (worker: { id: number }) => this.track(worker.id));
    this.pool.on('workerDestroy', (worker: { id: number }) => {
      this.known.delete(worker.id);
      this.retired.delete(worker.id);
    });
    this.pool.on('message', (batch: ResultBatch) => {
      if (batch?.early === true) this.answered(batch);
    });
    // A thread lost with no task on it (it crashed between batches): piscina replaces it.
    this.pool.on('error', () => {});
    this.sweepEveryMs = Math.max(10, Math.min(1_000, this.guardMs));
  }

  get inFlight(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length - this.head;
  }

  run(task: ProbeTask): Promise<ProbeResult> {
    if (this.closed) return Promise.resolve(failedResult(Date.now(), 'Probe pool is closed'));
    return this.probes.request({ task, startedAt: 0, limitMs: 0, thread: null }, (id) => {
      this.waiting.push(id);
      this.pump();
    });
  }

  private track(id: number): void {
    if (!this.known.has(id)) this.known.set(id, { id, load: 0, answeredAt: Date.now() });
  }

  private pump(): void {
    while (this.running < this.capacity && this.head < this.waiting.length) this.start(this.waiting[this.head++]!);
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
  }

  /** The least busy thread; null while none is known (all being replaced): piscina then picks. */
  private pick(): PoolThread | null {
    let best: PoolThread | null = null;
    for (const thread of this.known.values()) if (best === null || thread.load < best.load) best = thread;
    return best;
  }

  private start(id: number): void {
    const probe = this.probes.meta(id);
    if (probe === undefined) return; // settled while queued (the pool closed)
    const thread = this.pick();
    probe.startedAt = Date.now();
    probe.limitMs = probe.task.timeoutMs + this.guardMs;
    probe.thread = thread;
    if (thread !== null) thread.load++;
    if (this.running++ === 0 && this.sweeper === null) {
      this.sweeper = setInterval(() => this.sweep(), this.sweepEveryMs);
      this.sweeper.unref();
    }
    let batch = this.outbox.get(thread);
    if (batch === undefined) this.outbox.set(thread, (batch = { ids: [], tasks: [] }));
    batch.ids.push(id);
    batch.tasks.push(probe.task);
    if (!this.posting) {
      this.posting = true;
      queueMicrotask(() => this.post());
    }
  }

  /** Sends this turn's batches, one piscina task per thread. */
  private post(): void {
    this.posting = false;
    const batches = this.outbox;
    this.outbox = new Map();
    for (const [thread, { ids, tasks }] of batches) {
      const task: PinnedBatch = { ids, tasks, [queueOptionsSymbol]: { thread: thread?.id ?? null } };
      this.pool.run(task).then(
        (results) => this.answered(results),
        (err: Error) => this.lost(ids, `Probe worker failed: ${err.message}`),
      );
    }
  }

  private answered({ ids, results, thread }: ResultBatch): void {
    const from = this.known.get(thread);
    if (from !== undefined) from.answeredAt = Date.now();
    for (let i = 0; i < ids.length; i++) this.settle(ids[i]!, results[i]!);
    this.pump();
  }

  private settle(id: number, result: ProbeResult): void {
    const probe = this.probes.meta(id);
    if (probe === undefined) return; // already failed by its guard
    if (probe.startedAt !== 0) {
      if (--this.running === 0) this.stopSweeping();
      if (probe.thread !== null) probe.thread.load--;
    }
    this.probes.resolve(id, result);
  }

  /** The batch's thread crashed or was terminated: what is left of it fails. */
  private lost(ids: number[], error: string): void {
    const now = Date.now();
    for (const id of ids) this.settle(id, failedResult(now, error));
    this.pump();
  }

  /**
   * Fails the probes past their guard; a thread that held one and has not answered for a whole
   * guard period is stuck: its probes fail and it is terminated (piscina starts a new one). An
   * idle thread is silent for want of work, not stuck.
   */
  private sweep(): void {
    const now = Date.now();
    const late = new Set<PoolThread>();
    for (const [id, { meta: probe }] of this.probes.open()) {
      if (probe.startedAt === 0 || now - probe.startedAt < probe.limitMs) continue;
      this.settle(id, failedResult(probe.startedAt, `Probe did not finish within ${probe.limitMs} ms`));
      if (probe.thread !== null) late.add(probe.thread);
    }
    if (late.size === 0) return;
    for (const thread of late) if (thread.answeredAt < now - this.guardMs) this.replace(thread);
    this.pump();
  }

  private replace(thread: PoolThread): void {
    this.known.delete(thread.id);
    this.retired.add(thread.id);
    for (const [id, { meta: probe }] of this.probes.open()) {
      if (probe.thread === thread) this.settle(id, failedResult(probe.startedAt, 'Probe worker stopped answering'));
    }
    void this.pool.threads.find((worker) => worker.threadId === thread.id)?.terminate();
  }

  private stopSweeping(): void {
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopSweeping();
    this.waiting.length = 0;
    this.head = 0;
    const now = Date.now();
    for (const [id] of this.probes.open()) this.settle(id, failedResult(now, 'Probe pool is closed'));
    await this.pool.destroy();
  }
}
