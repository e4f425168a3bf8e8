import type { Clock } from '../domain/clock.js';
import type { Ownership } from '../engine/engine.js';
import type { Logger } from '../log.js';
import type { ClusterRepo, Holder } from '../store/cluster-repo.js';
import type { ScopedJob } from '../util/job-runner.js';
import { leaseTiming } from '../domain/leases.js';

/** What `/metrics` and `vigil instances` show of this central. */
export interface ClusterReading {
  name: string;
  /** Checks this central watches and owns now. */
  checks: number;
  /** Check slots held now (every check on a single server: 0 slots, it leases none). */
  slots: number;
  /** Renewals that succeeded since start. */
  renewals: number;
  /** Renewals that failed (the database did not answer). */
  renewalFailures: number;
}

/**
 * This central among the others on one store. `owns` answers from memory, kept current by the
 * lease job: the probe path never waits on the database to know whether to probe.
 */
export interface Cluster extends Ownership {
  readonly name: string;
  /** Several centrals may share the store (PostgreSQL): checks are leased, not all owned. */
  readonly shared: boolean;
  /** Whether this central may act now: its lease runs (a single server always may once started). */
  holding(): boolean;
  reading(): ClusterReading;
  /** The slots this central may act on now (none on a single server, which leases nothing). */
  heldSlots(): number[];
  /** Joins (a new epoch under this name) and takes a first share. */
  start(): Promise<void>;
  /** Hands every check over at once (SIGTERM) and leaves. */
  stop(): Promise<void>;
  /** The periodic renewal (`cluster-lease` in /metrics). */
  job(): ScopedJob;
  /** Called with the checks this central has just taken over (their state is read from the store again). */
  onGained(listener: (owns: (checkId: string) => boolean) => void): void;
}

/** What every central's cluster needs: its row, its lease and what it owns. */
export interface ClusterDeps {
  repo: ClusterRepo;
  name: string;
  version: string;
  leaseMs: number;
  clock: Clock;
  log: Logger;
  /** Checks this central owns now, recorded with each renewal. */
  countOwned: () => number;
}

/**
 * The embedded SQLite store has one server (the data directory's lock sees to it): it owns
 * every check and leases nothing. It records itself in the instances table, so
 * `vigil instances` shows it, renewing its row as a clustered central would.
 */
export class SingleNodeCluster implements Cluster {
  readonly shared = false;
  readonly name: string;
  private holder: Holder | null = null;
  private renewals = 0;
  private renewalFailures = 0;

  constructor(private readonly deps: ClusterDeps) {
    this.name = deps.name;
  }

  owns(): boolean {
    return true;
  }

  holding(): boolean {
    return this.holder !== null;
  }

  reading(): ClusterReading {
    return { name: this.name, checks: this.deps.countOwned(), slots: 0, renewals: this.renewals, renewalFailures: this.renewalFailures };
  }

  heldSlots(): number[] {
    return [];
  }

  async start(): Promise<void> {
    const { repo, name, version, clock, leaseMs } = this.deps;
    this.holder = { name, epoch: await repo.join(name, version, clock.now(), leaseMs) };
  }

  async stop(): Promise<void> {
    const holder = this.holder;
    if (!holder) return;
    await this.deps.repo.leave(holder, this.deps.clock.now());
  }

  job(): ScopedJob {
    return {
      name: 'cluster-lease',
      scope: 'every-central',
      everyMs: leaseTiming(this.deps.leaseMs).renewEveryMs,
      run: async () => {
        if (!this.holder) return;
        try {
          await this.deps.repo.renew(this.holder, this.deps.clock.now(), this.deps.leaseMs, this.deps.countOwned());
          this.renewals++;
        } catch (err) {
          this.renewalFailures++;
          throw err;
        }
      },
    };
  }

  onGained(): void {
    // Everything is owned from the start: nothing is ever gained.
  }
}
