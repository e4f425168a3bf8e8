import { randomBytes } from 'node:crypto';
import type { PrivateRefusal } from '../domain/outbound-policy.js';
import { newId } from '../domain/secrets.js';
import { WebhookClient, WebhookUnreachable } from './delivery/webhook-client.js';
import { verificationRequest } from './delivery/webhook-request.js';

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

  constructor(private readonly opts: { timeoutMs: number; rule: PrivateRefusal | null; dnsServers: readonly string[] }) {
    this.client = new WebhookClient({ timeoutMs: opts.timeoutMs, blockPrivateAddresses: false, connectionsPerOrigin: 2, dnsServers: opts.dnsServers });
  }

  async verify(hook: { url: string; secret: string }): Promise<Verification> {
    const challenge = randomBytes(32).toString('hex');
    try {
      const answer = await this.client.exchange(verificationRequest(hook, challenge, newId('dlv')), ANSWER_LIMIT, this.opts.rule);
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
