import type { MonitorStatus } from '../domain/events.js';
import type { MonitorState } from '../monitor/state-machine.js';

/** Whether a status can be told: down, or no failure being confirmed (a failure below the threshold is not yet an answer). */
export function settled(state: Pick<MonitorState, 'status' | 'consecutiveFailures'>): boolean {
  return state.status === 'down' || state.consecutiveFailures === 0;
}

interface Waiter {
  resolve: (status: MonitorStatus | null) => void;
  timer: NodeJS.Timeout;
  /** Probes still to ask for while a failure is being confirmed (the check's own re-checks may be off). */
  probesLeft: number;
}

/**
 * Checks whose settled status someone waits for after asking for a probe now (a dependant's
 * alert waits for its parents, issue 35 item 1). The engine tells it of each result it records
 * while any waits; nothing is asked of a result otherwise.
 */
export class FreshVerdicts {
  private readonly waiting = new Map<string, Waiter[]>();

  get size(): number {
    return this.waiting.size;
  }

  /** The check's status once a result recorded from now on settles it; null after `limitMs`. */
  wait(checkId: string, limitMs: number, probes: number): Promise<MonitorStatus | null> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        resolve,
        probesLeft: probes,
        timer: setTimeout(() => {
          this.drop(checkId, waiter);
          resolve(null);
        }, limitMs),
      };
      const list = this.waiting.get(checkId);
      if (list === undefined) this.waiting.set(checkId, [waiter]);
      else list.push(waiter);
    });
  }

  /**
   * A result of the check was recorded and moved it to `state`: its waiters are answered when
   * that settles it. True when one still waits and may have another probe at once.
   */
  recorded(checkId: string, state: Pick<MonitorState, 'status' | 'consecutiveFailures'>): boolean {
    const list = this.waiting.get(checkId);
    if (list === undefined) return false;
    if (settled(state)) {
      this.waiting.delete(checkId);
      for (const w of list) {
        clearTimeout(w.timer);
        w.resolve(state.status);
      }
      return false;
    }
    let again = false;
    for (const w of list) if (w.probesLeft-- > 0) again = true;
    return again;
  }

  private drop(checkId: string, waiter: Waiter): void {
    const list = this.waiting.get(checkId);
    if (list === undefined) return;
    const rest = list.filter((w) => w !== waiter);
    if (rest.length === 0) this.waiting.delete(checkId);
    else this.waiting.set(checkId, rest);
  }

  /** Shutdown: nobody gets an answer any more. */
  clear(): void {
    for (const list of this.waiting.values()) {
      for (const w of list) {
        clearTimeout(w.timer);
        w.resolve(null);
      }
    }
    this.waiting.clear();
  }
}
