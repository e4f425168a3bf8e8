import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { ProbeReply, ProbeResult, ProbeTask } from '../domain/probe-types.js';
import { bundledFile } from '../util/bundled-file.js';

/**
 * Where probes run. In-process piscina workers now; a remote prober node later implements the
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
 * Slack beyond the probe's own deadline before the dispatcher gives up waiting. Every probe
 * settles at its deadline inside the worker, so a probe this late means its worker's event
 * loop is stuck.
 */
const GUARD_MS = 5_000;

export interface PoolOptions {
  threads?: number;
  concurrentTasksPerWorker?: number;
  /** The worker module (tests substitute one). */
  filename?: string;
  /** Overrides GUARD_MS (tests). */
  guardMs?: number;
}

interface QueuedProbe {
  task: ProbeTask;
  resolve: (result: ProbeResult) => void;
}

/**
 * Runs probes on piscina workers, each keeping `concurrentTasksPerWorker` probes in flight on
 * its own event loop. Beyond that the dispatcher queues, so a probe's guard starts when a
 * worker takes it: a saturated pool makes probes late, never falsely failed.
 *
 * Tasks carry no abort signal: piscina runs a task that has one alone on its worker (aborting
 * it means terminating the thread), which would make the pool probe one target at a time.
 * Instead a probe whose guard expires is failed here, and any worker that has not answered
 * for a whole guard period is terminated; piscina fails its probes and starts a replacement.
 */
export class PiscinaDispatcher implements ProbeDispatcher {
  private readonly pool: Piscina;
  /** Worker threads, and probes each keeps in flight (benchmarks give their baseline the same). */
  readonly threads: number;
  readonly concurrency: number;
  private readonly capacity: number;
  private readonly guardMs: number;
  private readonly waiting: Array<QueuedProbe | undefined> = [];
  /** Index of the next waiting probe; the array is compacted as it drains. */
  private head = 0;
  private running = 0;
  private closed = false;
  /** When each worker thread last answered. */
  private readonly answeredAt = new Map<number, number>();
  /** Workers terminated and not yet gone: nothing is handed out until they are. */
  private replacing = 0;

  constructor(opts: PoolOptions = {}) {
    const threads = opts.threads || Math.max(1, Math.min(2, availableParallelism() - 1));
    const perWorker = opts.concurrentTasksPerWorker ?? 512;
    this.threads = threads;
    this.concurrency = perWorker;
    this.capacity = threads * perWorker;
    this.guardMs = opts.guardMs ?? GUARD_MS;
    this.pool = new Piscina({
      filename: opts.filename ?? WORKER,
      minThreads: threads,
      maxThreads: threads,
      concurrentTasksPerWorker: perWorker,
      // Workers must keep their event loops free between tasks for the probes' sockets.
      atomics: 'disabled',
      idleTimeout: Infinity,
      maxQueue: Infinity,
    });
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

  private pump(): void {
    while (this.replacing === 0 && this.running < this.capacity && this.head < this.waiting.length) {
      const next = this.waiting[this.head]!;
      this.waiting[this.head++] = undefined;
      this.start(next);
    }
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
  }

  private start({ task, resolve }: QueuedProbe): void {
    const startedAt = Date.now();
    let settled = false;
    const settle = (result: ProbeResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(guard);
      this.running--;
      resolve(result);
      this.pump();
    };
    const limit = task.timeoutMs + this.guardMs;
    const guard = setTimeout(() => {
      settle(failedResult(startedAt, `Probe did not finish within ${limit} ms`));
      this.replaceSilentWorkers();
    }, limit);
    this.running++;
    (this.pool.run(task) as Promise<ProbeReply>).then(
      (reply) => {
        this.answeredAt.set(reply.thread, Date.now());
        settle(reply.result);
      },
      // A crashed worker fails only its own probes, recorded as errors.
      (err: unknown) => settle(failedResult(startedAt, `Probe worker failed: ${(err as Error).message}`)),
    );
  }

  private replaceSilentWorkers(): void {
    const silentSince = Date.now() - this.guardMs;
    for (const worker of this.pool.threads) {
      if (worker.threadId < 0 || (this.answeredAt.get(worker.threadId) ?? 0) >= silentSince) continue; // gone, or answering
      this.answeredAt.delete(worker.threadId);
      // piscina would still hand the dying thread new probes; they wait for its exit instead.
      this.replacing++;
      worker.once('exit', () => {
        this.replacing--;
        this.pump();
      });
      void worker.terminate();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const dropped = this.waiting.splice(this.head);
    this.waiting.length = 0;
    this.head = 0;
    const now = Date.now();
    for (const pending of dropped) pending?.resolve(failedResult(now, 'Probe pool is closed'));
    await this.pool.destroy();
  }
}

export function failedResult(startedAt: number, error: string): ProbeResult {
  return { ok: false, statusCode: null, responseTime: null, timing: null, error, snippet: null, ssl: null, location: null, startedAt };
}
