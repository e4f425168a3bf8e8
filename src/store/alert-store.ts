import type { AlertEventType } from '../domain/events.js';
import type { AlertOutboxRepo, OutboxClaim } from './alert-outbox.js';

/** Records and repositories of the alerts layer; SQLite implementations live in ./sqlite/. */

export type EmailFormat = 'html' | 'text';
export const EMAIL_FORMATS: readonly EmailFormat[] = ['html', 'text'];

/**
 * Which checks a target hears about (issue 17): a check listed by id, in a listed folder or
 * with a listed tag; all three lists empty means every check of the account (the spec's account-wide default).
 */
export interface AlertRoute {
  checkIds: string[];
  folders: string[];
  /** Issue 27: checks with one of these tags (`key` or `key:value`, case-insensitive). */
  tags: string[];
}

/** What email settings and webhooks add to the spec's fields: routing and reminders. */
export interface TargetOptions extends AlertRoute {
  /** While a check stays down, a `website_down` reminder this often (minutes, >= 5); null: none. */
  remindEveryMinutes: number | null;
}

/** Spec 2.8, one per account. */
export interface EmailSettings extends TargetOptions {
  accountId: string;
  enabled: boolean;
  recipients: string[];
  events: AlertEventType[];
  emailFormat: EmailFormat;
  updatedAt: number;
}

export const WEBHOOK_TYPES = [
  'slack', 'discord', 'teams', 'pumble', 'pagerduty', 'opsgenie', 'pushover', 'generic',
  // Issue 17: the channels self-hosters run themselves.
  'ntfy', 'gotify', 'telegram', 'matrix', 'mattermost', 'rocketchat', 'googlechat',
] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];

/** Spec 2.9 as stored: the full URL and the secret stay inside the alerts layer. */
export interface Webhook extends TargetOptions {
  id: string;
  accountId: string;
  name: string;
  url: string;
  /** The URL normalised for duplicate detection. */
  urlKey: string;
  webhookType: WebhookType;
  events: AlertEventType[];
  enabled: boolean;
  secret: string | null;
  createdAt: number;
}

/** `subscriber_*`: notices of a status page to its subscribers (issue 29; target: the subscriber id, checkId: the page id). */
export type DeliveryChannel = 'email' | 'webhook' | 'subscriber_email' | 'subscriber_webhook';
/** What a status page's subscribers hear of (issue 29). */
export type NoticeEventType =
  | 'incident_opened' | 'incident_updated' | 'incident_resolved' | 'maintenance_started' | 'maintenance_ended'
  /** The double opt-in's link, to an address not confirmed yet. */
  | 'subscription_confirmation';
export type DeliveryStatus = 'pending' | 'sending' | 'delivered' | 'failed' | 'cancelled';

/** One alert for one channel target: a webhook id, or an email recipient. */
export interface Delivery {
  id: string;
  accountId: string;
  checkId: string;
  event: AlertEventType | NoticeEventType;
  channel: DeliveryChannel;
  target: string;
  /** The AlertContent as stored (JSON): webhooks hand it to the delivery worker unparsed. */
  contentJson: string;
  status: DeliveryStatus;
  /** Attempts started so far, this one included while sending. */
  attempts: number;
  nextAt: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
  finishedAt: number | null;
  /** No retry is scheduled past this time (alerts.retryForHours after queueing). */
  retryUntil: number;
}

/** One alert to queue: what it says, once, and the channel targets it goes to. */
export interface NewAlert {
  accountId: string;
  checkId: string;
  event: AlertEventType | NoticeEventType;
  /** JSON of the AlertContent, made while routing so the group commit only inserts. */
  contentJson: string;
  createdAt: number;
  retryUntil: number;
  deliveries: Array<Pick<Delivery, 'id' | 'channel' | 'target'>>;
  /**
   * The state change this alert is about, as its check names it on every central (see
   * `transitionKey`): the store queues one alert per check and transition, and drops a second
   * one (another central that saw the same change). Absent or null: never deduplicated
   * (reminders, certificate and domain alerts, notices).
   */
  transition?: string | null;
  /** The outbox event this alert was routed from (see `claimedAlerts`); absent or null: none. */
  outboxId?: string | null;
}

/** Delivery log filters (issue 17); `pending` covers rows being sent. */
export interface DeliveryFilter {
  accountId: string;
  /** A restricted key sees only deliveries of checks in its reach. */
  checkIds: readonly string[] | null;
  status?: 'pending' | 'delivered' | 'failed' | 'cancelled';
  checkId?: string;
  /** A webhook id or an email recipient. */
  target?: string;
}

export interface EmailSettingsRepo {
  get(accountId: string): Promise<EmailSettings | null>;
  put(settings: EmailSettings): Promise<void>;
  /** Accounts whose email settings send reminders. */
  remindingAccounts(): Promise<string[]>;
}

