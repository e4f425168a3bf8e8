import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../core/clock.js';
import type { Mailer } from '../core/mailer.js';
import type { AlertSummary } from '../core/views.js';
import type { Engine } from '../engine/engine.js';
import type { BatchWriter } from '../store/sqlite/batch-writer.js';
import type { SqliteStore } from '../store/sqlite/index.js';
import type { AlertEvent } from './alert-content.js';
import { AlertRouting } from './alert-routing.js';
import type { AlertStore } from './alert-store.js';
import { DomainMonitor } from './domain-monitor.js';
import { EmailChannel } from './email-channel.js';
import { EmailAlertsService } from './email-settings-service.js';
import { AlertPipeline } from './pipeline.js';
import { RdapBootstrap } from './rdap-bootstrap.js';
import { RdapClient } from './rdap-client.js';
import { DeliverySender } from './sender.js';
import { DeliveryLog } from './delivery-log.js';
import { ReminderSweep } from './reminders.js';
import { sqliteAlertStore } from './sqlite/index.js';
import { WebhookChannel } from './webhook-channel.js';
import { WebhookService } from './webhook-service.js';
import { WebhookThread } from './webhook-thread.js';
import { TargetOptionsPolicy } from './target-options.js';

export interface AlertsDeps {
  store: SqliteStore;
  writer: BatchWriter;
  engine: Engine;
  mailer: Mailer;
  clock: Clock;
  config: Config;
  log: Logger;
  /** Where the domain monitor's events go (the app's event sink, which hands them back to `handle`). */
  onEvent: (check: { id: string; accountId: string }, event: AlertEvent) => void;
}

/**
 * The alerts layer wired together: settings services for the API, the pipeline behind the
 * event sink, the sender working the delivery queue, and the domain monitor on the wheel.
 */
export class AlertsModule {
  readonly repos: AlertStore;
  readonly email: EmailAlertsService;
  readonly webhooks: WebhookService;
  readonly deliveries: DeliveryLog;
  readonly reminders: ReminderSweep;
  readonly sender: DeliverySender;
  readonly pipeline: AlertPipeline;
  readonly domains: DomainMonitor;
  readonly rdapBootstrap: RdapBootstrap;
  private readonly client: WebhookThread;

  constructor(deps: AlertsDeps) {
    const { store, writer, engine, mailer, clock, config, log } = deps;
    this.repos = sqliteAlertStore(store.db);
    const routing = new AlertRouting(store, this.repos);
    const alerts = config.alerts;
    this.client = new WebhookThread({
      timeoutMs: alerts.timeoutMs,
      blockPrivateAddresses: config.probes.blockPrivateAddresses,
      // As many as can be in flight at once: requests never queue inside the pool, where a
      // burst to one popular origin (hooks.slack.com) would spend its timeout waiting.
      connectionsPerOrigin: alerts.concurrency,
    });
    const options = new TargetOptionsPolicy(store);
    this.email = new EmailAlertsService(this.repos.emailSettings, routing, options, mailer, clock, config);
    this.webhooks = new WebhookService({ repo: this.repos.webhooks, queue: this.repos.deliveries, routing, options, client: this.client, store, clock, config, log });
    this.sender = new DeliverySender({
      queue: this.repos.deliveries,
      channels: { webhook: new WebhookChannel(routing, this.client), email: new EmailChannel(routing, mailer) },
      clock,
      log,
      options: alerts,
    });
    this.deliveries = new DeliveryLog({ queue: this.repos.deliveries, webhooks: this.repos.webhooks, store, sender: this.sender, clock, log });
    this.reminders = new ReminderSweep({ store, repos: this.repos, routing, writer, sender: this.sender, mailer, clock, config, log });
    this.pipeline = new AlertPipeline({ store, queue: this.repos.deliveries, routing, writer, sender: this.sender, mailer, clock, config, log });
    this.rdapBootstrap = new RdapBootstrap({ overrides: config.rdap.servers, url: config.rdap.bootstrapUrl, timeoutMs: config.rdap.timeoutMs, clock, log });
    this.domains = new DomainMonitor({
      store,
      watch: this.repos.domainWatch,
      writer,
      engine,
      rdap: new RdapClient(this.rdapBootstrap, config.rdap.timeoutMs),
      clock,
      config,
      log,
      onEvent: deps.onEvent,
    });
  }

  start(): void {
    this.client.warm();
    this.domains.start();
    this.sender.start();
    this.reminders.start();
  }

  /**
   * After the engine and before the writer stop: events already raised become durable
   * deliveries, and attempts in flight finish or go back to pending.
   */
  async stop(): Promise<void> {
    this.domains.stop();
    this.reminders.stop();
    await this.pipeline.settled();
    await this.sender.stop();
    await this.client.close();
  }

  /** Resolves once every event so far is delivered or waiting for a later retry (tests, benchmarks). */
  async idle(): Promise<void> {
    await this.pipeline.settled();
    await this.sender.idle();
  }

  handle(check: { id: string; accountId: string }, event: AlertEvent): void {
    this.pipeline.handle(check, event);
  }

  /** Spec 2.7 `alerts` and `usage.webhooks`. */
  summary(accountId: string): AlertSummary {
    const email = this.email.get(accountId);
    return {
      emailConfigured: (email?.recipients.length ?? 0) > 0,
      emailEnabled: email?.enabled ?? false,
      webhookCount: this.webhooks.count(accountId),
    };
  }
}
