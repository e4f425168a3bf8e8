import { isMainThread, workerData } from 'node:worker_threads';
import type { ProbeResult, ProbeTask } from '../domain/probe-types.js';

// Probe errors are reported by message only; capturing stack traces (undici and net create an
// error on most connection teardowns) cost about a quarter of a probe. Worker threads only:
// the main thread, which tests and tools share, keeps its stacks.
if (!isMainThread) Error.stackTraceLimit = 0;
import { PROBES } from './probes/index.js';
import { describeError } from './probes/probe-errors.js';
import { emptyResult } from './probes/result.js';
import { probeBatchHandler } from './probe-thread.js';
import { useDnsServers } from './probes/resolve-target.js';

/** What the pool gives each probe thread (piscina's workerData). */
export interface ProbeThreadData {
  /** probes.dnsServers: every name a probe resolves is asked of these (empty: the system resolver). */
  dnsServers: string[];
}

if (!isMainThread) useDnsServers((workerData as Partial<ProbeThreadData> | undefined)?.dnsServers ?? []);

/** Runs one probe task. It never throws, so one bad task (or a bug in a probe) is a failed result. */
export async function runProbe(task: ProbeTask): Promise<ProbeResult> {
  const startedAt = Date.now();
  try {
    const probe = Object.hasOwn(PROBES, task.type) ? PROBES[task.type] : undefined;
    if (!probe) return { ...emptyResult(startedAt), error: `Unknown probe type: ${String(task.type)}` };
    return await probe(task);
  } catch (err) {
    return { ...emptyResult(startedAt), error: describeError(err) };
  }
}

/** The probe pool's task handler (piscina loads this module on each of its threads). */
export default isMainThread ? undefined : probeBatchHandler(runProbe);
