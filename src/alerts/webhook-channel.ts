import type { AlertRouting } from './alert-routing.js';
import type { AlertChannel, AttemptOutcome } from './channel.js';
import { MisconfiguredWebhook } from './formats/vendor-request.js';
import { WebhookUnreachable } from './delivery/webhook-client.js';
import type { HookTarget, WebhookPoster } from './delivery/webhook-poster.js';
import type { Delivery } from '../store/alert-store.js';
import type { OutboundRules } from '../store/outbound-rules.js';

/** Answers worth another attempt; any other 4xx will not change by itself. */
export const retryableStatus = (status: number): boolean => status >= 500 || status === 408 || status === 429;

/**
 * Delivers to the webhook as it is now, read from the routing cache: a deleted or disabled one
 * gets nothing, nor does an account that is unclaimed by the time the attempt runs.
 */
export class WebhookChannel implements AlertChannel {
  constructor(
    private readonly routing: AlertRouting,
    private readonly client: WebhookPoster,
    private readonly outbound: Pick<OutboundRules, 'forAccount'>,
  ) {}

  async attempt(d: Parameters<AlertChannel['attempt']>[0], signal: AbortSignal): Promise<AttemptOutcome> {
    const targets = await this.routing.targets(d.accountId);
    if (!targets.claimed) return { kind: 'cancelled', error: 'account unclaimed' };
    const hook = targets.webhooks.find((w) => w.id === d.target);
    if (!hook) return { kind: 'cancelled', error: 'webhook deleted' };
    if (!hook.enabled) return { kind: 'cancelled', error: 'webhook disabled' };
    // The account's outbound rule goes with every delivery, applied where the worker connects.
    const refusePrivate = await this.outbound.forAccount(d.accountId);
    return deliverToWebhook(this.client, { ...hook, refusePrivate }, d, signal);
  }
}

/** One POST of a stored delivery to a webhook, its answer as an attempt's outcome. */
export async function deliverToWebhook(client: WebhookPoster, hook: HookTarget, d: Delivery, signal: AbortSignal): Promise<AttemptOutcome> {
  try {
    const { status, retryAfterMs } = await client.send(hook, d.contentJson, d.id, signal);
    if (status >= 200 && status < 300) return { kind: 'delivered', status };
    const retryable = retryableStatus(status);
    return { kind: 'failed', status, error: `receiver answered ${status}`, retryable, ...(retryable && retryAfterMs !== null ? { retryAfterMs } : {}) };
  } catch (err) {
    if (err instanceof MisconfiguredWebhook) return { kind: 'failed', status: null, error: err.message, retryable: false };
    if (err instanceof WebhookUnreachable) return { kind: 'failed', status: null, error: err.message, retryable: true };
    throw err;
  }
}
