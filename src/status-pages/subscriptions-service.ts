import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import { subscriberRule } from '../domain/outbound-policy.js';
import { newId } from '../domain/secrets.js';
import { AuditLog, type AuditSource, type AuditTarget } from '../core/audit-log.js';
import type { Principal } from '../core/principal.js';
import { SYSTEM_ACTOR } from '../domain/people.js';
import { offsetPage } from '../core/pagination.js';
import { assertPublicHost, cutUrl, parseWebhookUrl } from '../alerts/webhook-url.js';
import { subscriptionLink, type PageNotice } from '../alerts/page-notices.js';
import type { Verification } from '../alerts/subscriber-webhooks.js';
import type { NewAlert, NoticeEventType } from '../store/alert-store.js';
import type { Incident, IncidentUpdate } from '../store/incidents.js';
import type { StatusPage, StatusPageRepo } from '../store/status-pages.js';
import type { PendingCutoffs, Subscriber, SubscriberCounts, SubscriberRepo } from '../store/subscribers.js';
import type { Store } from '../store/store.js';
import { parseSignupEmail } from '../oauth/email-address.js';
import { RateLimiter } from '../util/rate-limiter.js';
import type { ScopedJob } from '../util/job-runner.js';
import type { IncidentChange, IncidentsService } from './incidents-service.js';
import type { StatusPagesService } from './status-pages-service.js';
import type { ChecksService, WindowChange } from '../core/checks-service.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** An address not confirmed within this long is dropped (and may subscribe again). */
export const PENDING_FOR_MS = 48 * HOUR;
/** A webhook whose receiver has not answered its challenge within this long is dropped (issue 34). */
export const WEBHOOK_PENDING_FOR_MS = 24 * HOUR;
/** Subscribe attempts per client address (IP) per 10 minutes, over all pages. */
export const PER_CLIENT = { limit: 10, windowMs: 10 * MINUTE };
/** Subscribe attempts per email address or webhook URL per hour, over all pages. */
export const PER_ADDRESS = { limit: 3, windowMs: 60 * MINUTE };
const TOKEN = /^[0-9a-f]{64}$/;
/**
 * Who confirms, unsubscribes or subscribes a webhook through the public page and links: not a
 * member, key or agent, only whoever holds the link (or posts the form), so Vigil records it.
 */
const SUBSCRIBER: AuditSource = { actor: { ...SYSTEM_ACTOR, id: 'subscriber', name: 'status page subscriber' } };

/** A subscriber as the owner's list shows it: an email address, or a webhook URL cut to scheme and host (its path may hold a secret). */
function subscriberTarget(s: Subscriber): AuditTarget {
  return { kind: 'subscriber', id: s.id, name: s.kind === 'email' ? s.address : cutUrl(s.address) };
}
const SECRET = /^[\x21-\x7e]{16,128}$/;

/** What the subscribe form sends (application/x-www-form-urlencoded). */
export interface SubscribeForm {
  kind?: string;
  email?: string;
  url?: string;
  secret?: string;
}

export type Subscribed =
  /** A confirmation link is on its way (or the address already follows the page: the same answer, so nobody learns who does). */
  | { kind: 'email'; page: StatusPage }
  /**
   * Pending until the receiver answers the verification sent right after this. The secret is
   * shown once, when Vigil chose it; so is the link that ends the subscription.
   */
  | { kind: 'webhook'; page: StatusPage; secret: string | null; unsubscribeUrl: string };

/** Checks a webhook subscriber's receiver wants the notices (alerts/subscriber-webhooks.ts). */
export interface WebhookVerifier {
  verify(hook: { url: string; secret: string }): Promise<Verification>;
}

/** Where notices are queued: the alerts layer's persisted, retried delivery queue. */
export interface NoticeQueue {
  queueNotices(notices: readonly NewAlert[]): Promise<void>;
  retryUntil(now: number): number;
}

