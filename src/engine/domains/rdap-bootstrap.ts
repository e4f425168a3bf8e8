import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock.js';
import shipped from './data/rdap-dns.json' with { type: 'json' };

/**
 * The IANA RDAP bootstrap registry for domains (RFC 9224): which RDAP server answers for each
 * TLD. A snapshot ships in data/rdap-dns.json; the live copy is fetched from `rdap.bootstrapUrl`
 * when lookups need it and the last fetch is a day old. A failed fetch keeps what is loaded:
 * lookups go on with the shipped copy. `rdap.servers` (tld -> base URL) wins over both.
 */

const REFRESH_EVERY_MS = 24 * 60 * 60 * 1000;

/** tld (or longer suffix, lower-case) -> base URL ending in a slash; null when the file is not a bootstrap file. */
export function parseBootstrap(json: unknown): Map<string, string> | null {
  const services = (json as { services?: unknown })?.services;
  if (!Array.isArray(services)) return null;
  const out = new Map<string, string>();
  for (const entry of services) {
    if (!Array.isArray(entry) || !Array.isArray(entry[0]) || !Array.isArray(entry[1])) continue;
    const urls = (entry[1] as unknown[]).filter((u): u is string => typeof u === 'string');
    // RFC 9224 §3: prefer https when a service lists several.
    const base = urls.find((u) => u.startsWith('https://')) ?? urls[0];
    if (!base) continue;
    for (const tld of entry[0] as unknown[]) {
      if (typeof tld === 'string' && tld) out.set(tld.toLowerCase(), withSlash(base));
    }
  }
  return out.size > 0 ? out : null;
}

const withSlash = (url: string): string => (url.endsWith('/') ? url : `${url}/`);

export interface RdapBootstrapOptions {
  overrides: Record<string, string>;
  url: string | null;
  timeoutMs: number;
  clock: Clock;
  log: Logger;
}

export class RdapBootstrap {
  private servers: Map<string, string>;
  private readonly overrides: Map<string, string>;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<void> | null = null;
  /** `shipped` or the publication date of the live copy in use. */
  source = 'shipped';

  constructor(private readonly opts: RdapBootstrapOptions) {
    this.servers = parseBootstrap(shipped) ?? new Map();
    this.overrides = new Map(Object.entries(opts.overrides).map(([k, v]) => [k.toLowerCase().replace(/^\./, ''), withSlash(v)]));
  }

  /** The base URL for a domain: the longest matching suffix, overrides first. */
  serverFor(domain: string): string | null {
    const labels = domain.toLowerCase().split('.');
    for (let i = 1; i < labels.length; i++) {
      const suffix = labels.slice(i).join('.');
      const base = this.overrides.get(suffix) ?? this.servers.get(suffix);
      if (base) return base;
    }
    return null;
  }

  /** Fetches the live registry if the last attempt is a day old; never throws. */
  refreshIfStale(): Promise<void> {
    if (this.opts.url === null || this.opts.clock.now() - this.fetchedAt < REFRESH_EVERY_MS) return Promise.resolve();
    this.refreshing ??= this.refresh(this.opts.url).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async refresh(url: string): Promise<void> {
    this.fetchedAt = this.opts.clock.now();
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(this.opts.timeoutMs), headers: { accept: 'application/json' } });
      if (!res.ok) throw new Error(`answered ${res.status}`);
      const json = (await res.json()) as { publication?: unknown };
      const servers = parseBootstrap(json);
      if (!servers) throw new Error('not an RDAP bootstrap file');
      this.servers = servers;
      this.source = typeof json.publication === 'string' ? json.publication : 'live';
      this.opts.log.info({ tlds: servers.size, publication: this.source }, 'RDAP bootstrap registry refreshed');
    } catch (err) {
      this.opts.log.warn({ err: (err as Error).message }, 'RDAP bootstrap refresh failed; using the copy already loaded');
    }
  }
}
