import { errors } from '../domain/errors.js';
import { refusalMessage, type PrivateRefusal } from '../domain/outbound-policy.js';
import { resolvesToPrivate } from '../util/outbound-guard.js';

/**
 * Webhook URLs act like passwords (spec 2.9): stored whole, shown and logged cut to scheme and
 * host. The outbound policy (docs/outbound-policy.md) is checked here at create time, for early
 * feedback, and again at every delivery's connect, which is what counts.
 */

const MAX_URL_LENGTH = 2048;

/** The only form a webhook URL ever leaves the alerts layer in: `https://hooks.slack.com`. */
export function cutUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * The URL a create body gave, as an https URL (or http when `allowHttp`: receivers on a private
 * network, issue 17), or the 400 that says why not.
 */
export function parseWebhookUrl(raw: string, allowHttp = false): URL {
  const text = raw.trim();
  if (text.length === 0) throw errors.badRequest('url is required');
  if (text.length > MAX_URL_LENGTH) throw errors.badRequest(`url must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw errors.badRequest('url is not a valid URL');
  }
  if (url.protocol === 'http:' && !allowHttp) {
    throw errors.badRequest('url must be an https URL; to allow plain http receivers (on a private network), set alerts.allowHttpWebhooks to true in the server config');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw errors.badRequest(`url must be an https URL${allowHttp ? ' or an http URL' : ''}`);
  if (!url.hostname) throw errors.badRequest('url has no host');
  return url;
}

/** Duplicate detection: scheme and host lower-cased and default port dropped (URL does both), fragment ignored. */
export function webhookUrlKey(url: URL): string {
  const u = new URL(url.href);
  u.hash = '';
  return u.href;
}

/**
 * Under a rule, refuses (400) a webhook whose host is, or resolves to, a private address now; a
 * name that does not resolve now is accepted (the delivery's connect refuses it later).
 */
export async function assertPublicHost(url: URL, rule: PrivateRefusal | null, dnsServers: readonly string[]): Promise<void> {
  if (rule !== null && (await resolvesToPrivate(url.hostname, dnsServers))) {
    throw errors.badRequest(refusalMessage(rule, 'url'));
  }
}
