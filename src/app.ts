import { instanceName, resolveConfig, type Config, type ConfigInput } from './config.js';
import { AccountsService, type CreatedKey } from './core/accounts-service.js';
import { ChecksService } from './core/checks-service.js';
import { HistoryService } from './core/history-service.js';
import { systemClock, type Clock } from './domain/clock.js';
import { accountRoutes } from './api/account-routes.js';
import { checkRoutes } from './api/checks-routes.js';
import { historyRoutes } from './api/history-routes.js';
import { statusRoutes } from './api/status-routes.js';
import { metaRoutes } from './api/meta-routes.js';
import type { PageServices, Services } from './api/services.js';
import type { LastProbe } from './monitor/live-check.js';
import { Authenticator } from './front/authenticator.js';
import type { HttpRequest, Reply, Route } from './api/http-types.js';
import { Idempotency } from './front/idempotency.js';
import { RequestPipeline } from './front/request-pipeline.js';
import { RateLimiter } from './front/rate-limiter.js';
import { serve, type RunningServer } from './front/uws-server.js';
import { createLogger, type Logger } from './log.js';
import { AlertsModule } from './alerts/alerts-module.js';
import { DeliveryLog } from './core/delivery-log.js';
import { DomainMonitor } from './engine/domains/domain-monitor.js';
import { RdapBootstrap } from './engine/domains/rdap-bootstrap.js';
import { RdapClient } from './engine/domains/rdap-client.js';
import { alertsRoutes } from './api/alerts-routes.js';
import { openSqliteStore, type SqliteStore } from './store/sqlite/index.js';
import { openPgStore } from './store/postgres/index.js';
import type { Store } from './store/store.js';
import { BatchWriter } from './store/batch-writer.js';
import { ThreadDispatcher, type ProbeDispatcher } from './engine/dispatcher.js';
import { OutboundRules } from './store/outbound-rules.js';
import { Engine, type HandOver } from './engine/engine.js';
import { HeartbeatMonitor } from './engine/heartbeats.js';
import { Recorder } from './monitor/recorder.js';
import { LiveChecks } from './monitor/live-checks.js';
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
import { StatusFeed, StatusPublisher } from './core/status-feed.js';
import { CheckTrends } from './stats/check-summaries.js';
import { SeriesReader } from './stats/series.js';
import { LiveFeed } from './api/live-feed.js';
import { checkSummary } from './api/check-summary.js';
import { dashboardRoutes } from './api/dashboard-routes.js';
import { signInRoutes } from './api/sign-in-routes.js';
import { identityRoutes } from './api/identity-routes.js';
import { dashboardAssetRoutes } from './front/dashboard-assets.js';
import { MonitoringAsCode } from './as-code/monitoring-as-code.js';
import { configRoutes } from './api/config-routes.js';
import { StatusPagesService } from './status-pages/status-pages-service.js';
import { PublicPages } from './status-pages/public-pages.js';
import { IncidentsService } from './status-pages/incidents-service.js';
import { incidentRoutes } from './api/incident-routes.js';
import { subscriptionRoutes } from './api/subscription-routes.js';
import { SubscriptionsService } from './status-pages/subscriptions-service.js';
import { keyRoutes } from './api/keys-routes.js';
import { statusPageRoutes } from './api/status-page-routes.js';
import { publicStatusRoutes } from './api/public-status-routes.js';
import { operationsRoutes } from './api/operations-routes.js';
import { PublicRenders, type RenderCache } from './api/render-cache.js';
import { ProcessMetrics } from './metrics/process-metrics.js';
import { MetricsService } from './metrics/metrics-service.js';
import { Readiness } from './metrics/readiness.js';
import { attachNodeSocket } from './front/node-socket.js';
import { NodeHub } from './nodes/hub.js';
import { NodeRegistry } from './nodes/node-registry.js';
import { NodeSessions } from './nodes/node-sessions.js';
import { Assignment } from './nodes/assignment.js';
import { PeerRechecks } from './nodes/peer-rechecks.js';
import { ResultIntake } from './nodes/result-intake.js';
import { nodeSweeps, seenBefore } from './nodes/node-sweeps.js';
import { JobRunner } from './util/job-runner.js';
import { SingleNodeCluster, type Cluster } from './cluster/cluster.js';
import { takeOver } from './cluster/takeover.js';
import { relayChanges, relayRunNow } from './cluster/relay.js';
import { relayPeerRechecks } from './cluster/peer-relay.js';
import { relayVerdicts } from './cluster/verdict-relay.js';
import { announceInbox, inboxJob } from './cluster/inbox.js';
import { slotOf } from './domain/leases.js';
import { RateShare } from './cluster/rate-share.js';
import { LeaseCluster } from './cluster/lease-cluster.js';
import { VERSION } from './version.js';
import type { NewInboxPing } from './store/ping-inbox.js';
import { MaintenanceWindowsService } from './core/maintenance-windows-service.js';
import { WindowScheduler } from './core/window-scheduler.js';
import { maintenanceWindowRoutes } from './api/maintenance-windows-routes.js';
import { AuditLog } from './core/audit-log.js';
import { PasswordHasher } from './people/password-hasher.js';
import { People } from './people/people.js';
import { peopleRoutes } from './api/people-routes.js';