const NOTICE_OF: Partial<Record<IncidentChange, NoticeEventType>> = {
  opened: 'incident_opened',
  updated: 'incident_updated',
  resolved: 'incident_resolved',
};

/**
 * Who follows a status page (issue 29): email addresses after double opt-in, and webhooks. The
 * subscribe form is rate-limited per client and per address; a page holds at most
 * `statusPages.maxSubscribers`. An incident opened, updated or resolved becomes one notice,
 * queued for every confirmed subscriber after the change has committed; nothing here waits on
 * SMTP or HTTP.
 */
export class SubscriptionsService {
  private readonly perClient: RateLimiter;
  private readonly perAddress: RateLimiter;
  private readonly audit: AuditLog;
  /** Verifications under way (tests wait for them; a stop closes their connections, leaving them pending). */
  private readonly verifying = new Set<Promise<void>>();

  constructor(
    private readonly deps: {
      store: Pick<Store, 'checks' | 'transaction' | 'audit'>;
      subscribers: SubscriberRepo;
      pages: Pick<StatusPageRepo, 'byId' | 'bySlug' | 'slugsListing'>;
      /** Scheduled maintenance windows starting and ending (issue 27), once committed. */
      windows?: Pick<ChecksService, 'onWindowChange'>;
      statusPages: Pick<StatusPagesService, 'get' | 'url'>;
      incidents: Pick<IncidentsService, 'onChange'>;
      notices: NoticeQueue;
      verifier: WebhookVerifier;
      config: Config;
      clock: Clock;
      onError?: (err: unknown) => void;
    },
  ) {
    this.perClient = new RateLimiter(deps.clock, PER_CLIENT.windowMs);
    this.perAddress = new RateLimiter(deps.clock, PER_ADDRESS.windowMs);
    this.audit = new AuditLog(deps.store, deps.clock);
    deps.incidents.onChange((page, incident, change, update) => {
      const event = NOTICE_OF[change];
      if (event && update) this.notifyIncident(page, incident, event, update).catch((err: unknown) => deps.onError?.(err));
    });
    deps.windows?.onWindowChange((changes) => void this.notifyWindows(changes).catch((err: unknown) => deps.onError?.(err)));
  }

  /** The public form: an email address (confirmed by a link before anything else is sent) or a webhook URL. */
  async subscribe(slug: string, form: SubscribeForm, client: string): Promise<Subscribed> {
    const page = await this.deps.pages.bySlug(slug);
    if (!page) throw errors.notFound(`No status page ${slug}`);
    this.perClient.take(`client:${client}`, PER_CLIENT.limit);
    if (form.kind === 'webhook') return this.subscribeWebhook(page, form, client);
    if (form.kind !== undefined && form.kind !== 'email') throw errors.badRequest('kind must be email or webhook');
    return this.subscribeEmail(page, form.email ?? '');
  }

  /** The subscription a link's token names, with its page; null for a token that names none. */
  async byToken(token: string): Promise<{ subscriber: Subscriber; page: StatusPage } | null> {
    if (!TOKEN.test(token)) return null;
    const subscriber = await this.deps.subscribers.byToken(token);
    const page = subscriber ? await this.deps.pages.byId(subscriber.pageId) : null;
    return subscriber && page ? { subscriber, page } : null;
  }

  async confirm(token: string): Promise<StatusPage | null> {
    const found = await this.byToken(token);
    if (!found) return null;
    if (found.subscriber.confirmedAt === null) {
      await this.deps.store.transaction(async () => {
        await this.deps.subscribers.confirm(found.subscriber.id, this.deps.clock.now());
        await this.audit.record(SUBSCRIBER, found.page.accountId, 'subscriber.confirm', subscriberTarget(found.subscriber), ['confirmedAt']);
      });
    }
    return found.page;
  }

