import type { ClusterRepo } from '../store/cluster-repo.js';

/** One central as `vigil instances` prints it. */
export interface InstanceView {
  name: string;
  startedAt: string;
  lastSeenAt: string;
  /** Its lease runs: it renewed within `cluster.leaseMs` and has not stopped. */
  live: boolean;
  /** Checks it owned at its last renewal (0 once stopped). */
  checks: number;
  version: string;
}

/** Every central recorded on the store, live ones first, then by name. */
export async function listInstances(repo: Pick<ClusterRepo, 'all'>, now: number): Promise<InstanceView[]> {
  const rows = await repo.all();
  return rows
    .map((r) => ({
      name: r.name,
      startedAt: new Date(r.startedAt).toISOString(),
      lastSeenAt: new Date(r.lastSeenAt).toISOString(),
      live: r.leaseUntil > now,
      checks: r.leaseUntil > now ? r.checks : 0,
      version: r.version,
    }))
    .sort((a, b) => Number(b.live) - Number(a.live) || a.name.localeCompare(b.name));
}
