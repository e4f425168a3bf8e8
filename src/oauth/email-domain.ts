import { promises as dns } from 'node:dns';

/** The lookups deciding whether a domain can receive mail; node's dns.promises.Resolver fits. */
export interface MailDomainResolver {
  resolveMx(hostname: string): Promise<Array<{ exchange: string; priority: number }>>;
  resolve4(hostname: string): Promise<string[]>;
  resolve6(hostname: string): Promise<string[]>;
  resolveNs(hostname: string): Promise<string[]>;
}

/** `no` only on a DNS answer; anything short of an answer is `unknown` and lets the signup through. */
export type MailVerdict = 'yes' | 'no' | 'unknown';

/** Bounded, so a dead resolver delays a signup by seconds, not the default minute and more. */
export function systemMailDomainResolver(): MailDomainResolver {
  return new dns.Resolver({ timeout: 2_000, tries: 2 });
}

/** NXDOMAIN and "no records of this type": answers. Everything else (SERVFAIL, timeouts, no network) is not. */
const ANSWERED_EMPTY = new Set(['ENOTFOUND', 'ENODATA']);

type Lookup<T> = { records: T[] } | { empty: true } | { failed: true };

async function lookup<T>(query: () => Promise<T[]>): Promise<Lookup<T>> {
  try {
    const records = await query();
    return records.length ? { records } : { empty: true };
  } catch (err) {
    return ANSWERED_EMPTY.has((err as NodeJS.ErrnoException).code ?? '') ? { empty: true } : { failed: true };
  }
}

/**
 * Decisions §9: a domain cannot receive mail when it has a null MX (RFC 7505), or no MX and no
 * A/AAAA record (RFC 5321 §5.1 falls back to the address record). A DNS failure that is not an
 * answer does not reject, and neither does a resolver that denies the root zone exists: that is
 * a sandbox or captive resolver answering NXDOMAIN for everything, not an answer about the domain.
 */
export async function canReceiveMail(domain: string, resolver: MailDomainResolver): Promise<MailVerdict> {
  const mx = await lookup(() => resolver.resolveMx(domain));
  if ('failed' in mx) return 'unknown';
  if ('records' in mx) {
    const usable = mx.records.filter((r) => r.exchange !== '' && r.exchange !== '.');
    return usable.length ? 'yes' : 'no';
  }
  for (const family of [() => resolver.resolve4(domain), () => resolver.resolve6(domain)]) {
    const address = await lookup(family);
    if ('failed' in address) return 'unknown';
    if ('records' in address) return 'yes';
  }
  const root = await lookup(() => resolver.resolveNs('.'));
  return 'records' in root ? 'no' : 'unknown';
}