  /** One POST ends it (RFC 8058 one-click included); an unknown token is answered the same way. */
  async unsubscribe(token: string): Promise<StatusPage | null> {
    const found = await this.byToken(token);
    if (!found) return null;
    await this.deps.store.transaction(async () => {
      await this.deps.subscribers.delete(found.subscriber.id);
      await this.audit.record(SUBSCRIBER, found.page.accountId, 'subscriber.unsubscribe', subscriberTarget(found.subscriber));
    });
    return found.page;
  }

  /**
   * Drops what is still pending past its time: webhooks after 24 hours, email addresses after
   * 48. Runs on every central (a conditional delete, harmless twice or at once); returns how many.
   */
  async expirePending(now = this.deps.clock.now()): Promise<number> {
    const cutoffs = this.cutoffs(now);
    return (await this.deps.subscribers.expirePending('webhook', cutoffs.webhook)) + (await this.deps.subscribers.expirePending('email', cutoffs.email));
  }

  /**
   * Scope: every central, each on its own schedule. Safe twice or at once: the sweep is a
   * conditional delete of what is still pending past its time, decided by the database row.
   */
  jobs(): ScopedJob[] {
    return [{ name: 'subscribers-expiry', scope: 'one-central', everyMs: 10 * MINUTE, jitterMs: MINUTE, atStart: true, run: () => this.expirePending() }];
  }

  /** Resolves once every verification started so far has ended. */
  async verificationsSettled(): Promise<void> {
    while (this.verifying.size > 0) await Promise.all([...this.verifying]);
  }

  /** The owner's view: subscribers oldest first (webhook URLs cut to scheme and host), and the counts. */
  async list(principal: Principal, pageId: string, query: { limit?: number; page?: number }): Promise<{ data: Subscriber[]; counts: SubscriberCounts; page: number; limit: number }> {
    const page = await this.deps.statusPages.get(principal, pageId);
    const { limit, page: number, offset } = offsetPage(query);
    const data = await this.deps.subscribers.list(page.id, { limit, offset });
    return { data, counts: await this.deps.subscribers.counts(page.id), page: number, limit };
  }

  async remove(principal: Principal, pageId: string, subscriberId: string): Promise<void> {
    const page = await this.deps.statusPages.get(principal, pageId);
    const subscriber = await this.deps.subscribers.byId(subscriberId);
    if (!subscriber || subscriber.pageId !== page.id) throw errors.notFound(`Subscriber ${subscriberId} not found on status page ${page.id}`);
    await this.deps.store.transaction(async () => {
      await this.deps.subscribers.delete(subscriber.id);
      await this.audit.record(principal, page.accountId, 'subscriber.remove', subscriberTarget(subscriber));
    });
  }

  private async subscribeEmail(page: StatusPage, raw: string): Promise<Subscribed> {
    // parseSignupEmail refuses whitespace, line breaks and anything else a header could be forged with.
    const email = raw.length <= 254 ? parseSignupEmail(raw) : null;
    if (!email) throw errors.badRequest('email must be an email address such as you@example.com');
    this.perAddress.take(`email:${email.address}`, PER_ADDRESS.limit);
    const outcome = await this.add(page, { kind: 'email', address: email.address, secret: null, confirmedAt: null });
    // A pending address gets its link (again); a confirmed one gets nothing, and the same answer.
    if (outcome.subscriber.confirmedAt === null) this.queueConfirmation(page, outcome.subscriber);
    return { kind: 'email', page };
  }

