/*
 * The bench's baseline: Vigil's own-threads probe dispatcher as main had it before issue 25
 * (commit f6e866a, src/engine/dispatcher.ts), kept here only so that the benches can measure
 * the piscina pool against it side by side. Not used by Vigil.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ProbeResult, ProbeTask } from '../../src/domain/probe-types.js';
import type { ProbeDispatcher } from '../../src/engine/dispatcher.js';
import { failedResult } from '../../src/engine/probe-thread.js';
import { PROBE_THREAD, type ProbeBatch, type ResultBatch } from './own-threads-protocol.js';

const WORKER = new URL('./own-threads-worker.js', import.meta.url);
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

interface PoolOptions {
  threads?: number;
  concurrentTasksPerWorker?: number;
  /** Overrides GUARD_MS (tests). */
  guardMs?: number;
}

interface QueuedProbe {
  task: ProbeTask;
  resolve: (result: ProbeResult) => void;
}

interface RunningProbe {
  resolve: (result: ProbeResult) => void;
  startedAt: number;
  /** When the guard fails it: the probe's own deadline plus the guard period. */
  limitMs: number;
}

/** One worker thread and the probes it runs. */
interface ProbeThread {
  worker: Worker;
  running: Map<number, RunningProbe>;
  /** Probes for the worker not posted yet: sent together once the current turn ends. */
  outbox: ProbeBatch;
  posting: boolean;
  /** When the thread last answered, or started. */
  answeredAt: number;
  /** Terminated, crashed or closed: takes no more probes, its replacement does. */
  gone: boolean;
}

/**
 * Runs probes on worker threads, each keeping `concurrentTasksPerWorker` probes in flight on
 * its own event loop. Beyond that the dispatcher queues, so a probe's guard starts when a
 * worker takes it: a saturated pool makes probes late, never falsely failed.
 *
 * The threads are Vigil's own rather than a general-purpose pool's: the probes of one wheel tick
 * travel in one message and the results of one worker turn come back in one. Per probe, the
 * pool it replaced (piscina) cost a task record, an async resource, timing histograms and an
 * atomics notification per probe: a fifth of the main thread's work at 25 probes/s.
 *
 * A probe whose guard expires is failed here, and its worker, if it has not answered for a whole
 * guard period, is terminated: its probes fail and a new thread takes its place. A crashed
 * worker fails its own probes, recorded as errors.
 */
export class OwnThreadsDispatcher implements ProbeDispatcher {
  /** Worker threads, and probes each keeps in flight (benchmarks give their baseline the same). */
  readonly threads: number;
  readonly concurrency: number;
  private readonly capacity: number;
  private readonly guardMs: number;
  private readonly pool: ProbeThread[] = [];
  private readonly waiting: Array<QueuedProbe | undefined> = [];
  /** Index of the next waiting probe; the array is compacted as it drains. */
  private head = 0;
  private running = 0;
  private nextId = 1;
  private closed = false;
  /**
   * One sweep for every probe's guard rather than a timer per probe (a timer started and
   * cleared per probe was a twentieth of the main thread's work at 25 probes/s). A guard is a
   * backstop, so failing a probe up to one sweep after its limit is soon enough.
   */
  private readonly sweeper: NodeJS.Timeout;

  constructor(opts: PoolOptions = {}) {
    const threads = opts.threads || Math.max(1, Math.min(2, availableParallelism() - 1));
    const perWorker = opts.concurrentTasksPerWorker ?? 512;
    this.threads = threads;
    this.concurrency = perWorker;
    this.capacity = threads * perWorker;
    this.guardMs = opts.guardMs ?? GUARD_MS;
    for (let i = 0; i < threads; i++) this.pool.push(this.spawn());
    this.sweeper = setInterval(() => this.sweep(), Math.max(10, Math.min(1_000, this.guardMs)));
    this.sweeper.unref();
  }

  get inFlight(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length - this.head;
  }

  run(task: ProbeTask): Promise<ProbeResult> {
    if (this.closed) return Promise.resolve(failedResult(Date.now(), 'Probe pool is closed'));
    return new Promise((resolve) => {
      this.waiting.push({ task, resolve });
      this.pump();
    });
  }

