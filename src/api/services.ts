import type { Config } from '../config.js';
import type { AccountsService } from '../core/accounts-service.js';
import type { ChecksService } from '../core/checks-service.js';
import type { Clock } from '../domain/clock.js';
import type { HistoryService } from '../core/history-service.js';
import type { Pings } from '../engine/heartbeats.js';
import type { StatsService } from '../core/stats-service.js';
import type { AlertSummary } from '../alerts/alerts-module.js';
import type { EmailAlertsService } from '../alerts/email-settings-service.js';
import type { WebhookService } from '../alerts/webhook-service.js';
import type { DeliveryLog } from '../core/delivery-log.js';
import type { OAuthServices } from '../oauth/oauth-services.js';
import type { People } from '../people/people.js';
import type { CheckTrends } from '../stats/check-summaries.js';
import type { SeriesReader } from '../stats/series.js';
import type { StatusPagesService } from '../status-pages/status-pages-service.js';
import type { PublicPages } from '../status-pages/public-pages.js';
import type { IncidentsService } from '../status-pages/incidents-service.js';
import type { SubscriptionsService } from '../status-pages/subscriptions-service.js';
import type { MetricsService } from '../metrics/metrics-service.js';
import type { Readiness } from '../metrics/readiness.js';
import type { RegionView } from '../nodes/assignment.js';
import type { MonitoringAsCode } from '../as-code/monitoring-as-code.js';
import type { LastProbe } from '../monitor/live-check.js';
import type { MaintenanceWindowsService } from '../core/maintenance-windows-service.js';

/** What every group carries: the resolved configuration (public URLs, limits) and the clock. */
interface Shared {
  config: Config;
  clock: Clock;
}

/** Checks and what is observed of them: history, statistics, heartbeat pings, regions. */
export interface MonitoringServices extends Shared {
  checks: ChecksService;
  history: HistoryService;
  stats: StatsService;
  /** Heartbeat pings (the ping route): the heartbeat monitor records them. */
  pings: Pings;
  /** The check's latest result, live from memory (the record's `lastProbe`). */
  lastProbe(checkId: string): LastProbe | null;
  /** Regions a check can be pinned to, with their prober nodes. */
  regions(): Promise<RegionView[]>;
  /** 24 h uptime and sparklines of the dashboard list. */
  trends: CheckTrends;
  /** Chart series and incidents of the check page. */
  series: SeriesReader;
  /** Scheduled maintenance windows (issue 27). */
  maintenanceWindows: MaintenanceWindowsService;
}

/** Accounts, their keys, agent sign-up (OAuth), and what an account shows of itself. */
export interface AccountServices extends Shared {
  accounts: AccountsService;
  /** Agent signup, tokens, claims and the unclaimed-account lifecycle. */
  oauth: OAuthServices;
  alertSummary(accountId: string): Promise<AlertSummary>;
}

/** Alert settings and deliveries. */
export interface AlertServices extends Shared {
  /** Email alert settings and the test send (spec 4.8). */
  emailAlerts: EmailAlertsService;
  /** Webhooks and their test (spec 4.9). */
  webhooks: WebhookService;
  deliveries: DeliveryLog;
}

/** Status pages of an account (the API) and what anyone may read of them (pages, badges). */
export interface PageServices extends Shared {
  statusPages: StatusPagesService;
  /** Incidents of the pages and their timelines (issue 29). */
  incidents: IncidentsService;
  /** Who follows the pages, and the notices they are sent (issue 29). */
  subscriptions: SubscriptionsService;
  publicPages: PublicPages;
}

/** Monitoring as code: the account's monitoring as one file, exported, planned and applied (issue 30). */
export interface AsCodeServices extends Shared {
  asCode: MonitoringAsCode;
}

/** `/metrics` and `/readyz`. */
export interface OperationServices extends Shared {
  metrics: MetricsService;
  readiness: Readiness;
}

/** What route handlers reach, by domain: services only, never the store or the engine (STYLE: one service layer). */
export interface Services {
  monitoring: MonitoringServices;
  accounts: AccountServices;
  /** Members and roles, their sessions and sign-in ways, and the audit log (issue 28). */
  people: People;
  alerts: AlertServices;
  pages: PageServices;
  asCode: AsCodeServices;
  operations: OperationServices;
}
