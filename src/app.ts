import { resolveConfig, type Config, type ConfigInput } from './config.js';
import { AccountsService, type CreatedKey } from './core/accounts-service.js';
import { ChecksService } from './core/checks-service.js';
import { HistoryService } from './core/history-service.js';
import { systemClock, type Clock } from './domain/clock.js';
import { accountRoutes } from './api/account-routes.js';
import { checkRoutes } from './api/checks-routes.js';
import { historyRoutes } from './api/history-routes.js';
import { statusRoutes } from './api/status-routes.js';
import { metaRoutes } from './api/meta-routes.js';
import type { Services } from './api/services.js';
import { Authenticator } from './front/authenticator.js';
import type { HttpRequest, Reply, Route } from './api/http-types.js';
import { Idempotency } from './front/idempotency.js';
import { RequestPipeline } from './front/request-pipeline.js';
import { RateLimiter } from './front/rate-limiter.js';
import { serve, type RunningServer } from './front/uws-server.js';
import { createLogger, type Logger } from './log.js';
import type { AlertEvent } from './domain/events.js';
import { AlertsModule } from './alerts/alerts-module.js';
import { DeliveryLog } from './core/delivery-log.js';
import { DomainMonitor } from './engine/domains/domain-monitor.js';
import { RdapBootstrap } from './engine/domains/rdap-bootstrap.js';
import { RdapClient } from './engine/domains/rdap-client.js';
import { alertsRoutes } from './api/alerts-routes.js';
import { openSqliteStore, type SqliteStore } from './store/sqlite/index.js';
import { BatchWriter } from './store/batch-writer.js';
import { ThreadDispatcher, type ProbeDispatcher } from './engine/dispatcher.js';
import { Engine } from './engine/engine.js';
import { HeartbeatMonitor } from './engine/heartbeats.js';
import { Recorder } from './monitor/recorder.js';
import type { LastProbe } from './monitor/live-check.js';
import { heartbeatRoutes } from './api/heartbeat-routes.js';
import { statsRoutes } from './api/stats-routes.js';
import { RawRetention } from './stats/retention.js';
import { StatsService } from './core/stats-service.js';
import type { RollupStore } from './store/rollup-store.js';
import { Mailer } from './alerts/delivery/mailer.js';
import { oauthRoutes } from './api/oauth-routes.js';
import { mcpRoutes } from './mcp/mcp-routes.js';
import { regionsRoutes } from './api/regions-routes.js';
import type { MailDomainResolver } from './oauth/email-domain.js';
import { buildOAuth } from './oauth/oauth-services.js';
import { hasRawSocketCapability } from './engine/probes/icmp-capability.js';
import { SessionsService } from './core/sessions-service.js';
import { PendingChanges, StatusFeed, type StatusChange } from './core/status-feed.js';
import { CheckTrends } from './stats/check-summaries.js';
import { SeriesReader } from './stats/series.js';
import { LiveFeed } from './api/live-feed.js';
import { checkSummary } from './api/check-summary.js';
import { dashboardRoutes } from './api/dashboard-routes.js';
import { dashboardAssetRoutes } from './front/dashboard-assets.js';
import { StatusPagesService } from './status-pages/status-pages-service.js';
import { PublicPages } from './status-pages/public-pages.js';
import { keyRoutes } from './api/keys-routes.js';
import { statusPageRoutes } from './api/status-page-routes.js';
import { publicStatusRoutes } from './api/public-status-routes.js';
import { operationsRoutes } from './api/operations-routes.js';
import { RenderCache } from './api/render-cache.js';
import { ProcessMetrics } from './metrics/process-metrics.js';
import { MetricsService } from './metrics/metrics-service.js';
import { Readiness } from './metrics/readiness.js';
import { attachNodeSocket } from './front/node-socket.js';
import { NodeHub } from './nodes/hub.js';
import { NodeRegistry } from './nodes/node-registry.js';

export interface AppOptions {
  clock?: Clock;
  logger?: Logger;
  /** Tests substitute probes or drive the wheel by hand. */
  dispatcher?: ProbeDispatcher;
  autoTick?: boolean;
  /** Answers the signup's "can this domain receive mail" lookups (tests); the system resolver otherwise. */
  mailDomainResolver?: MailDomainResolver;
}

/** Told of every status change of any check (the status-page cache purges on it). */

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

/**
 * One Vigil node: store, services, the HTTP front and (later) the engine, wired together.
 * `start` binds the port first, because the public addresses default to the bound port.
 */
