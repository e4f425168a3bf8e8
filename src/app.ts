import { resolveConfig, type Config, type ConfigInput } from './config.js';
import { AccountsService, type CreatedKey } from './core/accounts-service.js';
import { ChecksService } from './core/checks-service.js';
import { HistoryService } from './core/history-service.js';
import { systemClock, type Clock } from './core/clock.js';
import { accountRoutes } from './api/account-routes.js';
import { checkRoutes } from './api/checks-routes.js';
import { historyRoutes } from './api/history-routes.js';
import { statusRoutes } from './api/status-routes.js';
import { metaRoutes } from './api/meta-routes.js';
import type { Services } from './api/services.js';
import { Authenticator } from './front/authenticator.js';
import type { HttpRequest, Reply, Route } from './front/http-types.js';
import { Idempotency } from './front/idempotency.js';
import { Pipeline } from './front/pipeline.js';
import { RateLimiter } from './front/rate-limiter.js';
import { serve, type RunningServer } from './front/uws-server.js';
import { createLogger, type Logger } from './log.js';
import type { MonitorEvent } from './monitor/events.js';
import { openSqliteStore, type SqliteStore } from './store/sqlite/index.js';
import { BatchWriter } from './store/sqlite/batch-writer.js';
import { PiscinaDispatcher, type ProbeDispatcher } from './engine/dispatcher.js';
import { Engine } from './engine/engine.js';
import { HeartbeatMonitor } from './engine/heartbeats.js';
import { heartbeatRoutes } from './api/heartbeat-routes.js';
import { statsRoutes } from './api/stats-routes.js';
import { RawRetention } from './stats/retention.js';
import { StatsService } from './stats/stats-service.js';
import type { RollupStore } from './store/rollup-store.js';
import { sqliteRetention } from './store/sqlite/raw-retention.js';
import { sqliteRollups } from './store/sqlite/rollups.js';

export interface AppOptions {
  clock?: Clock;
  logger?: Logger;
  /** Tests substitute probes or drive the wheel by hand. */
  dispatcher?: ProbeDispatcher;
  autoTick?: boolean;
}

const HOUR = 60 * 60 * 1000;

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
  readonly writer: BatchWriter;
  /** Created right after the store: opening it rebuilds rollups a crash left short. */
  readonly rollups: RollupStore;
  private pipeline: Pipeline | null = null;
  private idempotency: Idempotency;
  private server: RunningServer | null = null;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly input: ConfigInput,
    private readonly opts: AppOptions = {},
  ) {
    this.clock = opts.clock ?? systemClock;
    this.log = opts.logger ?? createLogger(input.logLevel);
    this.store = openSqliteStore(input.dataDir);
    this.idempotency = new Idempotency(this.store.idempotency, this.clock);
    this.writer = new BatchWriter(this.store, this.log);
    this.rollups = sqliteRollups(this.store.db);
  }

  /** First start of an empty data directory: the admin key, returned once to be printed. */
  bootstrapAdmin(): CreatedKey | null {
    return new AccountsService(this.store, resolveConfig(this.input), this.clock).bootstrapAdmin();
  }

  async start(): Promise<{ url: string; port: number }> {
    this.server = await serve(this.input.server.host, this.input.server.port, (req) => this.handle(req));
    this.config = resolveConfig(this.input, this.server.port);
    this.engine = new Engine({
      store: this.store,
      writer: this.writer,
      dispatcher: this.opts.dispatcher ?? new PiscinaDispatcher(),
      clock: this.clock,
      config: this.config,
      log: this.log,
      autoStart: this.opts.autoTick !== false,
      onEvent: (check, event) => this.onEvent(check, event),
      aggregator: this.rollups,
    });
    const heartbeats = new HeartbeatMonitor({
      store: this.store, writer: this.writer, engine: this.engine, clock: this.clock, config: this.config, log: this.log,
      aggregator: this.rollups,
      onEvent: (check, event) => this.onEvent(check, event),
    });
    this.services = this.buildServices(heartbeats);
    this.services.checks.observe(this.engine);
    this.services.checks.observe(heartbeats);
    this.engine.start();
    heartbeats.start();
    this.pipeline = this.buildPipeline();
    this.every(HOUR, () => this.idempotency.prune());
    this.every(60_000, () => this.rollups.flushOpen(this.clock.now()));
    const retention = new RawRetention(sqliteRetention(this.store.db), this.clock, { rawDays: this.config.retention.rawDays });
    this.every(HOUR, () => void retention.prune().catch((err: unknown) => this.log.error({ err }, 'retention failed')));
    const url = `http://${this.input.server.host}:${this.server.port}`;
    this.log.info({ url, publicUrl: this.config.publicUrl }, `Vigil listening on ${url}`);
    return { url, port: this.server.port };
  }

  handle(req: HttpRequest): Reply | Promise<Reply> {
    if (!this.pipeline) return { status: 503, body: { error: { code: 503, message: 'Starting up' } } };
    return this.pipeline.handle(req);
  }

  /** Graceful stop: no new connections, in-flight requests answered, then the database closed. */
  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.server?.close();
    this.server = null;
    await this.engine?.stop();
    this.writer.close();
    this.rollups.close();
    this.store.close();
  }

  private onEvent(check: { id: string }, event: MonitorEvent): void {
    this.log.info({ checkId: check.id, event: event.type, status: event.status }, 'check event');
  }

  private buildServices(heartbeats: HeartbeatMonitor): Services {
    const { store, config, clock } = this;
    const checks = new ChecksService(store, config, clock);
    return {
      config,
      clock,
      checks,
      history: new HistoryService(store, checks),
      stats: new StatsService({ stateChanges: store.stateChanges, rollups: this.rollups }, checks, clock),
      heartbeats,
      accounts: new AccountsService(store, config, clock),
      alertSummary: () => ({ emailConfigured: false, emailEnabled: false, webhookCount: 0 }),
      usage: (accountId) => ({ checks: store.checks.countForAccount(accountId) }),
    };
  }

  private buildPipeline(): Pipeline {
    const routes: Route[] = [];
    routes.push(
      ...statusRoutes(this.services),
      ...checkRoutes(this.services),
      ...historyRoutes(this.services),
      ...statsRoutes(this.services),
      ...heartbeatRoutes(this.services),
      ...accountRoutes(this.services),
      ...metaRoutes(() => routes, this.config.publicUrl),
    );
    const challenge = `Bearer realm="vigil", resource_metadata="${this.config.publicUrl}/.well-known/oauth-protected-resource"`;
    return new Pipeline({
      routes,
      auth: new Authenticator(this.store, this.clock, challenge),
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
