import { Registry } from 'prom-client';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Clock } from '../domain/clock.js';
import type { HttpRequest, Reply, Route } from '../api/http-types.js';
import { RouteTable } from '../api/route-table.js';
import type { StatusFeed } from '../core/status-feed.js';
import type { PasswordHasher } from '../people/password-hasher.js';
import type { MailDomainResolver } from '../oauth/email-domain.js';
import type { Idempotency } from '../front/idempotency.js';
import type { RateLimiter } from '../front/rate-limiter.js';
import type { ProbeDispatcher } from '../engine/dispatcher.js';
import type { Mailer } from '../alerts/delivery/mailer.js';
import type { LiveChecks } from '../monitor/live-checks.js';
import type { Membership } from '../cluster/membership.js';
import type { Store } from '../store/store.js';
import type { BatchWriter } from '../store/batch-writer.js';
import type { JobRunner, ScopedJob } from '../util/job-runner.js';

/**
 * What one feature adds to the running node (fastify's plugins): its routes, its periodic jobs,
 * its series in /metrics, and what it does as the node starts and stops. Its observers subscribe
 * themselves when it is built, or in `start` when they must wait for every feature to run (the
 * relays between centrals).
 */
export interface Feature {
  readonly routes?: readonly Route[];
  readonly jobs?: readonly ScopedJob[];
  /** Registers the feature's own series in the process registry; they are read when scraped. */
  metrics?(registry: Registry): void;
  /** Once every feature is built, in the module list's order. */
  start?(): void | Promise<void>;
  /** Before the port closes: hand work over to the other centrals, end long-lived responses. */
  leave?(): void | Promise<void>;
  /**
   * After the port closed, in the module list's order: a feature upstream (the engine) stops
   * first, so its last events reach the features downstream (alerts) while they still run.
   */
  stop?(): void | Promise<void>;
}

/** What the composition root gives every feature: the store, the config and the node's shared parts. */
export interface Root {
  config: Config;
  store: Store;
  clock: Clock;
  log: Logger;
  writer: BatchWriter;
  mailer: Mailer;
  /** Every check event and edit, for whoever needs to hear of it at once (live dashboards, page caches). */
  statusFeed: StatusFeed;
  jobs: JobRunner;
  liveChecks: LiveChecks;
  idempotency: Idempotency;
  /** The thread that hashes passwords (away from libuv's pool, where probes resolve names). */
  hasher: PasswordHasher;
  rateLimiter: RateLimiter;
  /** The process's metrics: each feature registers its own series here. */
  metrics: Registry;
  /** This central among the others on the store, and the bus to them (none on a single server). */
  membership: Membership;
  /** Every feature's routes, in the module list's order (OpenAPI and MCP list it). */
  routes: RouteTable;
  /** Runs a request through the front as a client's would be (MCP tools). */
  dispatch(req: HttpRequest): Reply | Promise<Reply>;
  /** Tests substitute probes, drive the wheel by hand, or answer mail-domain lookups. */
  dispatcher?: ProbeDispatcher;
  autoTick: boolean;
  mailDomainResolver?: MailDomainResolver;
}

/**
 * What features hand one another, by name. Each feature declares what it gives beside its code
 * (`declare module '../../feature.js' { interface Provided { … } }`), as fastify's decorators do.
 */
export interface Provided {}

/** The parts given so far: a feature needs only what a feature before it in the list gave. */
export class Parts {
  private readonly given = new Map<keyof Provided, unknown>();
  /** The feature being built, for the error that names a misordered list. */
  building = '';

  give<K extends keyof Provided>(name: K, part: Provided[K]): void {
    if (this.given.has(name)) throw new Error(`${String(name)} is given twice`);
    this.given.set(name, part);
  }

  need<K extends keyof Provided>(name: K): Provided[K] {
    if (!this.given.has(name)) {
      throw new Error(`${String(name)} is needed before a feature gave it${this.building && ` (by ${this.building})`}: reorder the module list`);
    }
    return this.given.get(name) as Provided[K];
  }
}

/** One entry of the module list: builds its feature from the root and the parts given before it. */
export interface FeatureModule {
  readonly name: string;
  build(root: Root, parts: Parts): Feature | Promise<Feature>;
}

/** The features of a running node, built in the module list's order. */
export class Features {
  private constructor(
    private readonly built: readonly Feature[],
    readonly parts: Parts,
  ) {}

  /** Builds each module in turn and registers what it adds: routes, jobs and metrics. */
  static async build(modules: readonly FeatureModule[], base: Omit<Root, 'routes' | 'metrics'>): Promise<Features> {
    const root: Root = { ...base, routes: new RouteTable(), metrics: new Registry() };
    const parts = new Parts();
    const built: Feature[] = [];
    for (const module of modules) {
      parts.building = module.name;
      const feature = await module.build(root, parts);
      root.routes.add(feature.routes ?? []);
      for (const job of feature.jobs ?? []) root.jobs.add(job);
      feature.metrics?.(root.metrics);
      built.push(feature);
    }
    return new Features(built, parts);
  }

  /** Starts each feature in order, then the periodic jobs. */
  async start(jobs: JobRunner): Promise<void> {
    for (const feature of this.built) await feature.start?.();
    jobs.start();
  }

  async leave(): Promise<void> {
    for (const feature of this.built) await feature.leave?.();
  }

  async stop(): Promise<void> {
    for (const feature of this.built) await feature.stop?.();
  }
}
