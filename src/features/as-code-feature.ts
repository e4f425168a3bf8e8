import type { FeatureModule } from './feature.js';
import type { AsCodeServices } from '../api/services.js';
import { configRoutes } from '../api/config-routes.js';
import { MonitoringAsCode } from '../as-code/monitoring-as-code.js';

declare module './feature.js' {
  interface Provided {
    asCode: AsCodeServices;
  }
}

/** Monitoring as code: the account's monitoring as one file, exported, planned and applied. */
export const asCodeFeature: FeatureModule = {
  name: 'as-code',
  build({ store, config, clock }, parts) {
    const alerts = parts.need('alerts');
    const services: AsCodeServices = {
      config,
      clock,
      asCode: new MonitoringAsCode({
        store, checks: parts.need('checks'), webhooks: alerts.webhooks, email: alerts.email, statusPages: parts.need('pages').statusPages,
        maintenanceWindows: parts.need('monitoring').maintenanceWindows, config,
      }),
    };
    parts.give('asCode', services);
    return { routes: configRoutes(services) };
  },
};
