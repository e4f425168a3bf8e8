import type { Config } from '../config.js';
import type { PrivateRefusal } from '../domain/outbound-policy.js';
import type { SubscriberRepo } from '../store/subscribers.js';
import type { Delivery, NoticeEventType } from '../store/alert-store.js';
import type { AlertChannel, AttemptOutcome } from './channel.js';
import type { Mail, Mailer } from './delivery/mailer.js';
import { smtpFailure } from './email-channel.js';
import { deliverToWebhook } from './webhook-channel.js';
import type { WebhookPoster } from './delivery/webhook-poster.js';


/**
 * One notice as stored in the delivery queue and posted, exactly so, to webhook subscribers
 * (signed like alert webhooks). Emails are written from it.
 */
export interface PageNotice {
  event: NoticeEventType;
  timestamp: string;
  page: { id: string; title: string; url: string };
  incident?: {
    id: string;
    title: string;
    impact: string;
    status: string;
    checks: Array<{ id: string; name: string }>;
    update: { status: string; message: string; at: string };
  };
  /** A scheduled maintenance window (issue 27) of the page's checks: `startsAt` on a start, `endsAt` when known. */
  maintenance?: { id: string; title: string; checks: Array<{ id: string; name: string }>; startsAt: string | null; endsAt: string | null };
}

const STATUS_TEXT: Record<string, string> = { investigating: 'Investigating', identified: 'Identified', monitoring: 'Monitoring', resolved: 'Resolved' };

/** Where a subscriber's links lead (the token is the subscriber's own secret). */
export function subscriptionLink(publicUrl: string, token: string, action: 'confirm' | 'unsubscribe'): string {
  return `${publicUrl}/status-subscription/${token}/${action}`;
}

/**
 * The email of a notice: plain text (the operator wrote plain text), with the unsubscribe link
 * in the body and RFC 2369/8058 headers, so a mail client's unsubscribe button ends it in one POST.
 */
export function noticeMail(to: string, notice: PageNotice, unsubscribeUrl: string): Mail {
  const lines: string[] = [];
  let subject: string;
  if (notice.incident) {
    const i = notice.incident;
    const status = STATUS_TEXT[i.update.status] ?? i.update.status;
    subject = `[${notice.page.title}] ${i.title}: ${status}`;
    lines.push(i.title, `${status} · impact ${i.impact}`);
    if (i.checks.length) lines.push(`Affects ${i.checks.map((c) => c.name).join(', ')}`);
    lines.push('', i.update.message);
  } else {
    const m = notice.maintenance!;
    const started = notice.event === 'maintenance_started';
    subject = `[${notice.page.title}] ${m.title}: maintenance ${started ? 'started' : 'ended'}`;
    lines.push(`${m.title}: maintenance ${started ? `started at ${m.startsAt ?? notice.timestamp}${m.endsAt ? `, until ${m.endsAt}` : ''}` : `ended at ${m.endsAt ?? notice.timestamp}`}.`);
    if (m.checks.length) lines.push(`Affects ${m.checks.map((c) => c.name).join(', ')}`);
  }
  lines.push('', `${notice.page.title}: ${notice.page.url}`, '', `You subscribed to updates of this status page. Unsubscribe: ${unsubscribeUrl}`);
  return {
    to,
    subject,
    text: `${lines.join('\n')}\n`,
    headers: unsubscribeHeaders(unsubscribeUrl),
  };
}

/** The RFC 2369/8058 headers of a subscriber's message: a mail client's unsubscribe button ends it in one POST. */
const unsubscribeHeaders = (unsubscribeUrl: string): Record<string, string> => ({
  'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
});

/**
 * The double opt-in's message: the link that confirms, and what it is for. It has a way out too
 * (the unsubscribe link forgets an address not confirmed yet), like every message to subscribers.
 */
export function confirmationMail(to: string, notice: PageNotice, confirmUrl: string, unsubscribeUrl: string): Mail {
  return {
    to,
    subject: `Confirm your subscription to ${notice.page.title}`,
    text: `Someone, hopefully you, asked to receive updates of the status page ${notice.page.title} (${notice.page.url}) at this address.\n\n` +
      `To confirm, open this link and press Confirm:\n${confirmUrl}\n\nIf it was not you, ignore this message: nothing more will be sent. ` +
      `To have this address forgotten now: ${unsubscribeUrl}\n`,
    headers: unsubscribeHeaders(unsubscribeUrl),
  };
}

/** A notice to one email subscriber: only while the address is still subscribed and confirmed; the confirmation only while it is not. */
export class SubscriberEmailChannel implements AlertChannel {
  constructor(
    private readonly subscribers: Pick<SubscriberRepo, 'byId'>,
    private readonly mailer: Mailer,
    private readonly config: Pick<Config, 'publicUrl'>,
  ) {}

  async attempt(d: Delivery): Promise<AttemptOutcome> {
    if (!this.mailer.configured) return { kind: 'failed', status: null, error: 'email is not configured (smtp.url)', retryable: false };
    const sub = await this.subscribers.byId(d.target);
    const confirmation = d.event === 'subscription_confirmation';
    if (!sub) return { kind: 'cancelled', error: 'unsubscribed' };
    if (confirmation !== (sub.confirmedAt === null)) return { kind: 'cancelled', error: confirmation ? 'already confirmed' : 'not confirmed' };
    try {
      const notice = JSON.parse(d.contentJson) as PageNotice;
      const link = (action: 'confirm' | 'unsubscribe') => subscriptionLink(this.config.publicUrl, sub.token, action);
      await this.mailer.send(confirmation ? confirmationMail(sub.address, notice, link('confirm'), link('unsubscribe')) : noticeMail(sub.address, notice, link('unsubscribe')));
      return { kind: 'delivered', status: null };
    } catch (err) {
      return smtpFailure(err);
    }
  }
}

/** A notice to one webhook subscriber: the stored JSON, signed with the subscriber's secret; nothing before its receiver answered the verification (issue 34). */
export class SubscriberWebhookChannel implements AlertChannel {
  constructor(
    private readonly subscribers: Pick<SubscriberRepo, 'byId'>,
    private readonly client: WebhookPoster,
    /** The outbound policy's rule for subscriber webhooks (statusPages.subscriberWebhooks.allowPrivateTargets). */
    private readonly refusePrivate: PrivateRefusal | null,
  ) {}

  async attempt(d: Delivery, signal: AbortSignal): Promise<AttemptOutcome> {
    const sub = await this.subscribers.byId(d.target);
    if (!sub) return { kind: 'cancelled', error: 'unsubscribed' };
    if (sub.confirmedAt === null) return { kind: 'cancelled', error: 'not verified' };
    return deliverToWebhook(this.client, { url: sub.address, webhookType: 'subscriber', secret: sub.secret, refusePrivate: this.refusePrivate }, d, signal);
  }
}
