import { isIP } from 'node:net';
import type { Check } from '../../domain/records.js';

/**
 * Which registered domain a check's expiry depends on. No public suffix list ships with
 * Vigil: the registrable name is the last two labels, or three under the common second-level
 * registries below (example.co.uk). A name one level off only costs an RDAP "not found".
 */
const SECOND_LEVEL = new Set([
  'co.uk', 'org.uk', 'me.uk', 'ltd.uk', 'plc.uk', 'net.uk', 'ac.uk', 'gov.uk', 'sch.uk',
  'com.au', 'net.au', 'org.au', 'edu.au', 'gov.au', 'id.au', 'asn.au',
  'co.nz', 'net.nz', 'org.nz', 'govt.nz', 'ac.nz',
  'co.jp', 'ne.jp', 'or.jp', 'ac.jp', 'go.jp', 'gr.jp',
  'com.br', 'net.br', 'org.br', 'gov.br', 'com.cn', 'net.cn', 'org.cn', 'gov.cn', 'com.hk', 'com.tw', 'com.sg',
  'com.mx', 'com.ar', 'com.co', 'com.pe', 'com.tr', 'com.ua', 'com.pl', 'com.my', 'com.ph', 'com.vn', 'com.sa', 'com.eg',
  'co.za', 'co.in', 'net.in', 'org.in', 'co.kr', 'or.kr', 'co.il', 'co.id', 'co.th', 'in.th', 'co.ke', 'com.ng',
]);

/** Names that never expire or are not in any registry (RFC 2606, RFC 6761, RFC 6762, RFC 8375). */
const RESERVED_TLDS = new Set(['test', 'example', 'invalid', 'localhost', 'local', 'internal', 'onion', 'arpa', 'lan', 'home', 'corp']);
const RESERVED_DOMAINS = new Set(['example.com', 'example.net', 'example.org']);

export function registrableDomain(host: string): string | null {
  const name = host.toLowerCase().replace(/\.$/, '').replace(/^\[(.*)\]$/, '$1');
  if (!name || isIP(name) !== 0) return null;
  const labels = name.split('.');
  if (labels.length < 2 || labels.some((l) => l === '')) return null;
  if (RESERVED_TLDS.has(labels.at(-1)!)) return null;
  const lastTwo = labels.slice(-2).join('.');
  const domain = SECOND_LEVEL.has(lastTwo) && labels.length >= 3 ? labels.slice(-3).join('.') : lastTwo;
  if (SECOND_LEVEL.has(domain) || RESERVED_DOMAINS.has(domain)) return null;
  return domain;
}

/** The domain of a `domain` check (its bare domain) or of a website check (its URL's host). */
export function domainOfCheck(check: Pick<Check, 'type' | 'url'>): string | null {
  if (check.type === 'domain') return registrableDomain(check.url);
  try {
    return registrableDomain(new URL(check.url).hostname);
  } catch {
    return null;
  }
}
