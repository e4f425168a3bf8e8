
/** A central as the cluster tables record it (`vigil instances`). */
export interface InstanceRow {
  name: string;
  /** Bumped each time a process joins under this name: the epoch its renewals and claims carry. */
  epoch: number;
  version: string;
  startedAt: number;
  lastSeenAt: number;
  /** Its lease's end: the central is live while this is in the future. */
  leaseUntil: number;
  /** Checks it owned at its last renewal. */
  checks: number;
  /** Renewals since it joined. */
  renewals: number;
}

/** Who a central is in the protocol: its name and the epoch it joined with. */
export interface Holder {
  name: string;
  epoch: number;
}

/**
 * What a central's batch of monitoring writes carries with several centrals: who writes, and
 * when by its clock. The store applies the batch only if the holder's epoch is current and its
 * lease runs then (`ClusterRepo.holds`), in the batch's own transaction; otherwise nothing of
 * it is written and the batch fails with `StaleOwner`.
 */
export interface Fence {
  holder: Holder;
  now: number;
}

/** A batch refused by its fence: the central that wrote it no longer holds its lease. */
export class StaleOwner extends Error {
  constructor(holder: Holder) {
    super(`${holder.name} (epoch ${holder.epoch}) no longer holds its lease: its writes are refused`);
  }
}

/**
 * Leases of several centrals on one database (docs/high-availability.md): a row per central
 * and a row per slot of checks (`domain/leases.ts`). Every write names the holder's epoch, so a
 * process that was superseded (the same name joined again) or whose slots were taken over after
 * its lease ran out changes nothing. Times are epoch ms from the caller.
 */
export interface ClusterRepo {
  /** Records a process starting under `name` and answers its epoch (1 for a new name, else one more than the last). */
  join(name: string, version: string, now: number, leaseMs: number): Promise<number>;
  /**
   * One renewal, in one unit: the central's row and the lease of every slot it still holds.
   * Answers those slots, or null when the epoch is no longer the name's (another process joined).
   */
  renew(holder: Holder, now: number, leaseMs: number, checks: number): Promise<number[] | null>;
  /** Centrals whose lease has not ended at `now`, by name. */
  live(now: number): Promise<InstanceRow[]>;
  /** Every central ever recorded, by name. */
  all(): Promise<InstanceRow[]>;
  /** Slots nobody holds, or whose lease has ended at `now`. */
  claimable(now: number): Promise<number[]>;
  /** Takes those of `slots` still claimable at `now`; answers the ones won (another central may win the rest). */
  claim(holder: Holder, slots: readonly number[], now: number, leaseMs: number): Promise<number[]>;
  /** Gives slots back at once (rebalancing); only slots the holder still holds change. */
  release(holder: Holder, slots: readonly number[]): Promise<void>;
  /** A central stopping: every slot it holds is released and its row is no longer live. */
  leave(holder: Holder, now: number): Promise<void>;
  /** The fence: whether the holder's epoch is current and its lease runs at `now` (a write from a stale owner checks this in its unit). */
  holds(holder: Holder, now: number): Promise<boolean>;
}
