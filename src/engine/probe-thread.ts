import { parentPort, workerData } from 'node:worker_threads';
import type { ProbeResult, ProbeTask } from '../domain/probe-types.js';

/**
 * The messages between the dispatcher and a probe thread. Each carries every probe of one turn
 * (a wheel tick's probes out, the results finished in one pass of the worker's loop back), so
 * a quiet instance pays one message, not one per probe, and nothing else crosses the threads.
 */
export interface ProbeBatch {
  ids: number[];
  tasks: ProbeTask[];
}

export interface ResultBatch {
  ids: number[];
  results: ProbeResult[];
}

/** Marks a worker started by the dispatcher (workerData), so a module only serves probes there. */
export const PROBE_THREAD = 'vigilProbeThread';

export function isProbeThread(): boolean {
  return parentPort !== null && (workerData as Record<string, unknown> | null)?.[PROBE_THREAD] === true;
}

export function failedResult(startedAt: number, error: string): ProbeResult {
  return { ok: false, statusCode: null, responseTime: null, timing: null, error, snippet: null, ssl: null, location: null, startedAt };
}

/**
 * The worker's side: runs every probe it is sent at once on this thread's event loop and sends
 * the results back as they finish, those of one loop pass together. A probe that throws (a bug)
 * is a failed result, not a broken thread.
 */
export function serveProbes(run: (task: ProbeTask) => Promise<ProbeResult>): void {
  const port = parentPort;
  if (port === null) throw new Error('serveProbes runs on a worker thread');
  let out: ResultBatch = { ids: [], results: [] };
  let sending = false;
  const send = (): void => {
    sending = false;
    const batch = out;
    out = { ids: [], results: [] };
    port.postMessage(batch);
  };
  const done = (id: number, result: ProbeResult): void => {
    out.ids.push(id);
    out.results.push(result);
    if (!sending) {
      sending = true;
      setImmediate(send);
    }
  };
  port.on('message', ({ ids, tasks }: ProbeBatch) => {
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      run(tasks[i]!).then(
        (result) => done(id, result),
        (err: unknown) => done(id, failedResult(Date.now(), `Probe failed: ${(err as Error)?.message ?? String(err)}`)),
      );
    }
  });
}
