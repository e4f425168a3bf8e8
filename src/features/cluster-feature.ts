import type { FeatureModule } from './feature.js';
import type { ScopedJob } from '../util/job-runner.js';
import { clusterMetrics } from '../metrics/process-metrics.js';
import { announceInbox, inboxJob } from '../cluster/inbox.js';
import { RateShare } from '../cluster/rate-share.js';
import { relayChanges } from '../cluster/relay.js';
import { takeOver } from '../cluster/takeover.js';
import type { Cluster } from '../cluster/cluster.js';

declare module './feature.js' {
  interface Provided {
    /** This central among the others on the store (a single server owns every check). */
    cluster: Cluster;
  }
}

/**
 * This central among the others on one store: its lease, the checks it takes over, the check
 * edits and status changes relayed between centrals, the inbox of pings and node results for
 * the checks it owns, and one request budget per key across them all. On a single server, only
 * the lease job (it records itself for `vigil instances`) and the metrics.
 */
export const clusterFeature: FeatureModule = {
  name: 'cluster',
  build({ store, writer, log, statusFeed, rateLimiter, jobs, liveChecks: live, membership: { cluster, shared } }, parts) {
    const checks = parts.need('checks');
    const heartbeats = parts.need('heartbeats');
    const intake = parts.need('intake');
    parts.give('cluster', cluster);
    cluster.onGained((owns) => {
      takeOver({ live, checks: store.checks, announce: (check) => checks.announce(check), heartbeats, log }, owns).catch(
        (err: unknown) => log.error({ err }, 'taking checks over failed'),
      );
    });
    const own: ScopedJob[] = [cluster.job()];
    if (shared) {
      const share = new RateShare({ bus: shared.bus, name: cluster.name, changed: () => rateLimiter.changed() });
      rateLimiter.shareWith(share);
      own.push(share.job(), inboxJob({
        inbox: store.pingInbox, held: () => cluster.heldSlots(), pings: (pings) => heartbeats.applyForwarded(pings), results: (results) => intake.forwarded(results),
      }));
    }
    return {
      jobs: own,
      metrics: (registry) => clusterMetrics(registry, () => cluster.reading()),
      start() {
        if (!shared) return;
        relayChanges({ bus: shared.bus, name: cluster.name, checks, repo: store.checks, feed: statusFeed, log });
        announceInbox(writer, shared.bus, cluster.name);
        // Another central put something in the inbox for this one: it is recorded at once.
        shared.bus.subscribe('inbox', (from) => {
          if (from !== cluster.name) jobs.runNow('inbox');
        });
      },
      // First: the other centrals take this one's checks over while it shuts down.
      leave: () => cluster.stop().catch((err: unknown) => log.error({ err }, 'leaving the cluster failed')),
    };
  },
};
