import type { LastProbe, LiveCheck } from './live-check.js';

/**
 * The one registry of live checks: each watched check's live state (`LiveCheck`), whoever
 * schedules it. The engine keeps probe checks here, the heartbeat monitor heartbeats, the
 * domain monitor `domain` checks; a website's domain lookups use the engine's entry, so one
 * check never has two states. Only the recorder changes an entry's state; its owner puts it
 * here and takes it out.
 */
export class LiveChecks {
  private readonly entries = new Map<string, LiveCheck>();

  get(checkId: string): LiveCheck | undefined {
    return this.entries.get(checkId);
  }

  /** Puts (or replaces) a check's entry. */
  set(entry: LiveCheck): void {
    this.entries.set(entry.id, entry);
  }

  /** Takes a check's entry out; with `entry`, only if that is still the one here. */
  delete(checkId: string, entry?: LiveCheck): void {
    if (entry === undefined || this.entries.get(checkId) === entry) this.entries.delete(checkId);
  }

  /** The check's latest observation, from memory (the record's `lastProbe`). */
  lastProbe(checkId: string): LastProbe | null {
    return this.entries.get(checkId)?.lastProbe ?? null;
  }

  /** The ids of every watched check. */
  ids(): IterableIterator<string> {
    return this.entries.keys();
  }

  get size(): number {
    return this.entries.size;
  }
}
