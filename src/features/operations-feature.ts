import { Registry } from 'prom-client';
import type { FeatureModule } from './feature.js';
import type { OperationServices } from '../api/services.js';
import { operationsRoutes } from '../api/operations-routes.js';
import { MetricsService } from '../metrics/metrics-service.js';
import { jobMetrics, nodeMetrics, writerMetrics } from '../metrics/process-metrics.js';
import { Readiness } from '../metrics/readiness.js';

declare module './feature.js' {
  interface Provided {
    operations: OperationServices;
  }
}

/**
 * `/metrics` and `/readyz`. Every feature registers its own series in the process registry;
 * this one adds Node's, the writer's and the periodic jobs'.
 */
export const operationsFeature: FeatureModule = {
  name: 'operations',
  build({ store, config, clock, writer, jobs, liveChecks: live, metrics, membership: { shared } }, parts) {
    const { checks, stats } = parts.need('monitoring');
    const engine = parts.need('engine');
    const operations: OperationServices = {
      config,
      clock,
      metrics: new MetricsService(checks, stats, metrics, (checkId) => live.get(checkId) ?? null),
      readiness: new Readiness({
        ops: store.operations, lastTickAt: () => engine.metrics.lastTickAt, clock, holding: shared ? () => shared.ownership.holding() : undefined,
      }),
    };
    parts.give('operations', operations);
    return {
      routes: operationsRoutes(operations),
      // PostgreSQL's own upkeep (other processes' changes, partitions ahead); none on SQLite.
      jobs: store.jobs?.() ?? [],
      metrics(registry: Registry) {
        nodeMetrics(registry);
        writerMetrics(registry, writer);
        jobMetrics(registry, () => jobs.readings());
      },
    };
  },
};