export interface AppOptions<S extends Store = SqliteStore> {
  clock?: Clock;
  logger?: Logger;
  /** Tests substitute probes or drive the wheel by hand. */
  dispatcher?: ProbeDispatcher;
  autoTick?: boolean;
  /** Answers the signup's "can this domain receive mail" lookups (tests); the system resolver otherwise. */
  mailDomainResolver?: MailDomainResolver;
  /**
   * An open store instead of the data directory's: the PostgreSQL store (`VigilApp.open` with
   * store.url), or tests' (several centrals in one process over one store that carries a change
   * bus). Closing the app closes it.
   */
  store?: S;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** A verdict asked of another central travels the bus both ways. */
const RELAY_SLACK_MS = 2_000;

/** What exists once the port is bound (the public addresses default to it). */
interface Running {
  config: Config;
  recorder: Recorder;
  engine: Engine;
  heartbeats: HeartbeatMonitor;
  domains: DomainMonitor;
  alerts: AlertsModule;
  nodes: NodeHub;
  cluster: Cluster;
  services: Services;
  renders: PublicRenders;
  live: LiveFeed;
  pipeline: RequestPipeline;
  windows: WindowScheduler;
}

/** What exists from construction: the store and what only needs it. */
interface Base {
  input: ConfigInput;
  opts: AppOptions<Store>;
  store: Store;
  clock: Clock;
  log: Logger;
  writer: BatchWriter;
  rollups: RollupStore;
  mailer: Mailer;
  statusFeed: StatusFeed;
  jobs: JobRunner;
  liveChecks: LiveChecks;
  idempotency: Idempotency;
  /** The thread that hashes passwords (away from libuv's pool, where probes resolve names). */
  hasher: PasswordHasher;
}

/**
 * One Vigil node: store, services, the HTTP front and the engine, wired together, and nothing
 * else: each module subscribes itself to what it reacts to. `start` binds the port first,
 * because the public addresses default to the bound port.
 */
export class VigilApp<S extends Store = SqliteStore> {
  readonly store: S;
  readonly clock: Clock;
  readonly log: Logger;
  readonly writer: BatchWriter;
  /** Created right after the store: opening it rebuilds rollups a crash left short. */
  readonly rollups: RollupStore;
  readonly mailer: Mailer;
  /** Every check event and edit, for whoever needs to hear of it at once (live dashboards, page caches). */
  readonly statusFeed = new StatusFeed();
  /** Every periodic job, by name (their last runs are in /metrics). */
  readonly jobs: JobRunner;
  /** Every watched check's live state, one entry per check (engine, heartbeats, domains). */
  readonly liveChecks = new LiveChecks();
  private readonly base: Base;
  private server: RunningServer | null = null;
  private running: Running | null = null;

  /**
   * The app on the store its config names: PostgreSQL with store.url (a central among any
   * others on that database), else the SQLite database in dataDir.
   */
  static async open(input: ConfigInput, opts: AppOptions<Store> = {}): Promise<VigilApp<Store>> {
    if (opts.store || input.store.url === null) return new VigilApp<Store>(input, opts);
    const log = opts.logger ?? createLogger(input.logLevel);
    const store = await openPgStore(input.store.url, {
      watchChecks: true,
      changes: 'listen',
      effectFailed: (err) => log.error({ err }, 'an effect of a committed change, or the store\'s listening connection, failed'),
    });
    return new VigilApp<Store>(input, { ...opts, logger: log, store });
  }

