/** What a vendor format asks to send; signing and the Vigil headers are added around it. */
export interface VendorRequest {
  url: string;
  /** POST unless the vendor's API says otherwise (Matrix sends with PUT). */
  method?: 'POST' | 'PUT';
  headers?: Record<string, string>;
  /** JSON, or a string sent as plain text. */
  body: unknown;
}

/** The webhook cannot work as configured (a credential is missing): retrying will not help. */
export class MisconfiguredWebhook extends Error {}

/*
 * PagerDuty, Opsgenie and Pushover take their credentials from the webhook URL's query string
 * (decisions §8). They are moved into the request (body or header) and the URL posted to is
 * the endpoint alone, so no credential travels in a request line a proxy might log.
 */

export function credential(url: URL, names: readonly string[], what: string): string {
  for (const name of names) {
    const value = url.searchParams.get(name);
    if (value) return value;
  }
  throw new MisconfiguredWebhook(`the webhook URL needs ?${names[0]}=<${what}> in its query string`);
}

export function optionalParam(url: URL, name: string): string | null {
  const value = url.searchParams.get(name);
  return value ? value : null;
}

/** Origin and path, query and fragment dropped; the vendor's usual path when none is given. */
export function endpoint(url: URL, defaultPath: string): string {
  const path = url.pathname === '/' || url.pathname === '' ? defaultPath : url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path}`;
}