  /**
   * Issue 34: only on a page whose owner turned webhook subscriptions on, never to a private
   * target unless the operator allows it, and pending until the receiver echoes the signed
   * challenge sent once this commits. Sending the form again for a URL still pending replaces
   * that subscription (new secret, new link) and sends a new challenge: how a failed
   * verification is retried.
   */
  private async subscribeWebhook(page: StatusPage, form: SubscribeForm, client: string): Promise<Subscribed> {
    if (!page.webhookSubscriptions) {
      throw errors.forbidden('This status page does not take webhook subscriptions (its owner has not turned them on); email updates and feeds are open to everyone');
    }
    const url = parseWebhookUrl(form.url ?? '', this.deps.config.alerts.allowHttpWebhooks);
    const chosen = form.secret?.trim() || null;
    if (chosen !== null && !SECRET.test(chosen)) throw errors.badRequest('secret must be 16 to 128 printable characters without spaces, or empty for one chosen for you');
    this.perAddress.take(`url:${url.href}`, PER_ADDRESS.limit);
    await assertPublicHost(url, subscriberRule(this.deps.config), this.deps.config.probes.dnsServers);
    const secret = chosen ?? randomBytes(32).toString('hex');
    const draft = { kind: 'webhook', address: url.href, secret, confirmedAt: null } as const;
    const outcome = await this.deps.store.transaction(async () => {
      let added = await this.add(page, draft);
      if (added.kind === 'exists') {
        if (added.subscriber.confirmedAt !== null) throw errors.conflict(`${cutUrl(url.href)}… already follows this status page`);
        // A pending subscription has been sent nothing but its challenge: a new attempt takes its place.
        await this.deps.subscribers.delete(added.subscriber.id);
        added = await this.add(page, draft);
      }
      await this.audit.record({ ...SUBSCRIBER, address: client }, page.accountId, 'subscriber.create', subscriberTarget(added.subscriber), chosen === null ? ['url'] : ['url', 'secret']);
      return added;
    });
    this.startVerification(page, outcome.subscriber);
    const unsubscribeUrl = subscriptionLink(this.deps.config.publicUrl, outcome.subscriber.token, 'unsubscribe');
    return { kind: 'webhook', page, secret: chosen === null ? secret : null, unsubscribeUrl };
  }

  private startVerification(page: StatusPage, subscriber: Subscriber): void {
    const run = this.verify(page, subscriber)
      .catch((err: unknown) => this.deps.onError?.(err))
      .finally(() => this.verifying.delete(run));
    this.verifying.add(run);
  }

  /** One attempt: confirmed when the receiver echoes the challenge; otherwise it stays pending until it expires or is sent again. */
  private async verify(page: StatusPage, subscriber: Subscriber): Promise<void> {
    const outcome = await this.deps.verifier.verify({ url: subscriber.address, secret: subscriber.secret! });
    if (outcome.kind !== 'verified') return;
    await this.deps.store.transaction(async () => {
      // Conditional: a subscription replaced or removed meanwhile is not confirmed by its old challenge.
      if (await this.deps.subscribers.confirm(subscriber.id, this.deps.clock.now())) {
        await this.audit.record(SUBSCRIBER, page.accountId, 'subscriber.confirm', subscriberTarget(subscriber), ['confirmedAt']);
      }
    });
  }

  private async add(page: StatusPage, draft: Pick<Subscriber, 'kind' | 'address' | 'secret' | 'confirmedAt'>): Promise<{ kind: 'added' | 'exists'; subscriber: Subscriber }> {
    const now = this.deps.clock.now();
    const subscriber: Subscriber = { id: newId('sub'), pageId: page.id, token: randomBytes(32).toString('hex'), createdAt: now, ...draft };
    const outcome = await this.deps.subscribers.add(subscriber, this.deps.config.statusPages.maxSubscribers, this.cutoffs(now));
    if (outcome.kind === 'full') throw errors.conflict('This status page has as many subscribers as it may have (statusPages.maxSubscribers)');
    return outcome;
  }

  private cutoffs(now: number): PendingCutoffs {
    return { email: now - PENDING_FOR_MS, webhook: now - WEBHOOK_PENDING_FOR_MS };
  }