  constructor(input: ConfigInput, opts: AppOptions<S> = {}) {
    this.clock = opts.clock ?? systemClock;
    this.log = opts.logger ?? createLogger(input.logLevel);
    if (!opts.store && input.store.url !== null) throw new Error('a PostgreSQL store (store.url) is opened by VigilApp.open');
    this.store = opts.store ?? (openSqliteStore(input.dataDir, {
      checkpointInBackground: true,
      effectFailed: (err) => this.log.error({ err }, 'an effect of a committed change failed'),
    }) as Store as S);
    // A store that commits in parallel (PostgreSQL) takes several batches in flight.
    const parallel = (this.store as { parallelBatches?: number }).parallelBatches ?? 1;
    this.writer = new BatchWriter(this.store, this.log, undefined, undefined, parallel);
    this.rollups = this.store.rollups;
    this.mailer = new Mailer(input);
    this.jobs = new JobRunner({ clock: this.clock, log: this.log });
    this.base = {
      input, opts, store: this.store, clock: this.clock, log: this.log, writer: this.writer, rollups: this.rollups, mailer: this.mailer,
      statusFeed: this.statusFeed, jobs: this.jobs, liveChecks: this.liveChecks, idempotency: new Idempotency(this.store.idempotency, this.clock),
      hasher: new PasswordHasher(input.auth.passwordHashing),
    };
  }

  /** First start of an empty data directory: the admin key, returned once to be printed. */
  async bootstrapAdmin(): Promise<CreatedKey | null> {
    return new AccountsService(this.store, resolveConfig(this.base.input), this.clock).bootstrapAdmin();
  }

  async start(): Promise<{ url: string; port: number }> {
    const { host, port, trustProxy } = this.base.input.server;
    this.server = await serve(host, port, (req) => this.handle(req), {
      trustProxy,
      configure: (app) => attachNodeSocket(app, () => this.running?.nodes ?? null),
    });
    const cluster = this.clusterFor(instanceName(this.base.input, this.server.port));
    await cluster.start();
    this.running = await wire(this.base, resolveConfig(this.base.input, this.server.port), cluster, (req) => this.handle(req));
    if (!hasRawSocketCapability()) {
      this.log.warn('ping checks will fail: ICMP needs raw sockets, and this process lacks CAP_NET_RAW (contrib/vigil.service grants it; or run setcap cap_net_raw+ep on the executable)');
    }
    return { url: `http://${host}:${this.server.port}`, port: this.server.port };
  }

  /**
   * This central among the others on the store. The embedded SQLite store has one server, which
   * owns every check (a store several centrals share brings its own leases).
   */
  private clusterFor(name: string): Cluster {
    const { store, clock, log, liveChecks: live, input, jobs } = this.base;
    const common = { repo: store.cluster, name, version: VERSION, leaseMs: input.cluster.leaseMs, clock, log };
    if (!store.changes) return new SingleNodeCluster({ ...common, countOwned: () => live.size });
    const cluster: LeaseCluster = new LeaseCluster({
      ...common,
      bus: store.changes,
      countOwned: () => {
        let owned = 0;
        for (const id of live.ids()) if (cluster.owns(id)) owned++;
        return owned;
      },
      renewSoon: () => jobs.runNow('cluster-lease'),
    });
    // The database refuses this central's monitoring writes once it no longer holds its lease.
    this.base.writer.fenceWith(() => cluster.fence());
    return cluster;
  }

  handle(req: HttpRequest): Reply | Promise<Reply> {
    if (!this.running) return { status: 503, body: { error: { code: 503, message: 'Starting up' } } };
    return this.running.pipeline.handle(req);
  }

