import { fairShare, heldUntil, leaseTiming, rebalance, slotOf, type LeaseTiming } from '../domain/leases.js';
import type { Fence, Holder } from '../store/cluster-repo.js';
import type { ScopedJob } from '../util/job-runner.js';
import type { ChangeBus } from '../store/change-bus.js';
import type { Cluster, ClusterDeps, ClusterReading } from './cluster.js';

export interface LeaseClusterDeps extends ClusterDeps {
  /** Tells the others at once when this central releases slots (they renew and claim them). */
  bus: ChangeBus;
  /** Runs the lease job now (the job runner's run-now): another central released slots. */
  renewSoon: () => void;
}

/**
 * One of several centrals on a shared store (docs/high-availability.md#the-protocol). Every
 * renewal (a third of the lease, at most 4 s apart) extends the central's row and the slots it
 * holds in one unit, then moves toward its fair share: the excess released (first here, then in
 * the database), free and expired slots claimed. It acts on its slots only until its last
 * successful renewal's lease, less a margin, has run out: a central that cannot reach the
 * database, or is paused, stops on its own before another may claim what it held, and a write
 * of a superseded epoch changes nothing in the database.
 */
export class LeaseCluster implements Cluster {
  readonly shared = true;
  readonly name: string;
  private readonly timing: LeaseTiming;
  private holder: Holder | null = null;
  /** Slots held at the last renewal; acted on until `until`. */
  private slots = new Set<number>();
  private until = 0;
  private stopped = false;
  private renewals = 0;
  private renewalFailures = 0;
  private readonly gainedListeners: Array<(owns: (checkId: string) => boolean) => void> = [];

  constructor(private readonly deps: LeaseClusterDeps) {
    this.name = deps.name;
    this.timing = leaseTiming(deps.leaseMs);
  }

  owns(checkId: string): boolean {
    return this.until > this.deps.clock.now() && this.slots.has(slotOf(checkId));
  }

  holding(): boolean {
    return this.holder !== null && this.until > this.deps.clock.now();
  }

  heldSlots(): number[] {
    return this.holding() ? [...this.slots] : [];
  }

  reading(): ClusterReading {
    const holding = this.holding();
    return {
      name: this.name, checks: holding ? this.deps.countOwned() : 0, slots: holding ? this.slots.size : 0,
      renewals: this.renewals, renewalFailures: this.renewalFailures,
    };
  }

  /** What this central's write batches carry: the store refuses them once its lease is gone (epoch 0 is never current). */
  fence(): Fence {
    return { holder: this.holder ?? { name: this.name, epoch: 0 }, now: this.deps.clock.now() };
  }

  onGained(listener: (owns: (checkId: string) => boolean) => void): void {
    this.gainedListeners.push(listener);
  }

  async start(): Promise<void> {
    const { repo, name, version, clock, leaseMs, bus } = this.deps;
    bus.subscribe('cluster', (from) => {
      if (from !== this.name && !this.stopped) this.deps.renewSoon();
    });
    this.holder = { name, epoch: await repo.join(name, version, clock.now(), leaseMs) };
    this.deps.log.info({ instance: name, epoch: this.holder.epoch }, 'joined the cluster');
    await this.renew();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const holder = this.holder;
    this.slots = new Set();
    this.until = 0;
    if (!holder) return;
    await this.deps.repo.leave(holder, this.deps.clock.now());
    this.deps.bus.publish('cluster', this.name);
    this.deps.log.info({ instance: this.name }, 'left the cluster: its checks are handed over');
  }

  job(): ScopedJob {
    return { name: 'cluster-lease', scope: 'every-central', everyMs: this.timing.renewEveryMs, run: () => this.renew() };
  }

  /** One renewal and the moves toward the fair share. */
  async renew(): Promise<void> {
    const holder = this.holder;
    if (!holder || this.stopped) return;
    const { repo, clock, leaseMs } = this.deps;
    const sentAt = clock.now();
    let held: number[] | null;
    try {
      held = await repo.renew(holder, sentAt, leaseMs, this.deps.countOwned());
    } catch (err) {
      // `until` stays: if no renewal succeeds before it, this central stops acting on its own.
      this.renewalFailures++;
      throw err;
    }
    if (this.stopped) return;
    if (held === null) {
      this.deps.log.error({ instance: this.name, epoch: holder.epoch }, 'another process joined under this instance name: this one stops probing');
      this.holder = null;
      this.slots = new Set();
      this.until = 0;
      return;
    }
    this.renewals++;
    const before = this.until > sentAt ? this.slots : new Set<number>();
    const live = (await repo.live(sentAt)).map((i) => i.name);
    const share = fairShare(live, this.name);
    const moves = rebalance(held, held.length < share ? await repo.claimable(sentAt) : [], share);
    const next = new Set(held);
    for (const slot of moves.release) next.delete(slot);
    // Stop acting on released slots before the database frees them.
    this.slots = next;
    this.until = heldUntil(sentAt, this.timing);
    if (moves.release.length > 0) {
      await repo.release(holder, moves.release);
      this.deps.bus.publish('cluster', this.name);
    }
    if (moves.claim.length > 0) {
      // Claimed leases end where the renewed ones do (sentAt + leaseMs): `until` holds for them too.
      for (const slot of await repo.claim(holder, moves.claim, sentAt, leaseMs)) next.add(slot);
    }
    if (this.stopped) return;
    this.slots = next;
    const gained = [...next].filter((slot) => !before.has(slot));
    if (gained.length > 0) {
      const fresh = new Set(gained);
      const owns = (checkId: string) => fresh.has(slotOf(checkId));
      for (const listener of this.gainedListeners) listener(owns);
    }
  }
}
