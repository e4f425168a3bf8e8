import { VERSION } from '../../version.js';
import type { AlertContent } from '../alert-content.js';
import type { Webhook } from '../../store/alert-store.js';
import { vendorRequest } from '../formats/index.js';
import { SIGNATURE_HEADER, signBody } from '../signing.js';

export interface SignedRequest {
  url: string;
  method: 'POST' | 'PUT';
  headers: Record<string, string>;
  /** The exact bytes sent, and signed. */
  body: string;
}

/** One delivery as it goes on the wire: the vendor's body, the Vigil headers, the signature. */
export function webhookRequest(hook: Pick<Webhook, 'url' | 'webhookType' | 'secret'>, content: AlertContent, deliveryId: string): SignedRequest {
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
