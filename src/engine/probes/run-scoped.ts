import type { ProbeResult, ProbeTask } from '../../domain/probe-types.js';
import { describeError } from './probe-errors.js';
import { ProbeScope } from './probe-scope.js';
import { emptyResult } from './result.js';

/**
 * What a probe learned before it failed: a status code, a banner, a certificate. Kept in the
 * failed result so history shows "HTTP 200 but body timed out", not a bare error.
 */
export type Seen = Partial<Omit<ProbeResult, 'ok' | 'error' | 'startedAt'>>;

export type ScopedProbe = (scope: ProbeScope, seen: Seen) => Promise<ProbeResult>;

/** Runs a probe body under the task's deadline; whatever it throws becomes `{ok: false}`. */
export async function runScoped(task: ProbeTask, body: ScopedProbe): Promise<ProbeResult> {
  const scope = new ProbeScope(task.timeoutMs);
  const seen: Seen = {};
  try {
    // The race is the backstop: even a library that ignores the abort signal cannot hold a
    // probe past its deadline, and close() below then releases whatever it still holds.
    return await scope.race(body(scope, seen));
  } catch (err) {
    return {
      ...emptyResult(scope.startedAt),
      ...seen,
      ok: false,
      error: scope.expired ? scope.timeoutMessage : describeError(err),
    };
  } finally {
    scope.close();
  }
}
