import type { Clock } from '../domain/clock.js';
import type { Logger } from '../log.js';
import type { LiveChecks } from '../monitor/live-checks.js';
import type { BatchWriter } from '../store/batch-writer.js';
import type { ChangeBus } from '../store/change-bus.js';
import type { Store } from '../store/store.js';
import type { JobRunner } from '../util/job-runner.js';
import { VERSION } from '../version.js';
import { SingleNodeCluster, type Cluster } from './cluster.js';
import { LeaseCluster } from './lease-cluster.js';

/** Several centrals on one store: the bus between them, and this central's answer to "do I own it?". */
export interface SharedStore {
  bus: ChangeBus;
  ownership: Cluster;
}

/** This central among the others on its store. */
export interface Membership {
  cluster: Cluster;
  /** Null on a single server, which owns every check: nothing on the probe path asks. */
  shared: SharedStore | null;
}

export interface MembershipDeps {
  store: Store;
  name: string;
  leaseMs: number;
  clock: Clock;
  log: Logger;
  live: LiveChecks;
  writer: BatchWriter;
  /** The lease job is run at once when another central releases slots. */
  jobs: Pick<JobRunner, 'runNow'>;
}

/**
 * The embedded SQLite store has one server, which owns every check; a store several centrals
 * share brings its bus, and this central leases its share of the checks on it.
 */
export function membership(deps: MembershipDeps): Membership {
  const { store, name, leaseMs, clock, log, live } = deps;
  const common = { repo: store.cluster, name, version: VERSION, leaseMs, clock, log };
  if (!store.changes) return { cluster: new SingleNodeCluster({ ...common, countOwned: () => live.size }), shared: null };
  const cluster: LeaseCluster = new LeaseCluster({
    ...common,
    bus: store.changes,
    countOwned: () => {
      let owned = 0;
      for (const id of live.ids()) if (cluster.owns(id)) owned++;
      return owned;
    },
    renewSoon: () => deps.jobs.runNow('cluster-lease'),
  });
  // The database refuses this central's monitoring writes once it no longer holds its lease.
  deps.writer.fenceWith(() => cluster.fence());
  return { cluster, shared: { bus: store.changes, ownership: cluster } };
}
