import type { FeatureModule } from './feature.js';
import type { MonitoringServices } from '../api/services.js';
import { checkRoutes } from '../api/checks-routes.js';
import { heartbeatRoutes } from '../api/heartbeat-routes.js';
import { historyRoutes } from '../api/history-routes.js';
import { maintenanceWindowRoutes } from '../api/maintenance-windows-routes.js';
import { regionsRoutes } from '../api/regions-routes.js';
import { statsRoutes } from '../api/stats-routes.js';
import { statusRoutes } from '../api/status-routes.js';
import { CheckTrends } from '../stats/check-summaries.js';
import { RawRetention } from '../stats/retention.js';
import { SeriesReader } from '../stats/series.js';
import { HistoryService } from '../core/history-service.js';
import { MaintenanceWindowsService } from '../core/maintenance-windows-service.js';
import { StatsService } from '../core/stats-service.js';
import { StatusPublisher } from '../core/status-feed.js';
import { WindowScheduler } from '../core/window-scheduler.js';

declare module './feature.js' {
  interface Provided {
    monitoring: MonitoringServices;
    /** Puts checks in and out of maintenance as scheduled windows start and end. */
    windows: WindowScheduler;
  }
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Monitoring as the API shows it: checks, their history, statistics, heartbeat pings, regions
 * and maintenance windows; the status feed's publisher; rollups and raw-history retention.
 */
export const monitoringFeature: FeatureModule = {
  name: 'monitoring',
  build({ store, config, clock, log, writer, statusFeed, liveChecks: live }, parts) {
    const { rollups } = store;
    const checks = parts.need('checks');
    new StatusPublisher({ feed: statusFeed, applied: () => writer.applied(), recorder: parts.need('recorder'), checks, clock });
    const windows = new WindowScheduler({ store, checks, clock, log });
    checks.observe(windows);
    const maintenanceWindows = new MaintenanceWindowsService(store, clock);
    maintenanceWindows.onChange(() => windows.poke());
    const assignment = parts.need('assignment');
    const monitoring: MonitoringServices = {
      config,
      clock,
      checks,
      history: new HistoryService(store, checks),
      stats: new StatsService({ stateChanges: store.stateChanges, rollups }, checks, clock),
      pings: parts.need('heartbeats'),
      lastProbe: (checkId) => live.lastProbe(checkId),
      regions: () => assignment.regions(),
      trends: new CheckTrends(rollups, checks),
      series: new SeriesReader(rollups, store.stateChanges, store.history),
      maintenanceWindows,
    };
    parts.give('monitoring', monitoring);
    parts.give('windows', windows);
    const retention = new RawRetention(store.retention, clock, { rawDays: config.retention.rawDays });
    return {
      routes: [
        ...statusRoutes(monitoring),
        ...checkRoutes(monitoring),
        ...maintenanceWindowRoutes(monitoring),
        ...historyRoutes(monitoring),
        ...statsRoutes(monitoring),
        ...heartbeatRoutes(monitoring),
        ...regionsRoutes(monitoring),
      ],
      jobs: [
        { name: 'rollup-build', scope: 'check-owner', everyMs: MINUTE, run: () => rollups.flushOpen(clock.now()) },
        { name: 'raw-retention', scope: 'one-central', everyMs: HOUR, jitterMs: MINUTE, run: () => retention.prune() },
        // Windows start and end on their own timer; this also catches windows and checks another process wrote.
        { name: 'maintenance-windows', scope: 'one-central', everyMs: MINUTE, atStart: true, run: () => windows.reconcile() },
      ],
      stop: () => windows.stop(),
    };
  },
};
