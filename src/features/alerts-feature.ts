import type { FeatureModule } from './feature.js';
import type { AlertServices } from '../api/services.js';
import { alertsRoutes } from '../api/alerts-routes.js';
import { relayVerdicts } from '../cluster/verdict-relay.js';
import { DeliveryLog } from '../core/delivery-log.js';
import { deliveryMetrics } from '../metrics/process-metrics.js';
import { AlertsModule } from '../alerts/alerts-module.js';

declare module './feature.js' {
  interface Provided {
    /** Email and webhook settings, the delivery queue and sender. */
    alerts: AlertsModule;
    alertServices: AlertServices;
  }
}

/** A verdict asked of another central travels the bus both ways. */
const RELAY_SLACK_MS = 2_000;

/** Alerts: routing each check event to email and webhooks, the delivery queue, reminders. */
export const alertsFeature: FeatureModule = {
  name: 'alerts',
  build({ store, writer, mailer, config, clock, log, liveChecks: live, statusFeed, membership: { cluster, shared } }, parts) {
    const engine = parts.need('engine');
    // A dependant about to alert has its parents probed at once, here or by the central that owns them.
    const askOwner = shared
      ? relayVerdicts(shared.bus, cluster.name, (id) => (cluster.owns(id) ? engine.probeNow(id) ?? Promise.resolve(null) : null))
      : undefined;
    const verdictNow = (id: string) => engine.probeNow(id) ?? askOwner?.(id, engine.verdictLimitMs(id) + RELAY_SLACK_MS) ?? Promise.resolve(null);
    const alerts = new AlertsModule({
      store, writer, mailer, events: parts.need('recorder'), clock, config, log, live, shared: shared?.ownership, outbound: parts.need('outbound'), verdictNow,
    });
    const services: AlertServices = {
      config,
      clock,
      emailAlerts: alerts.email,
      webhooks: alerts.webhooks,
      deliveries: new DeliveryLog({ queue: alerts.repos.deliveries, webhooks: alerts.repos.webhooks, store, sender: alerts.sender, clock, log }),
    };
    parts.give('alerts', alerts);
    parts.give('alertServices', services);
    return {
      routes: alertsRoutes(services),
      jobs: alerts.jobs(),
      metrics: (registry) => deliveryMetrics(registry, () => store.operations.pendingDeliveries()),
      start() {
        alerts.start();
        if (!shared) return;
        // A parent another central owns came back up: alerts held here for its dependants go out.
        statusFeed.subscribe((change) => {
          if (change.type === 'website_up' && !cluster.owns(change.checkId)) {
            alerts.pipeline.parentRecovered(change.checkId).catch((err: unknown) => log.error({ err, checkId: change.checkId }, 'held alerts not released'));
          }
        });
      },
      stop: () => alerts.stop(),
    };
  },
};
