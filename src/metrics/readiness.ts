import type { Clock } from '../domain/clock.js';
import type { OperationsRepo } from '../store/status-pages.js';

/** The wheel ticks every 100 ms: a few seconds without a tick means the engine is stuck. */
const TICK_STALE_MS = 5_000;

export interface ReadinessReport {
  ready: boolean;
  /** `lease` only with several centrals: whether this central's lease runs. */
  checks: { store: string; engine: string; lease?: string };
}

/** `/readyz`: the store takes a write and the engine's wheel is turning. */
export class Readiness {
  constructor(
    private readonly deps: {
      ops: Pick<OperationsRepo, 'touch'>;
      lastTickAt: () => number | null;
      clock: Clock;
      /** Several centrals: whether this central's lease runs (absent on a single server). */
      holding?: () => boolean;
    },
  ) {}

  check(): ReadinessReport {
    // A central whose lease lapsed does not wait on a database it cannot reach.
    if (this.deps.holding && !this.deps.holding()) {
      return { ready: false, checks: { store: 'unreachable', engine: 'stopped', lease: 'lapsed: this central cannot renew its lease' } };
    }
    const now = this.deps.clock.now();
    let store = 'ok';
    try {
      this.deps.ops.touch(now);
    } catch (err) {
      store = `not writable: ${err instanceof Error ? err.message : String(err)}`;
    }
    const tick = this.deps.lastTickAt();
    const engine = tick === null ? 'not started' : now - tick > TICK_STALE_MS ? `no tick for ${Math.round((now - tick) / 1000)} s` : 'ok';
    const checks = this.deps.holding ? { store, engine, lease: 'ok' } : { store, engine };
    return { ready: store === 'ok' && engine === 'ok', checks };
  }
}
