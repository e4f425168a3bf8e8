import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { ProbeResult, ProbeTask } from './probe-types.js';

/**
 * Where probes run. In-process piscina workers now; a remote prober node later implements the
 * same role (DESIGN "Scaling past one machine"). `run` never rejects: a failure is a result.
 */
export interface ProbeDispatcher {
  run(task: ProbeTask): Promise<ProbeResult>;
  readonly inFlight: number;
  close(): Promise<void>;
}

const WORKER = fileURLToPath(new URL('./probe-worker.js', import.meta.url));
/** Slack beyond the probe's own deadline before the dispatcher gives up on a worker. */
const GUARD_MS = 5_000;

export interface PoolOptions {
  threads?: number;
  concurrentTasksPerWorker?: number;
  /** The worker module (tests substitute one). */
  filename?: string;
}

export class PiscinaDispatcher implements ProbeDispatcher {
  private readonly pool: Piscina;
  private running = 0;

  constructor(opts: PoolOptions = {}) {
    const threads = opts.threads || Math.max(1, Math.min(2, availableParallelism() - 1));
    this.pool = new Piscina({
      filename: opts.filename ?? WORKER,
      minThreads: threads,
      maxThreads: threads,
      // Probes are I/O: each worker keeps hundreds in flight on its own event loop.
      concurrentTasksPerWorker: opts.concurrentTasksPerWorker ?? 512,
      // Workers must keep their event loops free between tasks for the probes' sockets.
      atomics: 'disabled',
      idleTimeout: Infinity,
      maxQueue: Infinity,
    });
  }

  get inFlight(): number {
    return this.running;
  }

  async run(task: ProbeTask): Promise<ProbeResult> {
    const startedAt = Date.now();
    const abort = new AbortController();
    const guard = setTimeout(() => abort.abort(), task.timeoutMs + GUARD_MS);
    this.running++;
    try {
      return (await this.pool.run(task, { signal: abort.signal })) as ProbeResult;
    } catch (err) {
      // A crashed or stuck worker fails only its own probes, recorded as errors.
      const reason = abort.signal.aborted ? `Probe did not finish within ${task.timeoutMs + GUARD_MS} ms` : `Probe worker failed: ${(err as Error).message}`;
      return failedResult(startedAt, reason);
    } finally {
      clearTimeout(guard);
      this.running--;
    }
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}

export function failedResult(startedAt: number, error: string): ProbeResult {
  return { ok: false, statusCode: null, responseTime: null, timing: null, error, snippet: null, ssl: null, location: null, startedAt };
}