export class VigilApp {
  readonly store: SqliteStore;
  readonly clock: Clock;
  readonly log: Logger;
  config!: Config;
  services!: Services;
  engine!: Engine;
  /** Regional prober nodes: assignment, failover, peer re-checks, their results. */
  nodes: NodeHub | null = null;
  /** Email and webhook settings, the delivery queue and sender. */
  alerts!: AlertsModule;
  /** Every observation of a check becomes state, one write and events here. */
  recorder!: Recorder;
  heartbeats!: HeartbeatMonitor;
  /** Domain expiry lookups (RDAP) on the engine's wheel. */
  domains!: DomainMonitor;
  rdapBootstrap!: RdapBootstrap;
  readonly writer: BatchWriter;
  /** Created right after the store: opening it rebuilds rollups a crash left short. */
  readonly rollups: RollupStore;
  readonly mailer: Mailer;
  /** Every check event and edit, for whoever needs to hear of it at once (live dashboards, page caches). */
  readonly statusFeed = new StatusFeed();
  private readonly changes: PendingChanges;
  private live: LiveFeed | null = null;
  private pipeline: RequestPipeline | null = null;
  private idempotency: Idempotency;
  private server: RunningServer | null = null;
  private timers: NodeJS.Timeout[] = [];
  /** Rendered status pages and badges; every status change purges what shows the check. */
  readonly pageCache: RenderCache;
  readonly badgeCache: RenderCache;
  private dispatcher!: ProbeDispatcher;

  constructor(
    private readonly input: ConfigInput,
    private readonly opts: AppOptions = {},
  ) {
    this.clock = opts.clock ?? systemClock;
    this.log = opts.logger ?? createLogger(input.logLevel);
    this.store = openSqliteStore(input.dataDir, {
      checkpointInBackground: true,
      effectFailed: (err) => this.log.error({ err }, 'an effect of a committed change failed'),
    });
    this.idempotency = new Idempotency(this.store.idempotency, this.clock);
    this.writer = new BatchWriter(this.store, this.log);
    this.changes = new PendingChanges(this.statusFeed, () => this.writer.drained());
    this.rollups = this.store.rollups;
    this.mailer = new Mailer(input);
    this.pageCache = new RenderCache(this.clock);
    this.badgeCache = new RenderCache(this.clock);
    // Published once the writer has applied the change, so a re-render reads the new status.
    this.statusFeed.subscribe((change) => {
      // A ping or a slow spell that changed no status changes no page (their figures age out like probes').
      if (change.type !== 'ping' && change.type !== 'degraded') this.purgeRenders(change.checkId);
    });
  }

  private purgeRenders(checkId: string): void {
    this.pageCache.purgeCheck(checkId);
    this.badgeCache.purgeCheck(checkId);
  }

  /** First start of an empty data directory: the admin key, returned once to be printed. */
  bootstrapAdmin(): CreatedKey | null {
    return new AccountsService(this.store, resolveConfig(this.input), this.clock).bootstrapAdmin();
  }

