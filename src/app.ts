import { instanceName, resolveConfig, type Config, type ConfigInput } from './config.js';
import { createLogger, type Logger } from './log.js';
import { systemClock, type Clock } from './domain/clock.js';
import { errors } from './domain/errors.js';
import { Features, type FeatureModule, type Provided } from './features/feature.js';
import { checksFeature } from './features/checks-feature.js';
import { probingFeature } from './features/probing-feature.js';
import { domainsFeature } from './features/domains-feature.js';
import { alertsFeature } from './features/alerts-feature.js';
import { monitoringFeature } from './features/monitoring-feature.js';
import { accountsFeature } from './features/accounts-feature.js';
import { statusPagesFeature } from './features/status-pages-feature.js';
import { asCodeFeature } from './features/as-code-feature.js';
import { operationsFeature } from './features/operations-feature.js';
import { clusterFeature } from './features/cluster-feature.js';
import { dashboardFeature } from './features/dashboard-feature.js';
import { openApiFeature } from './features/openapi-feature.js';
import { mcpFeature } from './features/mcp-feature.js';
import { httpFeature } from './features/http-feature.js';
import { AccountsService, type CreatedKey } from './core/accounts-service.js';
import { StatusFeed } from './core/status-feed.js';
import { PasswordHasher } from './people/password-hasher.js';
import type { Services } from './api/services.js';
import type { HttpRequest, Reply, Route } from './api/http-types.js';
import type { RenderCache } from './api/render-cache.js';
import { Idempotency } from './front/idempotency.js';
import { RateLimiter } from './front/rate-limiter.js';
import { render, type RequestPipeline } from './front/request-pipeline.js';
import { serve, type RunningServer } from './front/uws-server.js';
import { attachNodeSocket } from './front/node-socket.js';
import type { MailDomainResolver } from './oauth/email-domain.js';
import { Mailer } from './alerts/delivery/mailer.js';
import type { ProbeDispatcher } from './engine/dispatcher.js';
import { LiveChecks } from './monitor/live-checks.js';
import { membership } from './cluster/membership.js';
import { openSqliteStore, type SqliteStore } from './store/sqlite/index.js';
import { openPgStore } from './store/postgres/index.js';
import type { Store } from './store/store.js';
import { BatchWriter } from './store/batch-writer.js';
import { JobRunner } from './util/job-runner.js';

/**
 * The module list: every feature of a node, in the order they are built, started and stopped.
 * A feature needs only what one before it gave; the front comes last, over every route.
 */
const FEATURES: readonly FeatureModule[] = [
  checksFeature, probingFeature, domainsFeature, alertsFeature, monitoringFeature, accountsFeature, statusPagesFeature,
  asCodeFeature, operationsFeature, clusterFeature, dashboardFeature, openApiFeature, mcpFeature, httpFeature,
];

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

/** What exists once the port is bound (the public addresses default to it). */
interface Running {
  config: Config;
  features: Features;
  pipeline: RequestPipeline;
}

/** One Vigil node: the store and what only needs it, then the module list's features once the port is bound. */
export class VigilApp<S extends Store = SqliteStore> {
  readonly store: S;
  readonly clock: Clock;
  readonly log: Logger;
  readonly writer: BatchWriter;
  private readonly mailer: Mailer;
  readonly statusFeed = new StatusFeed();
  readonly jobs: JobRunner;
  readonly liveChecks = new LiveChecks();
  private readonly idempotency: Idempotency;
  private readonly hasher: PasswordHasher;
  private server: RunningServer | null = null;
  private running: Running | null = null;

  /**
   * The app on the store its config names: PostgreSQL with store.url (a central among any
   * others on that database), else the SQLite database in dataDir.
   */
  static async open(input: ConfigInput, opts: AppOptions<Store> = {}): Promise<VigilApp<Store>> {
    if (opts.store || input.store.url === null) return new VigilApp<Store>(input, opts);
    const log = opts.logger ?? createLogger(input.logLevel);
    const effectFailed = (err: unknown) => log.error({ err }, 'an effect of a committed change, or the store\'s listening connection, failed');
    const store = await openPgStore(input.store.url, { watchChecks: true, changes: 'listen', effectFailed });
    return new VigilApp<Store>(input, { ...opts, logger: log, store });
  }

