import { parentPort, threadId } from 'node:worker_threads';
import type { ProbeResult, ProbeTask } from '../domain/probe-types.js';

/**
 * A piscina task: the probes of one wheel tick for one thread. piscina's per-task bookkeeping
 * (a task record, an async resource, a message each way) is paid once per batch, not per probe.
 */
export interface ProbeBatch {
  ids: number[];
  tasks: ProbeTask[];
}

/**
 * Results on their way back: the task's own answer carries the results still waiting when its
 * last probe finishes; results that finish before the slowest of their batch come back earlier
 * on the worker's port (piscina's 'message' event), marked with the thread they came from.
 */
export interface ResultBatch {
  ids: number[];
  results: ProbeResult[];
  /** The thread that sent it (its worker's threadId): an answer proves the thread alive. */
  thread: number;
  /** Set on a message sent outside a task's answer, so the pool can tell it from others. */
  early?: true;
}

export function failedResult(startedAt: number, error: string): ProbeResult {
  return { ok: false, statusCode: null, responseTime: null, timing: null, error, snippet: null, ssl: null, location: null, startedAt };
}

/**
 * Results wait at most this long for the rest of their batch: waking the main thread costs
 * more than a small result message (a wake-up across threads is a system call and, on a
 * virtual machine, an interrupt between CPUs), and a batch's probes usually finish within a
 * few milliseconds of each other. A probe still running then (a slow target, a 30 s timeout)
 * holds back no result.
 */
export const RESULT_WAIT_MS = 50;

/**
 * The worker's side, as a piscina handler: runs every probe of a batch at once on this
 * thread's event loop. Finished results wait in one outbox shared by the thread's batches; a
 * batch's answer takes the whole outbox when its last probe finishes, and RESULT_WAIT_MS after
 * a result waits, the outbox goes out early on the worker's port. A probe that throws (a bug)
 * is a failed result, not a broken thread.
 */
export function probeBatchHandler(run: (task: ProbeTask) => Promise<ProbeResult>): (batch: ProbeBatch) => Promise<ResultBatch> {
  const port = parentPort;
  if (port === null) throw new Error('probe batches run on a worker thread');
  const empty = (): ResultBatch => ({ ids: [], results: [], thread: threadId });
  let out = empty();
  let timer: NodeJS.Timeout | null = null;
  const take = (): ResultBatch => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    const batch = out;
    out = empty();
    return batch;
  };
  const sendEarly = (): void => {
    timer = null;
    if (out.ids.length === 0) return;
    const batch = take();
    batch.early = true;
    port.postMessage(batch);
  };
  return ({ ids, tasks }) =>
    new Promise((resolve) => {
      let left = ids.length;
      if (left === 0) return resolve(take());
      const done = (id: number, result: ProbeResult): void => {
        out.ids.push(id);
        out.results.push(result);
        if (--left === 0) resolve(take());
        else timer ??= setTimeout(sendEarly, RESULT_WAIT_MS);
      };
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        run(tasks[i]!).then(
          (result) => done(id, result),
          (err: unknown) => done(id, failedResult(Date.now(), `Probe failed: ${(err as Error)?.message ?? String(err)}`)),
        );
      }
    });
}