  async start(): Promise<{ url: string; port: number }> {
    this.server = await serve(this.input.server.host, this.input.server.port, (req) => this.handle(req), {
      trustProxy: this.input.server.trustProxy,
      configure: (app) => attachNodeSocket(app, () => (this.pipeline ? this.nodes : null)),
    });
    this.config = resolveConfig(this.input, this.server.port);
    this.recorder = new Recorder({
      writer: this.writer,
      onEvent: (check, event) => this.onEvent(check, event),
      onChange: (check, what) => this.publishChange(check, what),
    });
    const dispatcher = (this.dispatcher = this.opts.dispatcher ?? new ThreadDispatcher({ threads: this.config.probes.threads }));
    let hub: NodeHub | null = null;
    this.engine = new Engine({
      store: this.store,
      recorder: this.recorder,
      dispatcher,
      placement: { probesHere: (region) => hub?.probesHere(region) ?? true },
      peer: { recheck: (task, region) => hub?.recheck(task, region) ?? Promise.resolve(null) },
      clock: this.clock,
      config: this.config,
      log: this.log,
      autoStart: this.opts.autoTick !== false,
    });
    const heartbeats = new HeartbeatMonitor({
      store: this.store, recorder: this.recorder, wheel: this.engine.wheel, clock: this.clock, config: this.config, log: this.log,
    });
    this.heartbeats = heartbeats;
    this.alerts = new AlertsModule({
      store: this.store, writer: this.writer, mailer: this.mailer, clock: this.clock, config: this.config, log: this.log,
    });
    const rdap = this.config.rdap;
    this.rdapBootstrap = new RdapBootstrap({ overrides: rdap.servers, url: rdap.bootstrapUrl, timeoutMs: rdap.timeoutMs, clock: this.clock, log: this.log });
    this.domains = new DomainMonitor({
      store: this.store, watch: this.store.alerts.domainWatch, writer: this.writer, recorder: this.recorder, wheel: this.engine.wheel,
      rdap: new RdapClient(this.rdapBootstrap, rdap.timeoutMs), clock: this.clock, config: this.config, log: this.log,
    });
    this.services = this.buildServices(heartbeats);
    this.services.checks.observe(this.engine);
    hub = new NodeHub({
      store: this.store, writer: this.writer, registry: new NodeRegistry(this.store.nodes, this.config.region, this.clock), engine: this.engine,
      dispatcher, config: this.config, clock: this.clock, log: this.log,
    });
    this.nodes = hub;
    this.services.checks.observe(hub);
    this.services.checks.observe(heartbeats);
    this.services.checks.observe(this.domains);
    this.services.checks.observe({
      checkSaved: (check) => this.publishChange(check, 'saved'),
      checkEdited: (check) => this.publishChange(check, 'saved'),
      checkDeleted: (check) => {
        this.services.trends.forget(check.seq);
        this.publishChange(check, 'deleted', check.folder);
      },
    });
    this.services.statusPages.onChange((...pages) => {
      for (const page of pages) {
        if (!page) continue;
        this.pageCache.purgeSlug(page.slug);
        for (const id of page.checkIds) this.purgeRenders(id);
      }
    });
    hub.start();
    this.engine.start();
    heartbeats.start();
    this.alerts.start();
    this.domains.start();
    this.pipeline = this.buildPipeline();
    this.every(HOUR, () => this.idempotency.prune());
    // Checks the CLI created or changed on this data directory start probing within a second.
    this.every(1_000, () => this.services.checks.catchUp());
    this.every(60_000, () => void this.rollups.flushOpen(this.clock.now()).catch((err: unknown) => this.log.error({ err }, 'rollup build failed')));
    const retention = new RawRetention(this.store.retention, this.clock, { rawDays: this.config.retention.rawDays });
    this.every(HOUR, () => void retention.prune().catch((err: unknown) => this.log.error({ err }, 'retention failed')));
    // Daily, and once now: a node restarted more often than daily would otherwise never run it.
    this.every(DAY, () => this.services.oauth.lifecycle.run());
    this.services.oauth.lifecycle.run();
    if (!hasRawSocketCapability()) {
      this.log.warn('ping checks will fail: ICMP needs raw sockets, and this process lacks CAP_NET_RAW (contrib/vigil.service grants it; or run setcap cap_net_raw+ep on the executable)');
    }
    this.every(HOUR, () => this.services.sessions.pruneExpired());
    const url = `http://${this.input.server.host}:${this.server.port}`;
    return { url, port: this.server.port };
  }

  handle(req: HttpRequest): Reply | Promise<Reply> {
    if (!this.pipeline) return { status: 503, body: { error: { code: 503, message: 'Starting up' } } };
    return this.pipeline.handle(req);
  }

