import type { AlertContent } from '../alert-content.js';
import { alertMessage, type Severity } from './message.js';
import { credential, endpoint, type VendorRequest } from './vendor-request.js';

/**
 * Gotify (https://gotify.net/docs/pushmsg): POST /message with an application token. URL:
 * https://gotify.example.com/message?token=<app token>; the token goes in the X-Gotify-Key
 * header, not the request line.
 */

const PRIORITY: Record<Severity, number> = { critical: 8, warning: 5, ok: 2 };

export function gotifyRequest(webhookUrl: string, c: AlertContent): VendorRequest {
  const url = new URL(webhookUrl);
  const token = credential(url, ['token'], 'application token');
  const m = alertMessage(c);
  return {
    url: endpoint(url, '/message'),
    headers: { 'X-Gotify-Key': token },
    body: {
      title: m.title,
      message: [m.summary, '', ...m.facts.filter(([k]) => k !== 'Check').map(([k, v]) => `${k}: ${v}`)].join('\n'),
      priority: PRIORITY[m.severity],
      extras: { 'client::display': { contentType: 'text/plain' } },
    },
  };
}
