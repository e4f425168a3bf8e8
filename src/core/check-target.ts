import { isIP } from 'node:net';
import type { CheckType } from '../domain/check-types.js';

/**
 * The URL forms per check type (decisions §4). `parseTarget` accepts what a user may write and
 * returns the normalised key used for duplicate detection (scheme and host lower-cased,
 * default port dropped), or an error message.
 */
export type TargetResult = { ok: true; key: string; host: string } | { ok: false; message: string };

const SCHEMES: Partial<Record<CheckType, Record<string, number | null>>> = {
  website: { http: 80, https: 443 },
  rest_endpoint: { http: 80, https: 443 },
  redirect: { http: 80, https: 443 },
  websocket: { ws: 80, wss: 443 },
  tcp: { tcp: null },
  udp: { udp: null },
  smtp: { smtp: 25, smtps: 465 },
  pop3: { pop3: 110, pop3s: 995 },
  imap: { imap: 143, imaps: 993 },
};

const DNS_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS'];
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/i;

export function isHostName(host: string): boolean {
  if (isIP(host.replace(/^\[|\]$/g, ''))) return true;
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  return name.length > 0 && name.length <= 253 && name.split('.').every((l) => LABEL.test(l));
}

const invalid = (type: CheckType, example: string): TargetResult => ({
  ok: false,
  message: `url is not a valid ${type} target; expected ${example}`,
});

export function parseTarget(type: CheckType, raw: string): TargetResult {
  const url = raw.trim();
  if (/[\u0000-\u001f\u007f]/.test(url)) return { ok: false, message: 'url must not contain control characters' };
  switch (type) {
    case 'heartbeat':
      return { ok: false, message: 'heartbeat checks have no target url' };
    case 'domain': {
      const host = url.toLowerCase().replace(/\.$/, '');
      if (!isHostName(host) || !host.includes('.') || isIP(host)) return invalid(type, 'a bare domain such as example.com');
      return { ok: true, key: host, host };
    }
    case 'ping': {
      const host = url.replace(/^icmp:\/\//i, '').replace(/\/$/, '').toLowerCase();
      if (!isHostName(host)) return invalid(type, 'a host name or IP address (or icmp://host)');
      return { ok: true, key: `icmp://${host}`, host };
    }
    case 'dns':
      return parseDnsTarget(url);
    default:
      return parseSchemeTarget(type, url);
  }
}

function parseSchemeTarget(type: CheckType, raw: string): TargetResult {
  const schemes = SCHEMES[type]!;
  const examples = Object.keys(schemes).map((s) => `${s}://host${schemes[s] === null ? ':port' : ''}`).join(' or ');
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return invalid(type, examples);
  }
  const scheme = u.protocol.slice(0, -1).toLowerCase();
  if (!Object.hasOwn(schemes, scheme) || !u.hostname || u.username || u.password) return invalid(type, examples);
  const host = u.hostname.toLowerCase();
  if (!isHostName(host)) return invalid(type, examples);
  const defaultPort = schemes[scheme];
  if (u.port === '0') return { ok: false, message: 'url port must be between 1 and 65535' };
  if (defaultPort === null && !u.port) return { ok: false, message: `url needs a port for ${type} checks (${examples})` };
  const port = u.port && Number(u.port) !== defaultPort ? `:${u.port}` : '';
  // Connection-level targets are a host and a port; a path or query would be ignored, so it is refused.
  const hostOnly = type === 'tcp' || type === 'udp' || SCHEMES.smtp === schemes || SCHEMES.pop3 === schemes || SCHEMES.imap === schemes;
  if (hostOnly && ((u.pathname !== '' && u.pathname !== '/') || u.search || u.hash)) return invalid(type, examples);
  const rest = hostOnly ? '' : `${u.pathname}${u.search}`;
  return { ok: true, key: `${scheme}://${host}${port}${rest}`, host };
}

function parseDnsTarget(raw: string): TargetResult {
  const example = 'a bare name such as example.com, or dns://resolver[:port]/name?type=A';
  if (!/^dns:\/\//i.test(raw)) {
    const name = raw.toLowerCase().replace(/\.$/, '');
    if (!isHostName(name) || isIP(name)) return invalid('dns', example);
    return { ok: true, key: name, host: name };
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return invalid('dns', example);
  }
  const name = decodeURIComponent(u.pathname.replace(/^\//, '')).toLowerCase().replace(/\.$/, '');
  const type = (u.searchParams.get('type') ?? 'A').toUpperCase();
  if (!u.hostname || !isHostName(u.hostname) || !isHostName(name)) return invalid('dns', example);
  if (!DNS_RECORD_TYPES.includes(type)) {
    return { ok: false, message: `url has an unsupported DNS record type ${type}; use one of ${DNS_RECORD_TYPES.join(', ')}` };
  }
  const port = u.port && u.port !== '53' ? `:${u.port}` : '';
  return { ok: true, key: `dns://${u.hostname.toLowerCase()}${port}/${name}?type=${type}`, host: u.hostname.toLowerCase() };
}
