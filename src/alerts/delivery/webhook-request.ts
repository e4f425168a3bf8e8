import { VERSION } from '../../version.js';
import type { AlertContent } from '../alert-content.js';
import type { HookTarget } from './webhook-poster.js';
import { vendorRequest } from '../formats/index.js';
import { SIGNATURE_HEADER, signBody } from '../signing.js';

export interface SignedRequest {
  url: string;
  method: 'POST' | 'PUT';
  headers: Record<string, string>;
  /** The exact bytes sent, and signed. */
  body: string;
}

/** A status page's notice to a webhook subscriber: the stored JSON itself, signed. */
export function noticeRequest(hook: HookTarget, contentJson: string, deliveryId: string): SignedRequest {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': `Vigil/${VERSION}`,
    'X-Vigil-Event': (JSON.parse(contentJson) as { event: string }).event,
    'X-Vigil-Delivery': deliveryId,
  };
  if (hook.secret) headers[SIGNATURE_HEADER] = signBody(hook.secret, contentJson);
  return { url: hook.url, method: 'POST', headers, body: contentJson };
}

/** What a subscriber webhook's verification carries as `type` and `X-Vigil-Event` (issue 34). */
export const VERIFY_EVENT = 'subscription.verify';

/**
 * The verification of a subscriber webhook: `{"type": "subscription.verify", "challenge"}`,
 * signed with the subscriber's secret like every notice it would receive.
 */
export function verificationRequest(hook: { url: string; secret: string }, challenge: string, deliveryId: string): SignedRequest {
  const body = JSON.stringify({ type: VERIFY_EVENT, challenge });
  return {
    url: hook.url,
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': `Vigil/${VERSION}`,
      'X-Vigil-Event': VERIFY_EVENT,
      'X-Vigil-Delivery': deliveryId,
      [SIGNATURE_HEADER]: signBody(hook.secret, body),
    },
    body,
  };
}

/** One delivery as it goes on the wire: the vendor's body, the Vigil headers, the signature. */
export function webhookRequest(hook: HookTarget, content: AlertContent, deliveryId: string): SignedRequest {
  if (hook.webhookType === 'subscriber') return noticeRequest(hook, JSON.stringify(content), deliveryId);
  const v = vendorRequest(hook.webhookType, hook.url, content, deliveryId);
  // A string body is plain text (ntfy); anything else goes as JSON.
  const text = typeof v.body === 'string';
  const body = text ? (v.body as string) : JSON.stringify(v.body);
  const headers: Record<string, string> = {
    'Content-Type': text ? 'text/plain; charset=utf-8' : 'application/json',
    'User-Agent': `Vigil/${VERSION}`,
    'X-Vigil-Event': content.event,
    'X-Vigil-Delivery': deliveryId,
    ...(content.reminder ? { 'X-Vigil-Reminder': 'true' } : {}),
    ...v.headers,
  };
  if (hook.secret) headers[SIGNATURE_HEADER] = signBody(hook.secret, body);
  return { url: v.url, method: v.method ?? 'POST', headers, body };
}