  /** Graceful stop: no new connections, in-flight requests answered, then the database closed. */
  async stop(): Promise<void> {
    this.jobs.stop();
    const running = this.running;
    // First: the other centrals take this one's checks over while it shuts down.
    await running?.cluster.stop().catch((err: unknown) => this.log.error({ err }, 'leaving the cluster failed'));
    running?.live.close();
    await this.server?.close();
    this.server = null;
    running?.nodes.stop();
    running?.windows.stop();
    // The engine first: probes still in flight finish and their events reach a running alert
    // pipeline, which then drains into its queue before the writers and the store close.
    await running?.engine.stop();
    running?.domains.stop();
    await running?.alerts.stop();
    this.writer.close();
    this.mailer.close();
    await this.base.hasher.close();
    await this.store.close();
  }

  private get started(): Running {
    if (!this.running) throw new Error('VigilApp is not started');
    return this.running;
  }

  get config(): Config {
    return this.started.config;
  }

  get services(): Services {
    return this.started.services;
  }

  get engine(): Engine {
    return this.started.engine;
  }

  get heartbeats(): HeartbeatMonitor {
    return this.started.heartbeats;
  }

  /** Domain expiry lookups (RDAP) on the engine's wheel. */
  get domains(): DomainMonitor {
    return this.started.domains;
  }

  /** Email and webhook settings, the delivery queue and sender. */
  get alerts(): AlertsModule {
    return this.started.alerts;
  }

  /** This central among the others on the store (a single server owns every check). */
  get cluster(): Cluster {
    return this.started.cluster;
  }

  /** Puts checks in and out of maintenance as scheduled windows start and end. */
  get windows(): WindowScheduler {
    return this.started.windows;
  }

  /** The route table requests go through (tests walk it). */
  get routes(): readonly Route[] {
    return this.started.pipeline.routes;
  }

  /** Every observation of a check becomes state, one write and events here. */
  get recorder(): Recorder {
    return this.started.recorder;
  }