  /** Who hears of a page's notice: its confirmed subscribers, webhooks only while the page takes them. */
  private async audience(page: StatusPage): Promise<Subscriber[]> {
    const confirmed = await this.deps.subscribers.confirmed(page.id);
    return page.webhookSubscriptions ? confirmed : confirmed.filter((s) => s.kind !== 'webhook');
  }

  private queueConfirmation(page: StatusPage, subscriber: Subscriber): void {
    const now = this.deps.clock.now();
    const notice: PageNotice = { event: 'subscription_confirmation', timestamp: new Date(now).toISOString(), page: this.pageOf(page) };
    this.queue(page, notice, [subscriber], now).catch((err: unknown) => this.deps.onError?.(err));
  }

  private async notifyIncident(page: StatusPage, incident: Incident, event: NoticeEventType, update: IncidentUpdate): Promise<void> {
    const subscribers = await this.audience(page);
    if (subscribers.length === 0) return;
    const names = new Map<string, string>();
    for (const id of incident.checkIds) names.set(id, (await this.checkName(id)) ?? id);
    const now = this.deps.clock.now();
    const notice: PageNotice = {
      event,
      timestamp: new Date(now).toISOString(),
      page: this.pageOf(page),
      incident: {
        id: incident.id,
        title: incident.title,
        impact: incident.impact,
        status: incident.status,
        checks: incident.checkIds.map((id) => ({ id, name: names.get(id)! })),
        update: { status: update.status, message: update.message, at: new Date(update.at).toISOString() },
      },
    };
    await this.queue(page, notice, subscribers, now);
  }

  /**
   * A window starting or ending for checks some pages list: one notice per page, window and
   * direction, naming the page's checks it covers. An end whose window this process did not see
   * start (a restart) is not announced: nobody can be told which window it was.
   */
  private async notifyWindows(changes: readonly WindowChange[]): Promise<void> {
    const groups = new Map<string, { page: StatusPage; change: WindowChange; checks: Array<{ id: string; name: string }> }>();
    for (const change of changes) {
      if (!change.window) continue;
      for (const slug of await this.deps.pages.slugsListing(change.check.id)) {
        const page = await this.deps.pages.bySlug(slug);
        if (!page || page.accountId !== change.check.accountId) continue;
        const key = `${page.id}:${change.window.id}:${change.on}`;
        const group = groups.get(key) ?? { page, change, checks: [] };
        group.checks.push({ id: change.check.id, name: change.check.name });
        groups.set(key, group);
      }
    }
    const now = this.deps.clock.now();
    for (const { page, change, checks } of groups.values()) {
      const subscribers = await this.audience(page);
      if (subscribers.length === 0) continue;
      const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
      const notice: PageNotice = {
        event: change.on ? 'maintenance_started' : 'maintenance_ended',
        timestamp: new Date(now).toISOString(),
        page: this.pageOf(page),
        maintenance: {
          id: change.window!.id,
          title: change.window!.title,
          checks,
          startsAt: change.on ? iso(change.at) : null,
          endsAt: change.on ? iso(change.window!.end) : iso(change.at),
        },
      };
      await this.queue(page, notice, subscribers, now);
    }
  }

  private async checkName(id: string): Promise<string | null> {
    return (await this.deps.store.checks.byId(id))?.name ?? null;
  }

  private queue(page: StatusPage, notice: PageNotice, to: readonly Subscriber[], now: number): Promise<void> {
    return this.deps.notices.queueNotices([{
      accountId: page.accountId,
      checkId: page.id,
      event: notice.event,
      contentJson: JSON.stringify(notice),
      createdAt: now,
      retryUntil: this.deps.notices.retryUntil(now),
      deliveries: to.map((s) => ({ id: newId('dlv'), channel: s.kind === 'email' ? 'subscriber_email' : 'subscriber_webhook', target: s.id })),
    }]);
  }

  private pageOf(page: StatusPage): PageNotice['page'] {
    return { id: page.id, title: page.title, url: this.deps.statusPages.url(page) };
  }
}
