import { randomBytes } from 'node:crypto';
import { newId } from '../domain/secrets.js';
import { WebhookClient, WebhookUnreachable } from './delivery/webhook-client.js';
import { verificationRequest } from './delivery/webhook-request.js';

/** The refusal a subscriber webhook's private target gets, or null when the operator allows such targets. */
export function subscriberPrivateTargetRefusal(config: {
  probes: { blockPrivateAddresses: boolean };
  statusPages: { subscriberWebhooks: { allowPrivateTargets: boolean } };
}): string | null {
  // Anonymous visitors choose these URLs: refused unless the operator allows them, and always under probes.blockPrivateAddresses.
  if (config.probes.blockPrivateAddresses) return 'url resolves to a private address (blocked by probes.blockPrivateAddresses)';
  if (config.statusPages.subscriberWebhooks.allowPrivateTargets) return null;
  return 'url resolves to a loopback, private or link-local address, which status page subscribers may not reach (statusPages.subscriberWebhooks.allowPrivateTargets)';
}

/** More than any echo of a challenge needs; the rest of an answer is not read. */
const ANSWER_LIMIT = 4096;

export type Verification = { kind: 'verified' } | { kind: 'failed'; reason: string };

/**
 * Whether a receiver proved it wants the notices: a 2xx answer whose body is the challenge, as
 * plain text or as JSON `{"challenge": "…"}` (surrounding whitespace ignored).
 */
export function echoesChallenge(status: number, body: string, challenge: string): boolean {
  if (status < 200 || status > 299) return false;
  const text = body.trim();
  if (text === challenge) return true;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && Object.hasOwn(parsed, 'challenge') && (parsed as { challenge: unknown }).challenge === challenge;
  } catch {
    return false;
  }
}

/**
 * Issue 34: a status page's webhook subscriber is confirmed only once its receiver echoes a
 * signed challenge, so nobody can point Vigil's notices at a URL that did not ask for them. One
 * attempt per subscription, on its own connection pool with the private-address rule applied
 * at connect time (as deliveries to subscribers are; see alerts-module.ts).
 */
export class SubscriberVerifier {
  private readonly client: WebhookClient;

  constructor(opts: { timeoutMs: number; blockPrivateAddresses: boolean }) {
    this.client = new WebhookClient({ timeoutMs: opts.timeoutMs, blockPrivateAddresses: opts.blockPrivateAddresses, connectionsPerOrigin: 2 });
  }

  async verify(hook: { url: string; secret: string }): Promise<Verification> {
    const challenge = randomBytes(32).toString('hex');
    try {
      const answer = await this.client.exchange(verificationRequest(hook, challenge, newId('dlv')), ANSWER_LIMIT);
      if (echoesChallenge(answer.status, answer.body, challenge)) return { kind: 'verified' };
      return { kind: 'failed', reason: `the receiver answered ${answer.status} without the challenge` };
    } catch (err) {
      return { kind: 'failed', reason: err instanceof WebhookUnreachable ? err.message : 'request failed' };
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