  /** Rendered status pages and badges; every status change purges what shows the check. */
  get pageCache(): RenderCache {
    return this.started.renders.pages;
  }
}

/** Builds everything below the front, in dependency order; each module subscribes itself to what it follows. */
async function wire(base: Base, config: Config, cluster: Cluster, dispatch: (req: HttpRequest) => Reply | Promise<Reply>): Promise<Running> {
  const { store, clock, log, writer, rollups, mailer, jobs, liveChecks: live } = base;
  const recorder = new Recorder({ writer, central: cluster.shared ? cluster.name : undefined });
  const checks = new ChecksService(store, config, clock);
  const dispatcher = base.opts.dispatcher ?? new ThreadDispatcher({ threads: config.probes.threads, dnsServers: config.probes.dnsServers });

  // A single server owns every check: nothing on the probe path asks.
  const ownership = cluster.shared ? cluster : undefined;
  const bus = store.changes;
  const shared = bus && ownership ? { bus, ownership } : null;
  const sessions = new NodeSessions({ clock, log });
  // An immediate re-check of a check whose node is connected to another central is run there.
  const runElsewhere = shared ? relayRunNow(shared.bus, cluster.name, (checkId) => assignment.runHere(checkId)) : undefined;
  // One outbound rule per account for its probes (here and on nodes) and its alert deliveries.
  const outbound = new OutboundRules(config, store.accounts);
  const assignment: Assignment = new Assignment({ sessions, nodes: store.nodes, checks, config, clock, outbound, runElsewhere });
  // A failure seen here is re-checked by a node of another region, connected here or to another central.
  const askElsewhere = shared ? relayPeerRechecks(shared.bus, cluster.name, (nodeId, task) => peers.recheckOn(nodeId, task)) : undefined;
  const peers: PeerRechecks = new PeerRechecks({
    sessions, dispatcher, region: config.region, clock, elsewhere: askElsewhere && { nodes: () => assignment.nodesElsewhere(), ask: askElsewhere },
  });
  // A ping or a node's result for a check another central owns waits in the store's inbox for that central.
  const handOver: HandOver | undefined = shared
    ? (checkId, result, region, cursor) => recorder.write({
      kind: 'ping-inbox', item: { checkId, slot: slotOf(checkId), at: result.startedAt, signal: 'result', result, region, receivedBy: cluster.name }, nodeCursor: cursor,
    })
    : undefined;
  const engine = new Engine({
    store, recorder, live, dispatcher, placement: assignment, peer: peers, checks, clock, config, log, ownership, handOver, outbound, autoStart: base.opts.autoTick !== false,
  });
  const forward = shared
    ? (ping: Omit<NewInboxPing, 'receivedBy'>) => {
      const kept = { ...ping, details: { ...ping.details, central: cluster.name }, receivedBy: cluster.name };
      return writer.commit({ kind: 'ping-inbox', item: kept });
    }
    : undefined;
  const heartbeats = new HeartbeatMonitor({ store, recorder, live, wheel: engine.wheel, checks, clock, config, log, ownership, forward });
  const rdap = config.rdap;
  const rdapBootstrap = new RdapBootstrap({ overrides: rdap.servers, url: rdap.bootstrapUrl, timeoutMs: rdap.timeoutMs, clock, log });
  const domains = new DomainMonitor({
    store, watch: store.alerts.domainWatch, recorder, live, wheel: engine.wheel, checks, rdap: new RdapClient(rdapBootstrap, rdap.timeoutMs), clock, config, log, ownership,
  });
  // A dependant about to alert has its parents probed at once, here or by the central that owns them.
  const askOwner = shared
    ? relayVerdicts(shared.bus, cluster.name, (id) => (cluster.owns(id) ? engine.probeNow(id) ?? Promise.resolve(null) : null))
    : undefined;
  const verdictNow = (id: string) => engine.probeNow(id) ?? askOwner?.(id, engine.verdictLimitMs(id) + RELAY_SLACK_MS) ?? Promise.resolve(null);
  const alerts = new AlertsModule({ store, writer, mailer, events: recorder, clock, config, log, live, shared: ownership, outbound, verdictNow });
  const intake = new ResultIntake({ sessions, given: assignment, engine, recorder, cursors: store.nodes, commits: writer, clock, log });
  const nodes = new NodeHub({
    registry: new NodeRegistry(store.nodes, config.region, clock), nodes: store.nodes, checks: store.checks, sessions, assignment, intake, peers, log,
  });
  new StatusPublisher({ feed: base.statusFeed, applied: () => writer.applied(), recorder, checks, clock });

  const windows = new WindowScheduler({ store, checks, clock, log });
  checks.observe(windows);
  const services = buildServices({ base, config, checks, engine, heartbeats, alerts, assignment, dispatcher, windows, cluster });
  services.monitoring.maintenanceWindows.onChange(() => windows.poke());
  const renders = new PublicRenders(clock, base.statusFeed, services.pages);
  const { trends, lastProbe } = services.monitoring;
  const liveFeed = new LiveFeed(base.statusFeed, (id) => checks.find(id), (check) => checkSummary(check, trends, config, clock.now(), lastProbe(check.id)));
  const pipeline = buildPipeline({ base, config, services, renders, live: liveFeed, cluster, dispatch });

  cluster.onGained((owns) => {
    takeOver({ live, checks: store.checks, announce: (check) => checks.announce(check), heartbeats, log }, owns).catch(
      (err: unknown) => log.error({ err }, 'taking checks over failed'),
    );
  });
  await nodes.start(seenBefore(config, clock.now(), shared !== null));
  await engine.start();
  await heartbeats.start();
  alerts.start();
  await domains.start();
  const retention = new RawRetention(store.retention, clock, { rawDays: config.retention.rawDays });
  for (const job of [
    { name: 'idempotency-prune', everyMs: HOUR, jitterMs: MINUTE, run: () => base.idempotency.prune() },
    // Checks the CLI created or changed on this data directory start probing within a second.
    { name: 'checks-catch-up', everyMs: 1_000, run: () => checks.catchUp() },
    { name: 'rollup-build', everyMs: MINUTE, run: () => rollups.flushOpen(clock.now()) },
    { name: 'raw-retention', everyMs: HOUR, jitterMs: MINUTE, run: () => retention.prune() },
    // Daily, and once at start: a node restarted more often than daily would otherwise never run it.
    { name: 'unclaimed-accounts', everyMs: DAY, jitterMs: MINUTE, atStart: true, run: () => services.accounts.oauth.lifecycle.run() },
    ...services.people.jobs(),
    // Windows start and end on their own timer; this also catches windows and checks another process wrote.
    { name: 'maintenance-windows', everyMs: MINUTE, atStart: true, run: () => windows.reconcile() },
    { name: 'audit-prune', everyMs: DAY, jitterMs: MINUTE, atStart: true, run: () => services.people.audit.prune(config.audit.keepDays) },
    ...alerts.jobs(),
    ...services.pages.subscriptions.jobs(),
    ...nodeSweeps({ sessions, assignment, writer, nodes: store.nodes, shared: shared !== null, config, clock, log }),
    cluster.job(),
    ...(store.jobs?.() ?? []),
  ]) jobs.add(job);
  if (shared) {
    relayChanges({ bus: shared.bus, name: cluster.name, checks, repo: store.checks, feed: base.statusFeed, log });
    // A parent another central owns came back up: alerts held here for its dependants go out.
    base.statusFeed.subscribe((change) => {
      if (change.type === 'website_up' && !cluster.owns(change.checkId)) {
        alerts.pipeline.parentRecovered(change.checkId).catch((err: unknown) => log.error({ err, checkId: change.checkId }, 'held alerts not released'));
      }
    });
    const inbox = inboxJob({
      inbox: store.pingInbox, held: () => cluster.heldSlots(), pings: (pings) => heartbeats.applyForwarded(pings), results: (results) => intake.forwarded(results),
    });
    jobs.add(inbox);
    announceInbox(writer, shared.bus, cluster.name);
    shared.bus.subscribe('inbox', (from) => {
      if (from !== cluster.name) jobs.runNow(inbox.name);
    });
  }
  jobs.start();
  return { config, recorder, engine, heartbeats, domains, alerts, nodes, cluster, services, renders, live: liveFeed, pipeline, windows };
}

function buildServices(parts: {
  base: Base; config: Config; checks: ChecksService; engine: Engine; heartbeats: HeartbeatMonitor; alerts: AlertsModule;
  assignment: Assignment; dispatcher: ProbeDispatcher; windows: WindowScheduler; cluster: Cluster;
}): Services {
  const { base, config, checks, engine, alerts, dispatcher } = parts;
  const { store, clock, rollups, writer, log } = base;
  const shared = { config, clock };
  const stats = new StatsService({ stateChanges: store.stateChanges, rollups }, checks, clock);
  const lastProbe = (checkId: string) => base.liveChecks.lastProbe(checkId);
  const { operations: ops } = store;
  const people = new People({ store, config, clock, audit: new AuditLog(store, clock), mailer: base.mailer, derive: (d) => base.hasher.derive(d), log });
  const processMetrics = new ProcessMetrics({
    wheelLag: engine.metrics.lag,
    probesFired: () => engine.metrics.fired,
    probesInFlight: () => engine.inFlight,
    probeQueueDepth: () => dispatcher.queued,
    writerQueueLength: () => writer.pending,
    pendingDeliveries: () => ops.pendingDeliveries(),
    jobs: () => base.jobs.readings(),
    cluster: () => parts.cluster.reading(),
  });
  writer.afterEachBatch((writes) => processMetrics.batchCommitted(writes));
  const pages = pageServices({ base, config, stats, lastProbe, alerts, windows: parts.windows, checks });
  const maintenanceWindows = new MaintenanceWindowsService(store, clock);
  return {
    monitoring: {
      ...shared,
      checks,
      history: new HistoryService(store, checks),
      stats,
      pings: parts.heartbeats,
      lastProbe,
      regions: () => parts.assignment.regions(),
      trends: new CheckTrends(rollups, checks),
      series: new SeriesReader(rollups, store.stateChanges, store.history),
      maintenanceWindows,
    },
    accounts: {
      ...shared,
      accounts: new AccountsService(store, config, clock),
      oauth: buildOAuth({ store, repo: store.oauth, checks, mailer: base.mailer, config, clock, log, mailDomainResolver: base.opts.mailDomainResolver }),
      alertSummary: (accountId) => alerts.summary(accountId),
    },
    people,
    alerts: {
      ...shared,
      emailAlerts: alerts.email,
      webhooks: alerts.webhooks,
      deliveries: new DeliveryLog({ queue: alerts.repos.deliveries, webhooks: alerts.repos.webhooks, store, sender: alerts.sender, clock, log }),
    },
    pages,
    asCode: {
      ...shared,
      asCode: new MonitoringAsCode({ store, checks, webhooks: alerts.webhooks, email: alerts.email, statusPages: pages.statusPages, maintenanceWindows, config }),
    },
    operations: {
      ...shared,
      metrics: new MetricsService(checks, stats, processMetrics, (checkId) => base.liveChecks.get(checkId) ?? null),
      readiness: new Readiness({ ops, lastTickAt: () => engine.metrics.lastTickAt, clock, holding: parts.cluster.shared ? () => parts.cluster.holding() : undefined }),
    },
  };
}

function pageServices(parts: {
  base: Base; config: Config; stats: StatsService; lastProbe: (checkId: string) => LastProbe | null; alerts: AlertsModule; windows: WindowScheduler;
  checks: ChecksService;
}): PageServices {
  const { base, config, stats, lastProbe, windows } = parts;
  const { store, clock, rollups, log } = base;
  const statusPages = new StatusPagesService(store, store.statusPages, config, clock);
  const incidents = new IncidentsService({
    store, incidents: store.incidents, pages: store.statusPages, statusPages, clock, feed: base.statusFeed,
    onError: (err) => log.error({ err }, 'automatic incident not recorded'),
  });
  const subscriptions = new SubscriptionsService({
    store, subscribers: store.subscribers, pages: store.statusPages, statusPages, incidents, notices: parts.alerts, verifier: parts.alerts.subscriberVerifier,
    windows: parts.checks, config, clock,
    onError: (err) => log.error({ err }, 'status page notice not queued'),
  });
  return {
    config,
    clock,
    statusPages,
    incidents,
    subscriptions,
    publicPages: new PublicPages({ store, pages: store.statusPages, rollups, stats, clock, lastProbe, windows: (accountId) => windows.windowsOf(accountId) }),
  };
}

function buildPipeline(parts: {
  base: Base; config: Config; services: Services; renders: PublicRenders; live: LiveFeed; cluster: Cluster;
  dispatch: (req: HttpRequest) => Reply | Promise<Reply>;
}): RequestPipeline {
  const { base, config, services, renders } = parts;
  const { store, clock, log } = base;
  const { monitoring, accounts } = services;
  const challenge = `Bearer realm="vigil", resource_metadata="${config.publicUrl}/.well-known/oauth-protected-resource"`;
  const auth = new Authenticator(store, clock, challenge);
  auth.addBearerResolver(accounts.oauth.bearer);
  auth.setSessionResolver(services.people.sessions, config.publicUrl);
  const routes: Route[] = [];
  routes.push(
    ...dashboardRoutes(monitoring, services.people.sessions, services.people.passwordSignIn, parts.live, (headers) => auth.authenticate(headers)),
    ...peopleRoutes(services.people),
    ...signInRoutes(services.people.signInWays),
    ...identityRoutes(services.people.signInWays),
    ...dashboardAssetRoutes(),
    ...statusRoutes(monitoring),
    ...checkRoutes(monitoring),
    ...maintenanceWindowRoutes(monitoring),
    ...historyRoutes(monitoring),
    ...statsRoutes(monitoring),
    ...heartbeatRoutes(monitoring),
    ...accountRoutes(accounts),
    ...alertsRoutes(services.alerts),
    ...regionsRoutes(monitoring),
    ...oauthRoutes(accounts),
    ...statusPageRoutes(services.pages),
    ...incidentRoutes(services.pages),
    ...subscriptionRoutes(services.pages),
    ...configRoutes(services.asCode),
    ...keyRoutes(accounts),
    ...publicStatusRoutes(services.pages, renders),
    ...operationsRoutes(services.operations),
    ...metaRoutes(() => routes, config.publicUrl),
    ...mcpRoutes({ routes: () => routes, dispatch: async (req) => parts.dispatch(req), publicUrl: config.publicUrl }),
  );
  const rateLimiter = new RateLimiter(clock);
  if (parts.cluster.shared && store.changes) {
    // Several centrals: one budget per key across them all.
    const share = new RateShare({ bus: store.changes, name: parts.cluster.name, changed: () => rateLimiter.changed() });
    rateLimiter.shareWith(share);
    base.jobs.add(share.job());
  }
  return new RequestPipeline({
    routes, auth, rateLimiter, idempotency: base.idempotency, store, config, clock, log,
    available: parts.cluster.shared ? () => parts.cluster.holding() : undefined,
  });
}
