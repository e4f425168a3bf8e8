import { VERSION } from '../../version.js';
import type { AlertContent } from '../alert-content.js';
import type { Webhook } from '../../store/alert-store.js';
import { vendorRequest } from '../formats/index.js';
import { SIGNATURE_HEADER, signBody } from '../signing.js';

export interface SignedRequest {
  url: string;
  headers: Record<string, string>;
  /** The exact bytes sent, and signed. */
  body: string;
}

/** One delivery as it goes on the wire: the vendor's body, the Vigil headers, the signature. */
export function webhookRequest(hook: Pick<Webhook, 'url' | 'webhookType' | 'secret'>, content: AlertContent, deliveryId: string): SignedRequest {
  const v = vendorRequest(hook.webhookType, hook.url, content);
  const body = JSON.stringify(v.body);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': `Vigil/${VERSION}`,
    'X-Vigil-Event': content.event,
    'X-Vigil-Delivery': deliveryId,
    ...v.headers,
  };
  if (hook.secret) headers[SIGNATURE_HEADER] = signBody(hook.secret, body);
  return { url: v.url, headers, body };
}
