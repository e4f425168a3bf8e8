import type { Clock } from '../domain/clock.js';
import { WHEN_WOKEN, type ScopedJob } from '../util/job-runner.js';
import { OUTBOX_GRACE_MS, type AlertPipeline } from './alert-pipeline.js';

const EVERY_MS = 2_000;

/**
 * Routes the events kept with their state change and never routed (their central died first; on
 * one server, a crash or a failed routing), by whichever central looks: at start, then every 2 s.
 * One server (`shared` false) stops looking once a sweep has started a grace after the first (it
 * has then seen everything a crash before this start left) and sleeps until its own pipeline
 * leaves an event behind, a grace after that.
 */
export function outboxSweepJob(pipeline: Pick<AlertPipeline, 'sweep' | 'onLeftUnrouted'>, clock: Clock, shared: boolean): ScopedJob {
  let firstAt: number | null = null;
  return {
    name: 'alert-outbox',
    scope: 'one-central',
    everyMs: EVERY_MS,
    atStart: true,
    wakeOn: shared ? [] : [(wake) => pipeline.onLeftUnrouted(() => wake(clock.now() + OUTBOX_GRACE_MS))],
    run: async () => {
      const startedAt = clock.now();
      await pipeline.sweep();
      if (shared) return undefined;
      firstAt ??= startedAt;
      return startedAt < firstAt + OUTBOX_GRACE_MS ? undefined : WHEN_WOKEN;
    },
  };
}
