/*
 * The messages and the worker side of the bench's baseline dispatcher (own-threads-dispatcher.ts),
 * as main had them before issue 25 (src/engine/probe-thread.ts). Not used by Vigil.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ProbeResult, ProbeTask } from '../../src/domain/probe-types.js';
import { failedResult, type ProbeBatch, type ResultBatch as PoolResultBatch } from '../../src/engine/probe-thread.js';

/**
 * The messages between the dispatcher and a probe thread: a turn's probes out (the same shape as
 * the piscina pool's batches), the results finished in one pass of the worker's loop back.
 */
export type { ProbeBatch };
export type ResultBatch = Pick<PoolResultBatch, 'ids' | 'results'>;

/** Marks a worker started by the dispatcher (workerData), so a module only serves probes there. */
export const PROBE_THREAD = 'vigilProbeThread';

export function isProbeThread(): boolean {
  return parentPort !== null && (workerData as Record<string, unknown> | null)?.[PROBE_THREAD] === true;
}

/**
 * Results wait at most this long for the thread's other probes: waking the main thread costs
 * more than a small result message (a wake-up across threads is a system call and, on a
 * virtual machine, an interrupt between CPUs).
 */
const RESULT_WAIT_MS = 50;

/**
 * The worker's side: runs every probe it is sent at once on this thread's event loop and sends
 * the results back together: once no probe is left running (the probes of one wheel tick
 * usually finish within a few milliseconds of each other), or RESULT_WAIT_MS after the first
 * waiting result on a busy thread. A probe that throws (a bug) is a failed result, not a broken
 * thread.
 */
export function serveProbes(run: (task: ProbeTask) => Promise<ProbeResult>): void {
  const port = parentPort;
  if (port === null) throw new Error('serveProbes runs on a worker thread');
  let out: ResultBatch = { ids: [], results: [] };
  let running = 0;
  let immediate: NodeJS.Immediate | null = null;
  let timer: NodeJS.Timeout | null = null;
  const send = (): void => {
    if (immediate !== null) clearImmediate(immediate);
    if (timer !== null) clearTimeout(timer);
    immediate = timer = null;
    if (out.ids.length === 0) return;
    const batch = out;
    out = { ids: [], results: [] };
    port.postMessage(batch);
  };
  const done = (id: number, result: ProbeResult): void => {
    running--;
    out.ids.push(id);
    out.results.push(result);
    // Results finishing in the same pass of the loop go together.
    if (running === 0) immediate ??= setImmediate(send);
    else timer ??= setTimeout(send, RESULT_WAIT_MS);
  };
  port.on('message', ({ ids, tasks }: ProbeBatch) => {
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      running++;
      run(tasks[i]!).then(
        (result) => done(id, result),
        (err: unknown) => done(id, failedResult(Date.now(), `Probe failed: ${(err as Error)?.message ?? String(err)}`)),
      );
    }
  });
}
