import type { FeatureModule } from './feature.js';
import type { PageServices } from '../api/services.js';
import { incidentRoutes } from '../api/incident-routes.js';
import { publicStatusRoutes } from '../api/public-status-routes.js';
import { PublicRenders } from '../api/render-cache.js';
import { statusPageRoutes } from '../api/status-page-routes.js';
import { subscriptionRoutes } from '../api/subscription-routes.js';
import { IncidentsService } from '../status-pages/incidents-service.js';
import { PublicPages } from '../status-pages/public-pages.js';
import { StatusPagesService } from '../status-pages/status-pages-service.js';
import { SubscriptionsService } from '../status-pages/subscriptions-service.js';

declare module './feature.js' {
  interface Provided {
    pages: PageServices;
    /** Rendered status pages and badges; every status change purges what shows the check. */
    renders: PublicRenders;
  }
}

/** Status pages: the pages of an account, their incidents and subscribers, and what anyone may read of them. */
export const statusPagesFeature: FeatureModule = {
  name: 'status-pages',
  build({ store, config, clock, log, statusFeed, liveChecks: live }, parts) {
    const { rollups } = store;
    const alerts = parts.need('alerts');
    const windows = parts.need('windows');
    const { stats } = parts.need('monitoring');
    const statusPages = new StatusPagesService(store, store.statusPages, config, clock);
    const incidents = new IncidentsService({
      store, incidents: store.incidents, pages: store.statusPages, statusPages, clock, feed: statusFeed,
      onError: (err) => log.error({ err }, 'automatic incident not recorded'),
    });
    const subscriptions = new SubscriptionsService({
      store, subscribers: store.subscribers, pages: store.statusPages, statusPages, incidents, notices: alerts, verifier: alerts.subscriberVerifier,
      windows: parts.need('checks'), config, clock,
      onError: (err) => log.error({ err }, 'status page notice not queued'),
    });
    const pages: PageServices = {
      config,
      clock,
      statusPages,
      incidents,
      subscriptions,
      publicPages: new PublicPages({
        store, pages: store.statusPages, rollups, stats, clock, lastProbe: (checkId) => live.lastProbe(checkId), windows: (accountId) => windows.windowsOf(accountId),
      }),
    };
    const renders = new PublicRenders(clock, statusFeed, pages);
    parts.give('pages', pages);
    parts.give('renders', renders);
    return {
      routes: [...statusPageRoutes(pages), ...incidentRoutes(pages), ...subscriptionRoutes(pages), ...publicStatusRoutes(pages, renders)],
      jobs: subscriptions.jobs(),
    };
  },
};
