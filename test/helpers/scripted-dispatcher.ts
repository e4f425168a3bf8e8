import type { ProbeDispatcher } from '../../src/engine/dispatcher.js';
import type { ProbeResult, ProbeTask } from '../../src/domain/probe-types.js';

/** A dispatcher whose answers the test decides: for engine tests that must not depend on sockets. */
export class ScriptedDispatcher implements ProbeDispatcher {
  readonly calls: ProbeTask[] = [];
  inFlight = 0;
  readonly queued = 0;
  constructor(
    public answer: (task: ProbeTask) => Partial<ProbeResult> = () => ({ ok: true }),
    private readonly now: () => number = Date.now,
  ) {}

  async run(task: ProbeTask): Promise<ProbeResult> {
    this.calls.push(task);
    const partial = this.answer(task);
    const ok = partial.ok ?? true;
    return {
      ok,
      statusCode: ok ? 200 : 500,
      responseTime: ok ? 42 : null,
      timing: ok ? { dns: 1, connect: 2, tls: 0, ttfb: 30, total: 42 } : null,
      error: ok ? null : 'Expected status 200, got 500',
      snippet: ok ? 'all good' : 'broken',
      ssl: null,
      location: null,
      startedAt: this.now(),
      ...partial,
    };
  }

  async close(): Promise<void> {}
}
