/**
 * The arithmetic of several centrals sharing the checks (docs/high-availability.md): checks fall
 * into a fixed number of slots by a hash of their id, and each slot is leased to one central.
 * Pure functions only; the protocol that renews and claims lives in `cluster/`.
 */

/** Slots the checks are spread over: fine enough that three centrals' shares differ by one slot. */
export const SLOTS = 1024;

/** The slot of a check: FNV-1a of its id, the same on every central and across restarts. */
export function slotOf(checkId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < checkId.length; i++) {
    h ^= checkId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % SLOTS;
}

/**
 * How many slots `me` should hold among the live centrals: an even split, the remainder going
 * one each to the first names in sort order, so every central computes the same shares.
 */
export function fairShare(live: readonly string[], me: string, slots: number = SLOTS): number {
  const names = [...new Set([...live, me])].sort();
  const base = Math.floor(slots / names.length);
  return names.indexOf(me) < slots % names.length ? base + 1 : base;
}

/**
 * One renewal's moves: slots beyond the share are released (the highest first, so a central
 * keeps a stable set), and free slots are claimed up to the share (the lowest first).
 */
export function rebalance(held: readonly number[], claimable: readonly number[], share: number): { claim: number[]; release: number[] } {
  if (held.length > share) return { claim: [], release: [...held].sort((a, b) => b - a).slice(0, held.length - share) };
  const mine = new Set(held);
  const free = [...claimable].filter((s) => !mine.has(s)).sort((a, b) => a - b);
  return { claim: free.slice(0, share - held.length), release: [] };
}

/** How a lease of `leaseMs` is kept: how often it is renewed, and the margin its holder keeps. */
export interface LeaseTiming {
  leaseMs: number;
  /** Between renewals: a third of the lease, at most 4 s (so a dead central's slots are claimed within leaseMs + 5 s). */
  renewEveryMs: number;
  /**
   * The holder stops this long before its lease ends by its own clock, so a central whose clock
   * runs up to this much behind the database's still stops before another may take over.
   */
  marginMs: number;
}

export function leaseTiming(leaseMs: number): LeaseTiming {
  return { leaseMs, renewEveryMs: Math.min(4_000, Math.floor(leaseMs / 3)), marginMs: Math.min(2_000, Math.floor(leaseMs / 5)) };
}

/**
 * Until when a central may act on slots it renewed: from when the renewal was *sent* (the
 * database set the lease's end no earlier than that), the lease less the margin. A renewal that
 * fails or hangs leaves this unchanged, so the holder stops by itself (fencing on its side).
 */
export function heldUntil(renewSentAt: number, timing: LeaseTiming): number {
  return renewSentAt + timing.leaseMs - timing.marginMs;
}

/** A lease ending at `leaseUntil` may be claimed by another central at `now`. */
export function claimable(leaseUntil: number, now: number): boolean {
  return leaseUntil <= now;
}