  private spawn(): ProbeThread {
    const worker = new Worker(WORKER, { workerData: { [PROBE_THREAD]: true }, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    const thread: ProbeThread = { worker, running: new Map(), outbox: { ids: [], tasks: [] }, posting: false, answeredAt: Date.now(), gone: false };
    // An idle pool does not keep the process alive; a thread with probes in flight does.
    worker.unref();
    worker.on('message', (batch: ResultBatch) => this.answered(thread, batch));
    worker.on('error', (err) => this.lose(thread, `Probe worker failed: ${err.message}`));
    worker.on('exit', (code) => this.lose(thread, `Probe worker exited with code ${code}`));
    return thread;
  }

  private pump(): void {
    while (this.running < this.capacity && this.head < this.waiting.length) {
      const next = this.waiting[this.head]!;
      this.waiting[this.head++] = undefined;
      this.start(next);
    }
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
  }

  /**
   * The least busy thread (capacity is counted over all of them, so it has a free slot). A lost
   * thread is replaced here, when a probe needs it: a worker that cannot even start fails the
   * probes sent to it instead of being restarted in a loop.
   */
  private pick(): ProbeThread {
    for (let i = 0; i < this.pool.length; i++) if (this.pool[i]!.gone) this.pool[i] = this.spawn();
    let best = this.pool[0]!;
    for (const thread of this.pool) if (thread.running.size < best.running.size) best = thread;
    return best;
  }

  private start({ task, resolve }: QueuedProbe): void {
    const thread = this.pick();
    const id = this.nextId++;
    if (thread.running.size === 0) thread.worker.ref();
    thread.running.set(id, { resolve, startedAt: Date.now(), limitMs: task.timeoutMs + this.guardMs });
    this.running++;
    thread.outbox.ids.push(id);
    thread.outbox.tasks.push(task);
    if (!thread.posting) {
      thread.posting = true;
      queueMicrotask(() => this.post(thread));
    }
  }

  private post(thread: ProbeThread): void {
    thread.posting = false;
    const batch = thread.outbox;
    thread.outbox = { ids: [], tasks: [] };
    if (!thread.gone && batch.ids.length > 0) thread.worker.postMessage(batch);
  }

  private answered(thread: ProbeThread, { ids, results }: ResultBatch): void {
    thread.answeredAt = Date.now();
    for (let i = 0; i < ids.length; i++) this.settle(thread, ids[i]!, results[i]!);
    this.pump();
  }

  private settle(thread: ProbeThread, id: number, result: ProbeResult): void {
    const probe = thread.running.get(id);
    if (probe === undefined) return; // already failed by its guard
    thread.running.delete(id);
    this.running--;
    if (thread.running.size === 0) thread.worker.unref();
    probe.resolve(result);
  }

  /** The thread is gone (crashed, exited, terminated): its probes fail; the next probe starts a new one. */
  private lose(thread: ProbeThread, error: string): void {
    thread.gone = true;
    if (thread.running.size === 0) return;
    const now = Date.now();
    for (const id of [...thread.running.keys()]) this.settle(thread, id, failedResult(now, error));
    this.pump();
  }

  /**
   * Fails the probes past their guard; a thread that held one and has not answered for a whole
   * guard period is stuck and replaced (an idle thread is silent for want of work, not stuck).
   */
  private sweep(): void {
    const now = Date.now();
    const late = new Set<ProbeThread>();
    for (const thread of this.pool) {
      for (const [id, probe] of thread.running) {
        if (now - probe.startedAt < probe.limitMs) continue;
        this.settle(thread, id, failedResult(probe.startedAt, `Probe did not finish within ${probe.limitMs} ms`));
        late.add(thread);
      }
    }
    if (late.size === 0) return;
    this.replaceSilent(late);
    this.pump();
  }

  private replaceSilent(threads: Set<ProbeThread>): void {
    const silentSince = Date.now() - this.guardMs;
    for (const thread of threads) {
      if (thread.gone || thread.answeredAt >= silentSince) continue;
      this.lose(thread, 'Probe worker stopped answering');
      void thread.worker.terminate();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const dropped = this.waiting.splice(this.head);
    this.waiting.length = 0;
    this.head = 0;
    const now = Date.now();
    for (const pending of dropped) pending?.resolve(failedResult(now, 'Probe pool is closed'));
    const threads = this.pool.splice(0);
    for (const thread of threads) this.lose(thread, 'Probe pool is closed');
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }
}