  constructor(
    private readonly input: ConfigInput,
    private readonly opts: AppOptions<S> = {},
  ) {
    this.clock = opts.clock ?? systemClock;
    this.log = opts.logger ?? createLogger(input.logLevel);
    if (!opts.store && input.store.url !== null) throw new Error('a PostgreSQL store (store.url) is opened by VigilApp.open');
    this.store = opts.store ?? (openSqliteStore(input.dataDir, {
      checkpointInBackground: true,
      effectFailed: (err) => this.log.error({ err }, 'an effect of a committed change failed'),
    }) as Store as S);
    this.writer = new BatchWriter(this.store, this.log, undefined, undefined, this.store.parallelBatches);
    this.mailer = new Mailer(input);
    this.jobs = new JobRunner({ clock: this.clock, log: this.log });
    this.idempotency = new Idempotency(this.store.idempotency, this.clock);
    this.hasher = new PasswordHasher(input.auth.passwordHashing);
  }

  /** First start of an empty data directory: the admin key, returned once to be printed. */
  async bootstrapAdmin(): Promise<CreatedKey | null> {
    return new AccountsService(this.store, resolveConfig(this.input), this.clock).bootstrapAdmin();
  }

  /** Binds the port first (the public addresses default to it), joins the other centrals, then builds and starts the features. */
  async start(): Promise<{ url: string; port: number }> {
    const { host, port, trustProxy } = this.input.server;
    const { store, clock, log, writer, jobs, liveChecks: live } = this;
    this.server = await serve(host, port, (req) => this.handle(req), {
      trustProxy,
      configure: (app) => attachNodeSocket(app, () => (this.running ? this.part('nodes') : null)),
    });
    const joined = membership({ store, name: instanceName(this.input, this.server.port), leaseMs: this.input.cluster.leaseMs, clock, log, live, writer, jobs });
    await joined.cluster.start();
    const config = resolveConfig(this.input, this.server.port);
    const features = await Features.build(FEATURES, {
      config, store, clock, log, writer, mailer: this.mailer, statusFeed: this.statusFeed, jobs,
      liveChecks: live, idempotency: this.idempotency, hasher: this.hasher, rateLimiter: new RateLimiter(clock),
      membership: joined, dispatch: (req) => this.handle(req),
      dispatcher: this.opts.dispatcher, autoTick: this.opts.autoTick !== false, mailDomainResolver: this.opts.mailDomainResolver,
    });
    await features.start(jobs);
    this.running = { config, features, pipeline: features.parts.need('pipeline') };
    return { url: `http://${host}:${this.server.port}`, port: this.server.port };
  }

  handle(req: HttpRequest): Reply | Promise<Reply> {
    if (!this.running) return render(errors.unavailable('Starting up'), 'standard');
    return this.running.pipeline.handle(req);
  }

  /** Graceful stop: no new connections, in-flight requests answered, the features stopped in order, then the database closed. */
  async stop(): Promise<void> {
    this.jobs.stop();
    const features = this.running?.features;
    await features?.leave();
    await this.server?.close();
    this.server = null;
    await features?.stop();
    this.writer.close();
    this.mailer.close();
    await this.hasher.close();
    await this.store.close();
  }

  private get started(): Running {
    if (!this.running) throw new Error('VigilApp is not started');
    return this.running;
  }

  /** What a feature gave (tests reach the engine, the alerts module, the caches). */
  part<K extends keyof Provided>(name: K): Provided[K] {
    return this.started.features.parts.need(name);
  }

  get services(): Services {
    return {
      monitoring: this.part('monitoring'), accounts: this.part('accounts'), people: this.part('people'), alerts: this.part('alertServices'),
      pages: this.part('pages'), asCode: this.part('asCode'), operations: this.part('operations'),
    };
  }

  // What the features gave that tests, benchmarks and the CLI reach.
  get engine(): Provided['engine'] { return this.part('engine'); }
  get heartbeats(): Provided['heartbeats'] { return this.part('heartbeats'); }
  get domains(): Provided['domains'] { return this.part('domains'); }
  get alerts(): Provided['alerts'] { return this.part('alerts'); }
  get windows(): Provided['windows'] { return this.part('windows'); }
  get recorder(): Provided['recorder'] { return this.part('recorder'); }
  get cluster(): Provided['cluster'] { return this.part('cluster'); }

  get config(): Config { return this.started.config; }
  /** The route table requests go through (tests walk it). */
  get routes(): readonly Route[] { return this.started.pipeline.routes; }
  /** Rendered status pages and badges; every status change purges what shows the check. */
  get pageCache(): RenderCache { return this.part('renders').pages; }
}
