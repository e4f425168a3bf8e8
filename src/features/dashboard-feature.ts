import type { FeatureModule } from './feature.js';
import { checkSummary } from '../api/check-summary.js';
import { dashboardRoutes } from '../api/dashboard-routes.js';
import { LiveFeed } from '../api/live-feed.js';
import { dashboardAssetRoutes } from '../front/dashboard-assets.js';

declare module './feature.js' {
  interface Provided {
    /** The dashboard's server-sent events. */
    live: LiveFeed;
  }
}

/** The dashboard: its pages and assets, its session routes and the live feed of the check list. */
export const dashboardFeature: FeatureModule = {
  name: 'dashboard',
  build({ config, clock, statusFeed }, parts) {
    const monitoring = parts.need('monitoring');
    const auth = parts.need('auth');
    const { checks, trends, lastProbe } = monitoring;
    const live = new LiveFeed(statusFeed, (id) => checks.find(id), (check) => checkSummary(check, trends, config, clock.now(), lastProbe(check.id)));
    parts.give('live', live);
    return {
      routes: [...dashboardRoutes(monitoring, parts.need('people').sessions, parts.need('people').passwordSignIn, live, (headers) => auth.authenticate(headers)), ...dashboardAssetRoutes()],
      // Open event streams would hold the port's graceful close.
      leave: () => live.close(),
    };
  },
};
