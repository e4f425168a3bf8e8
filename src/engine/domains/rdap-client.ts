import type { DomainInfo } from '../../domain/records.js';
import type { RdapBootstrap } from './rdap-bootstrap.js';

/** A lookup that found nothing usable; `notFound`: the registry does not know the name. */
export class RdapError extends Error {
  constructor(
    message: string,
    readonly notFound = false,
  ) {
    super(message);
  }
}

interface RdapEvent {
  eventAction?: unknown;
  eventDate?: unknown;
}
interface RdapEntity {
  roles?: unknown;
  vcardArray?: unknown;
  handle?: unknown;
  publicIds?: unknown;
}

const isoOrNull = (v: unknown): string | null => {
  if (typeof v !== 'string') return null;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
};

function eventDate(events: RdapEvent[], action: string): string | null {
  return isoOrNull(events.find((e) => e.eventAction === action)?.eventDate);
}

/** jCard (RFC 7095): ["vcard", [["fn", {}, "text", "Example Registrar, Inc."], ...]]. */
function vcardName(vcard: unknown): string | null {
  if (!Array.isArray(vcard) || !Array.isArray(vcard[1])) return null;
  for (const prop of vcard[1] as unknown[]) {
    if (Array.isArray(prop) && prop[0] === 'fn' && typeof prop[3] === 'string' && prop[3].trim()) return prop[3].trim();
  }
  return null;
}

function registrarOf(entities: RdapEntity[]): string | null {
  const registrar = entities.find((e) => Array.isArray(e.roles) && e.roles.includes('registrar'));
  if (!registrar) return null;
  const name = vcardName(registrar.vcardArray);
  if (name) return name;
  const id = Array.isArray(registrar.publicIds) ? (registrar.publicIds[0] as { identifier?: unknown } | undefined)?.identifier : undefined;
  if (typeof id === 'string') return id;
  return typeof registrar.handle === 'string' ? registrar.handle : null;
}

/** The fields of spec 2.2 `domain` from an RDAP domain object (RFC 9083 §5.3). */
export function parseRdapDomain(json: unknown, queried: string): DomainInfo {
  const o = (json ?? {}) as { objectClassName?: unknown; ldhName?: unknown; events?: unknown; entities?: unknown };
  if (o.objectClassName !== undefined && o.objectClassName !== 'domain') throw new RdapError('the registry did not answer with a domain');
  const events = Array.isArray(o.events) ? (o.events as RdapEvent[]) : [];
  return {
    name: typeof o.ldhName === 'string' ? o.ldhName.toLowerCase().replace(/\.$/, '') : queried,
    registrar: registrarOf(Array.isArray(o.entities) ? (o.entities as RdapEntity[]) : []),
    expiresAt: eventDate(events, 'expiration'),
    updatedAt: eventDate(events, 'last changed'),
  };
}

/** Domain lookups over RDAP (RFC 9082 `domain/<name>`), redirects followed, one deadline each. */
export class RdapClient {
  constructor(
    private readonly bootstrap: RdapBootstrap,
    private readonly timeoutMs: number,
  ) {}

  async lookup(domain: string, signal?: AbortSignal): Promise<DomainInfo> {
    await this.bootstrap.refreshIfStale();
    const base = this.bootstrap.serverFor(domain);
    if (!base) throw new RdapError(`no RDAP server is known for .${domain.split('.').at(-1)}`);
    const deadline = AbortSignal.timeout(this.timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${base}domain/${encodeURIComponent(domain)}`, {
        headers: { accept: 'application/rdap+json, application/json' },
        redirect: 'follow',
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
      });
    } catch {
      throw new RdapError(deadline.aborted ? 'the RDAP server did not answer in time' : 'the RDAP server could not be reached');
    }
    if (res.status === 404) {
      await res.body?.cancel();
      throw new RdapError(`${domain} is not in the registry`, true);
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new RdapError(`the RDAP server answered ${res.status}`);
    }
    let json: unknown;
    try {
      json = await res.json();
    } catch {
      throw new RdapError('the RDAP server sent no valid JSON');
    }
    return parseRdapDomain(json, domain);
  }
}
