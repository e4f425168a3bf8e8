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
 * Results on their way back: as a task's answer, or, while the thread's other probes still run,
 * on the worker's port (piscina's 'message' event), so that results finishing before the
 * slowest of their batch come back before it.
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
 * Results wait at most this long for the rest of the thread's probes: waking the main thread
 * costs more than a small result message (a wake-up across threads is a system call and, on a
 * virtual machine, an interrupt between CPUs), and a tick's probes usually finish within a few
 * milliseconds of each other. A probe still running then (a slow target, a 30 s timeout)
 * holds back no result.
 */
export const RESULT_WAIT_MS = 50;

/**
 * The worker's side, as a piscina handler: runs every probe of a batch at once on this
 * thread's event loop. Finished results wait in one outbox shared by the thread's batches,
 * which goes back once no probe is left running on the thread, or RESULT_WAIT_MS after the
 * first waiting result on a busy thread: as the answer of a batch whose probes are all done
 * (one answer carries the outbox, any other finished batch answers empty in the same turn), or
 * else on the worker's port. So a saturated thread answers a few times a second, each time
 * with hundreds of results, rather than once per small batch. A probe that throws (a bug) is
 * a failed result, not a broken thread.
 */
export function probeBatchHandler(run: (task: ProbeTask) => Promise<ProbeResult>): (batch: ProbeBatch) => Promise<ResultBatch> {
  const port = parentPort;
  if (port === null) throw new Error('probe batches run on a worker thread');
  const empty = (): ResultBatch => ({ ids: [], results: [], thread: threadId });
  let out = empty();
  let running = 0;
  /** Answers of batches whose probes are all done, waiting for the next flush. */
  let finished: Array<(answer: ResultBatch) => void> = [];
  let immediate: NodeJS.Immediate | null = null;
  let timer: NodeJS.Timeout | null = null;
  const flush = (): void => {
    if (immediate !== null) clearImmediate(immediate);
    if (timer !== null) clearTimeout(timer);
    immediate = timer = null;
    const batch = out;
    out = empty();
    const answers = finished;
    finished = [];
    if (answers.length > 0) {
      answers[0]!(batch);
      for (let i = 1; i < answers.length; i++) answers[i]!(empty());
    } else if (batch.ids.length > 0) {
      batch.early = true;
      port.postMessage(batch);
    }
  };
  const done = (id: number, result: ProbeResult): void => {
    running--;
    out.ids.push(id);
    out.results.push(result);
    // Results finishing in the same pass of the loop go together.
    if (running === 0) immediate ??= setImmediate(flush);
    else timer ??= setTimeout(flush, RESULT_WAIT_MS);
  };
  return ({ ids, tasks }) =>
    new Promise((resolve) => {
      let left = ids.length;
      if (left === 0) return resolve(empty());
      running += left;
      const settle = (id: number, result: ProbeResult): void => {
        if (--left === 0) finished.push(resolve);
        done(id, result);
      };
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        run(tasks[i]!).then(
          (result) => settle(id, result),
          (err: unknown) => settle(id, failedResult(Date.now(), `Probe failed: ${(err as Error)?.message ?? String(err)}`)),
        );
      }
    });
}
