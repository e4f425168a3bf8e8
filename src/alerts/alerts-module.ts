import { DependencyHold, type VerdictNow } from './dependency-hold.js';
import type { LiveChecks } from '../monitor/live-checks.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import type { Mailer } from './delivery/mailer.js';
import type { BatchWriter } from '../store/batch-writer.js';
import type { Store } from '../store/store.js';
import { AlertRouting } from './alert-routing.js';
import type { AlertStore } from '../store/alert-store.js';
import { EmailChannel } from './email-channel.js';
import { EmailAlertsService } from './email-settings-service.js';
import { AlertPipeline } from './alert-pipeline.js';
import { DeliverySender } from './delivery/sender.js';
import type { AlertEvent } from '../domain/events.js';
import { WebhookChannel } from './webhook-channel.js';
import { WebhookService } from './webhook-service.js';
import { WebhookThread } from './delivery/webhook-thread.js';
import { OutboundRules } from '../store/outbound-rules.js';
import { subscriberRule } from '../domain/outbound-policy.js';

/** What the alerts layer reports about an account (spec 2.7 `alerts`, `usage.webhooks`). */
export interface AlertSummary {
  emailConfigured: boolean;
  emailEnabled: boolean;
  webhookCount: number;
}
import { ReminderSweep } from './reminders.js';
import { SubscriberEmailChannel, SubscriberWebhookChannel } from './page-notices.js';
import { SubscriberVerifier } from './subscriber-webhooks.js';
import type { NewAlert } from '../store/alert-store.js';
import { TargetOptionsPolicy } from './target-options.js';
import type { ScopedJob } from '../util/job-runner.js';
import { outboxSweepJob } from './outbox-sweep.js';
import type { Recorder } from '../monitor/recorder.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export interface AlertsDeps {
  store: Store;
  writer: BatchWriter;
  mailer: Mailer;
  clock: Clock;
  config: Config;
  log: Logger;
  /** Where check events are raised (the recorder): the pipeline subscribes. None in CLI commands. */
  events?: Pick<Recorder, 'onEvent'>;
  /** Live check states (dependencies hold alerts while a parent is down). */
  live?: Pick<LiveChecks, 'get'>;
  /** A parent probed at once for a dependant about to alert (absent: the parent's last known status decides). */
  verdictNow?: VerdictNow;
  /**
   * Several centrals on one store: which checks this one owns. Reminders are queued by the
   * owner of their check only, and the sender also looks for deliveries other centrals queued
   * or left behind (a central that died with deliveries pending or leased).
   */
  shared?: { owns(checkId: string): boolean };
  /** The accounts' outbound rules (shared with the engine; built here when absent, as in CLI commands). */
  outbound?: OutboundRules;
}

/**
 * The alerts layer wired together: settings services for the API, the pipeline behind the
 * event sink, and the sender working the delivery queue.
 */
export class AlertsModule {
  readonly repos: AlertStore;
  readonly email: EmailAlertsService;
  readonly webhooks: WebhookService;
  readonly reminders: ReminderSweep;
  readonly sender: DeliverySender;
  readonly pipeline: AlertPipeline;
  /** Issue 34: the challenge a status page's webhook subscriber answers before anything else is sent. */
  readonly subscriberVerifier: SubscriberVerifier;
  private readonly client: WebhookThread;
  private readonly writer: BatchWriter;
  private readonly clock: Clock;
  private readonly shared: boolean;