export interface WebhookRepo {
  list(accountId: string): Promise<Webhook[]>;
  byId(id: string): Promise<Webhook | null>;
  count(accountId: string): Promise<number>;
  /** Whether any account has a webhook (the delivery worker starts at boot only then). */
  any(): Promise<boolean>;
  urlTaken(accountId: string, urlKey: string): Promise<boolean>;
  insert(webhook: Webhook): Promise<void>;
  /** Writes every field but id, account and creation time. */
  update(webhook: Webhook): Promise<void>;
  delete(id: string): Promise<void>;
  /** Accounts with a target that sends reminders (the reminder sweep visits only these). */
  remindingAccounts(): Promise<string[]>;
}

/** The outcome of one attempt, as the queue records it. */
export type AttemptRecord =
  /** `recovered`: it succeeded after failing, so the target's other waiting retries are due now. */
  | { kind: 'delivered'; status: number | null; recovered?: boolean }
  | { kind: 'retry'; status: number | null; error: string; nextAt: number }
  | { kind: 'failed'; status: number | null; error: string }
  | { kind: 'cancelled'; error: string }
  /** Interrupted by shutdown: back to pending, the attempt not counted. */
  | { kind: 'released'; nextAt: number };

export interface SettledAttempt {
  id: string;
  outcome: AttemptRecord;
}

export interface DeliveryQueue {
  /**
   * Queues alerts in one transaction. `routed`: the outbox events their drain routed, deleted
   * here; an alert routed from one of them is queued only when this call deleted its row.
   */
  enqueue(alerts: readonly NewAlert[], now: number, routed?: readonly OutboxClaim[]): Promise<void>;
  /**
   * Leases up to `limit` due rows (pending ones whose time has come, and sending ones whose
   * lease ran out) until `leaseUntil` and counts the attempt, taking no target past
   * `perTarget` in flight (`inFlight` holds the counts already running). Only the head of each
   * target's line per check is due: a later alert for the same check and target waits until
   * the earlier one is finished. Rows whose lease ran out after their retry window are failed
   * instead. One transaction.
   */
  claim(now: number, leaseUntil: number, limit: number, inFlight: ReadonlyMap<string, number>, perTarget: number): Promise<Delivery[]>;
  /** Records outcomes, many in one transaction. */
  settle(settled: readonly SettledAttempt[], now: number): Promise<void>;
  /** settle() then claim() in one transaction: the sender's single write per turn. */
  settleAndClaim(
    settled: readonly SettledAttempt[], now: number, leaseUntil: number, limit: number,
    inFlight: ReadonlyMap<string, number>, perTarget: number,
  ): Promise<Delivery[]>;
  /** Pending deliveries of a removed webhook are dropped. */
  cancelTarget(channel: DeliveryChannel, target: string, now: number): Promise<number>;
  /** When the next head of line becomes claimable, or null when none is waiting. */
  nextDueAt(): Promise<number | null>;
  byId(id: string): Promise<Delivery | null>;
  forCheck(checkId: string): Promise<Delivery[]>;
  /** The delivery log, newest first; `beforeSeq` is the cursor. */
  list(filter: DeliveryFilter, page: { limit: number; offset: number; beforeSeq: number | null }): Promise<Array<Delivery & { seq: number }>>;
  count(filter: DeliveryFilter): Promise<number>;
  /** A failed or cancelled delivery back to pending, due now, with a new retry window; false when it was not finished that way. */
  requeue(id: string, now: number, retryUntil: number): Promise<boolean>;
  /** When the last alert of `event` for the check was queued to the target, or null. */
  lastQueued(target: string, checkId: string, event: AlertEventType): Promise<number | null>;
  countByStatus(): Promise<Record<DeliveryStatus, number>>;
  /** Deletes alerts older than `before` whose deliveries are all finished; returns how many. */
  prune(before: number): Promise<number>;
}

/** What the domain monitor remembers between lookups (like SslAlertMemory per certificate). */
export interface DomainMemory {
  checkId: string;
  /** The expiry the alert state belongs to; null before the first successful lookup. */
  expiresAt: number | null;
  alerted: 'ok' | 'expiring' | 'expired';
  checkedAt: number | null;
  lastError: string | null;
}

export interface DomainWatchRepo {
  get(checkId: string): Promise<DomainMemory | null>;
  put(memory: DomainMemory): Promise<void>;
  all(): Promise<DomainMemory[]>;
}

export interface AlertStore {
  emailSettings: EmailSettingsRepo;
  webhooks: WebhookRepo;
  deliveries: DeliveryQueue;
  domainWatch: DomainWatchRepo;
  outbox: AlertOutboxRepo;
}
