import type { TestOidcProvider } from './oidc-provider.js';

/** Cookies per host, path ignored (every cookie of a host is sent back to it: enough for tests). */
export class CookieJar {
  private readonly hosts = new Map<string, Map<string, string>>();

  take(url: string, res: Response): void {
    const host = new URL(url).host;
    const jar = this.hosts.get(host) ?? new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0/i.test(line) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    this.hosts.set(host, jar);
  }

  header(url: string): string {
    return [...(this.hosts.get(new URL(url).host) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  get(url: string, name: string): string | undefined {
    return this.hosts.get(new URL(url).host)?.get(name);
  }
}

export interface SsoOutcome {
  /** Where Vigil sent the browser at the end (the dashboard, with a route or an error). */
  location: string;
  jar: CookieJar;
  /** Every URL visited, in order. */
  visited: string[];
}

/**
 * Walks a single sign-on as a browser would, with fetch: Vigil's start, the provider's login page
 * (filled with `login` and any password), back to Vigil's callback, until Vigil redirects to the
 * dashboard. `tamper` may change the callback URL before it is followed. `start` is a path on Vigil,
 * or a whole URL (the provider's, for a link a member started with the API).
 */
export async function walkSso(vigilUrl: string, provider: TestOidcProvider, login: string, opts: { start?: string; jar?: CookieJar; tamper?: (callback: URL) => URL } = {}): Promise<SsoOutcome> {
  const jar = opts.jar ?? new CookieJar();
  const visited: string[] = [];
  let url = opts.start?.startsWith('http') ? opts.start : `${vigilUrl}${opts.start ?? '/v1/auth/oidc/start'}`;
  let init: RequestInit = {};
  for (let hop = 0; hop < 20; hop++) {
    visited.push(url);
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: jar.header(url) } });
    jar.take(url, res);
    init = {};
    if (res.status >= 300 && res.status < 400) {
      let next = new URL(res.headers.get('location')!, url);
      if (next.pathname.endsWith('/v1/auth/oidc/callback') && opts.tamper) next = opts.tamper(next);
      if (!next.href.startsWith(provider.issuer) && !next.pathname.startsWith('/v1/auth/oidc/')) return { location: next.href, jar, visited };
      url = next.href;
      continue;
    }
    const page = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    if (res.status !== 200 || !action) throw new Error(`unexpected answer ${res.status} at ${url}: ${page.slice(0, 300)}`);
    url = new URL(action.replace(/&amp;/g, '&'), url).href;
    const fields: Record<string, string> = /name="login"/.test(page) ? { prompt: 'login', login, password: 'any' } : { prompt: 'consent' };
    init = { method: 'POST', body: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
  throw new Error(`single sign-on did not end: ${visited.join(' -> ')}`);
}
