import type { PrivateRefusal } from '../../domain/outbound-policy.js';
import type { Webhook } from '../../store/alert-store.js';
import type { ReceiverAnswer } from './webhook-client.js';

/** What the delivery worker needs of a webhook to render, sign and send to it. */
export type HookTarget = Pick<Webhook, 'url' | 'secret'> & {
  /** `subscriber`: a status page's webhook subscriber, sent the stored notice as it is (issue 29). */
  webhookType: Webhook['webhookType'] | 'subscriber';
  /**
   * The outbound rule of this delivery (docs/outbound-policy.md), applied at connect time
   * together with probes.blockPrivateAddresses: `signup` for an agent-signup account's webhook,
   * `subscriber` for a status page's webhook subscriber; absent or null: the operator's rule only.
   */
  refusePrivate?: PrivateRefusal | null;
};

/**
 * Sends one alert to one webhook: renders the vendor format, signs it and POSTs it. Resolves
 * with the receiver's answer (HTTP status, Retry-After); rejects with MisconfiguredWebhook (a credential missing
 * from the URL: final) or WebhookUnreachable (no answer: worth a retry).
 */
export interface WebhookPoster {
  send(hook: HookTarget, contentJson: string, deliveryId: string, signal?: AbortSignal): Promise<ReceiverAnswer>;
  close(): Promise<void>;
}
