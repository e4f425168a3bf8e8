import type { Clock } from '../domain/clock.js';
import type { OperationsRepo } from '../store/status-pages.js';

/** The wheel ticks every 100 ms: a few seconds without a tick means the engine is stuck. */
const TICK_STALE_MS = 5_000;

export interface ReadinessReport {
  ready: boolean;
  checks: { store: string; engine: string };
}

/** `/readyz`: the store takes a write and the engine's wheel is turning. */
export class Readiness {
  constructor(
    private readonly deps: { ops: Pick<OperationsRepo, 'touch'>; lastTickAt: () => number | null; clock: Clock },
  ) {}

  async check(): Promise<ReadinessReport> {
    const now = this.deps.clock.now();
    let store = 'ok';
    try {
      await this.deps.ops.touch(now);
    } catch (err) {
      store = `not writable: ${err instanceof Error ? err.message : String(err)}`;
    }
    const tick = this.deps.lastTickAt();
    const engine = tick === null ? 'not started' : now - tick > TICK_STALE_MS ? `no tick for ${Math.round((now - tick) / 1000)} s` : 'ok';
    return { ready: store === 'ok' && engine === 'ok', checks: { store, engine } };
  }
}