  constructor(deps: AlertsDeps) {
    const { store, writer, mailer, clock, config, log } = deps;
    this.writer = writer;
    this.clock = clock;
    this.repos = store.alerts;
    const routing = new AlertRouting(store, this.repos);
    const alerts = config.alerts;
    this.client = new WebhookThread({
      timeoutMs: alerts.timeoutMs,
      blockPrivateAddresses: config.probes.blockPrivateAddresses,
      dnsServers: config.probes.dnsServers,
      // As many as can be in flight at once: requests never queue inside the pool, where a
      // burst to one popular origin (hooks.slack.com) would spend its timeout waiting.
      connectionsPerOrigin: alerts.concurrency,
    });
    const outbound = deps.outbound ?? new OutboundRules(config, store.accounts);
    const toSubscribers = subscriberRule(config);
    this.subscriberVerifier = new SubscriberVerifier({ timeoutMs: alerts.timeoutMs, rule: toSubscribers, dnsServers: config.probes.dnsServers });
    const options = new TargetOptionsPolicy(store);
    this.email = new EmailAlertsService(this.repos.emailSettings, routing, options, mailer, clock, config, store);
    this.webhooks = new WebhookService({ repo: this.repos.webhooks, queue: this.repos.deliveries, routing, options, client: this.client, store, outbound, clock, config, log });
    this.sender = new DeliverySender({
      queue: this.repos.deliveries,
      channels: {
        webhook: new WebhookChannel(routing, this.client, outbound),
        email: new EmailChannel(routing, mailer),
        subscriber_email: new SubscriberEmailChannel(store.subscribers, mailer, config),
        subscriber_webhook: new SubscriberWebhookChannel(store.subscribers, this.client, toSubscribers),
      },
      clock,
      log,
      options: alerts,
    });
    this.reminders = new ReminderSweep({ store, repos: this.repos, routing, writer, sender: this.sender, mailer, clock, config, log, owns: deps.shared?.owns.bind(deps.shared) });
    this.shared = deps.shared !== undefined;
    const live = deps.live;
    const hold = new DependencyHold(async (id) => {
      // Another central's check: the entry here is not moved by its results, the stored row is.
      const state = deps.shared?.owns(id) === false ? undefined : live?.get(id)?.state.status;
      if (state !== undefined) return state;
      const check = await store.checks.byId(id);
      return check === null ? null : check.disabled ? 'paused' : check.status;
    }, deps.verdictNow);
    this.pipeline = new AlertPipeline({ store, routing, writer, sender: this.sender, mailer, clock, config, log, hold });
    deps.events?.onEvent((check, event, outboxId) => {
      log.info({ checkId: check.id, event: event.type, status: event.status }, 'check event');
      this.pipeline.handle(check, event, outboxId ?? null);
    }, { outbox: true });
  }

  start(): void {
    // A worker thread holds ~9 MiB: without webhooks it starts at the first send instead.
    void this.repos.webhooks.any().then((any) => { if (any) this.client.warm(); });
    this.sender.start();
  }

  /** The periodic jobs: reminders of checks still down, old deliveries dropped, unrouted events routed. */
  jobs(): ScopedJob[] {
    return [
      { name: 'alert-reminders', scope: 'one-central', everyMs: MINUTE, run: () => this.reminders.sweep() },
      { name: 'delivery-prune', scope: 'one-central', everyMs: HOUR, jitterMs: MINUTE, atStart: true, run: () => this.sender.prune() },
      // Deliveries another central queued, or leased and never finished (it died), are due here too.
      ...(this.shared ? [{ name: 'deliveries-elsewhere', scope: 'every-central' as const, everyMs: 2_000, run: () => this.sender.wake() }] : []),
      outboxSweepJob(this.pipeline, this.clock, this.shared),
    ];
  }

  /**
   * After the engine and before the writer stop: events already raised become durable
   * deliveries, and attempts in flight finish or go back to pending.
   */
  async stop(): Promise<void> {
    await this.pipeline.settled();
    await this.sender.stop();
    await Promise.all([this.client.close(), this.subscriberVerifier.close()]);
  }

  /** Resolves once every event so far is delivered or waiting for a later retry (tests, benchmarks). */
  async idle(): Promise<void> {
    await this.pipeline.settled();
    await this.sender.idle();
  }

  /**
   * Queues status page notices (issue 29) in the persisted delivery queue, through the batched
   * writer like alerts: the caller never waits; the sender takes them once committed.
   */
  queueNotices(notices: readonly NewAlert[]): Promise<void> {
    if (notices.length === 0) return Promise.resolve();
    if (notices.some((n) => n.deliveries.some((d) => d.channel === 'subscriber_webhook'))) this.client.warm();
    return this.writer.commit({ kind: 'alerts', alerts: [...notices], at: this.clock.now() }).then(() => this.sender.wake());
  }

  /** When a notice queued now stops being retried. */
  retryUntil(now: number): number {
    return this.sender.retryUntil(now);
  }

  handle(check: { id: string; accountId: string }, event: AlertEvent): void {
    this.pipeline.handle(check, event);
  }

  /** Spec 2.7 `alerts` and `usage.webhooks`. */
  async summary(accountId: string): Promise<AlertSummary> {
    const email = await this.email.get(accountId);
    return {
      emailConfigured: (email?.recipients.length ?? 0) > 0,
      emailEnabled: email?.enabled ?? false,
      webhookCount: await this.webhooks.count(accountId),
    };
  }
}