  /** Graceful stop: no new connections, in-flight requests answered, then the database closed. */
  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.live?.close();
    await this.server?.close();
    this.server = null;
    this.nodes?.stop();
    // The engine first: probes still in flight finish and their events reach a running alert
    // pipeline, which then drains into its queue before the writers and the store close.
    await this.engine?.stop();
    this.domains?.stop();
    await this.alerts?.stop();
    this.writer.close();
    this.mailer.close();
    this.store.close();
  }

  private onEvent(check: { id: string; accountId: string }, event: AlertEvent): void {
    this.log.info({ checkId: check.id, event: event.type, status: event.status }, 'check event');
    this.alerts.handle(check, event);
    this.publishChange(check, event.type);
  }

  /**
   * Published once the writer has applied what the change wrote (the group commit queued in the
   * same turn runs first), so a subscriber reading the check sees the new record.
   */
  private publishChange(check: { id: string; accountId: string }, type: string, folder?: string | null): void {
    const change: StatusChange = { checkId: check.id, accountId: check.accountId, type, at: this.clock.now() };
    if (folder !== undefined) change.folder = folder;
    this.changes.add(change);
  }

  private buildServices(heartbeats: HeartbeatMonitor): Services {
    const { store, config, clock, engine } = this;
    const checks = new ChecksService(store, config, clock);
    const stats = new StatsService({ stateChanges: store.stateChanges, rollups: this.rollups }, checks, clock);
    const { statusPages: pages, operations: ops } = store;
    const lastProbe = (checkId: string): LastProbe | null => engine.lastProbe(checkId) ?? heartbeats.lastProbe(checkId) ?? this.domains.lastProbe(checkId);
    const processMetrics = new ProcessMetrics({
      wheelLag: engine.metrics.lag,
      probesFired: () => engine.metrics.fired,
      probesInFlight: () => engine.inFlight,
      probeQueueDepth: () => this.dispatcher.queued,
      writerQueueLength: () => this.writer.pending,
      pendingDeliveries: () => ops.pendingDeliveries(),
    });
    this.writer.afterEachBatch((writes) => processMetrics.batchCommitted(writes));
    return {
      statusPages: new StatusPagesService(store, pages, config, clock),
      publicPages: new PublicPages({ store, pages, rollups: this.rollups, stats, clock, lastProbe }),
      metrics: new MetricsService(checks, stats, processMetrics),
      readiness: new Readiness({ ops, lastTickAt: () => engine.metrics.lastTickAt, clock }),
      config,
      clock,
      checks,
      history: new HistoryService(store, checks),
      stats,
      heartbeats,
      accounts: new AccountsService(store, config, clock),
      alertSummary: (accountId) => this.alerts.summary(accountId),
      emailAlerts: this.alerts.email,
      webhooks: this.alerts.webhooks,
      deliveries: new DeliveryLog({
        queue: this.alerts.repos.deliveries, webhooks: this.alerts.repos.webhooks, store, sender: this.alerts.sender, clock, log: this.log,
      }),
      usage: (accountId) => ({ checks: store.checks.countForAccount(accountId) }),
      regions: () => this.nodes?.regions() ?? [],
      sessions: new SessionsService(store, clock, config),
      trends: new CheckTrends(this.rollups),
      series: new SeriesReader(this.rollups, store.stateChanges, store.history),
      lastProbe,
      oauth: buildOAuth({
        store, repo: store.oauth, checks, mailer: this.mailer,
        config, clock, log: this.log, mailDomainResolver: this.opts.mailDomainResolver,
      }),
    };
  }

  private buildPipeline(): RequestPipeline {
    const routes: Route[] = [];
    const { checks, trends } = this.services;
    const live = new LiveFeed(
      (id) => checks.find(id),
      (check) => checkSummary(check, trends, this.config, this.clock.now(), this.services.lastProbe(check.id)),
    );
    this.live = live;
    this.statusFeed.subscribe((change) => live.publish(change));
    let auth: Authenticator | null = null;
    routes.push(
      ...dashboardRoutes(this.services, live, (headers) => auth!.authenticate(headers)),
      ...dashboardAssetRoutes(),
      ...statusRoutes(this.services),
      ...checkRoutes(this.services),
      ...historyRoutes(this.services),
      ...statsRoutes(this.services),
      ...heartbeatRoutes(this.services),
      ...accountRoutes(this.services),
      ...alertsRoutes(this.services),
      ...regionsRoutes(this.services),
      ...oauthRoutes(this.services),
      ...statusPageRoutes(this.services),
      ...keyRoutes(this.services),
      ...publicStatusRoutes(this.services, { pages: this.pageCache, badges: this.badgeCache }),
      ...operationsRoutes(this.services),
      ...metaRoutes(() => routes, this.config.publicUrl),
      ...mcpRoutes({ routes: () => routes, dispatch: async (req) => this.handle(req), publicUrl: this.config.publicUrl }),
    );
    const challenge = `Bearer realm="vigil", resource_metadata="${this.config.publicUrl}/.well-known/oauth-protected-resource"`;
    auth = new Authenticator(this.store, this.clock, challenge);
    auth.addBearerResolver(this.services.oauth.bearer);
    auth.setSessionResolver(this.services.sessions, this.config.publicUrl);
    return new RequestPipeline({
      routes,
      auth,
      rateLimiter: new RateLimiter(this.clock),
      idempotency: this.idempotency,
      store: this.store,
      config: this.config,
      clock: this.clock,
      log: this.log,
    });
  }

  private every(ms: number, job: () => unknown): void {
    const timer = setInterval(() => {
      try {
        job();
      } catch (err) {
        this.log.error({ err }, 'periodic job failed');
      }
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }
}
