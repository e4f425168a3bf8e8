import { randomInt } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { on } from 'node:events';
import dnsPacket, { type Answer, type Packet } from 'dns-packet';
import type { PrivateRefusal } from '../../domain/outbound-policy.js';
import type { ProbeResult, ProbeTask } from '../../domain/probe-types.js';
import { ProbeError } from './probe-errors.js';
import type { ProbeScope } from './probe-scope.js';
import { bareHost, configuredDnsServers, resolveTarget } from './resolve-target.js';
import { emptyResult, snippetOf, timingOf } from './result.js';
import { runScoped } from './run-scoped.js';
import type { HostPort } from './host-port.js';
import { connectUdp } from './udp.js';

const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS'] as const;
type RecordType = (typeof RECORD_TYPES)[number];

interface DnsQuery {
  /** Null: the system resolver. */
  server: HostPort | null;
  name: string;
  type: RecordType;
}

/** A bare name (system resolver, type A) or `dns://resolver[:port]/name?type=MX`. */
export function parseDnsTarget(raw: string): DnsQuery {
  if (!raw.includes('://')) return { server: null, name: raw.trim(), type: 'A' };
  const url = new URL(raw);
  if (url.protocol !== 'dns:') throw new ProbeError(`Unsupported URL scheme ${url.protocol}`);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (name === '') throw new ProbeError('DNS URL needs a name: dns://resolver/name?type=A');
  const type = (url.searchParams.get('type') ?? 'A').toUpperCase();
  if (!(RECORD_TYPES as readonly string[]).includes(type)) {
    throw new ProbeError(`Unsupported DNS record type ${type} (use ${RECORD_TYPES.join(', ')})`);
  }
  return {
    server: { host: bareHost(url.hostname), port: url.port === '' ? 53 : Number(url.port) },
    name,
    type: type as RecordType,
  };
}

function formatAnswer(answer: Answer): string {
  const data = answer.data;
  if (answer.type === 'MX') {
    const mx = data as { preference: number; exchange: string };
    return `${mx.preference} ${mx.exchange}`;
  }
  if (answer.type === 'TXT') {
    const parts: unknown[] = Array.isArray(data) ? data : [data];
    return parts.map((p) => (Buffer.isBuffer(p) ? p.toString('utf8') : String(p))).join('');
  }
  return String(data);
}

function canonical(value: string): string {
  const text = value.trim().replace(/\.$/, '').toLowerCase();
  // The URL parser writes IPv6 in its one canonical form: 0:0::1 and ::1 compare equal.
  if (text.includes(':') && !text.includes(' ')) {
    try {
      return new URL(`http://[${text}]/`).hostname;
    } catch {
      return text;
    }
  }
  return text;
}

/** Names compare case-insensitively without the root dot; an MX also matches by exchange alone. */
function isExpected(expected: string, answer: string, type: RecordType): boolean {
  if (type === 'TXT') return answer === expected;
  if (canonical(answer) === canonical(expected)) return true;
  return type === 'MX' && canonical(answer.split(' ')[1] ?? '') === canonical(expected);
}

async function querySystem(scope: ProbeScope, name: string): Promise<string[]> {
  const resolver = new Resolver({ timeout: Math.max(1, Math.ceil(scope.remaining())), tries: 1 });
  // probes.dnsServers, when set, answer every name a probe resolves, this one included.
  const servers = configuredDnsServers();
  if (servers.length > 0) resolver.setServers([...servers]);
  scope.onClose(() => resolver.cancel());
  return scope.race(resolver.resolve4(name));
}

async function queryServer(scope: ProbeScope, query: DnsQuery & { server: HostPort }, refusePrivate: PrivateRefusal | null): Promise<Packet> {
  const [address] = await scope.race(resolveTarget(query.server.host, refusePrivate));
  const socket = await connectUdp(scope, address, query.server.port);
  const id = randomInt(0, 65536);
  socket.send(
    dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: query.type, name: query.name }] }),
  );
  for await (const [message] of on(socket, 'message', { signal: scope.signal })) {
    let packet: Packet;
    try {
      packet = dnsPacket.decode(message as Buffer);
    } catch {
      continue; // not a DNS answer; keep waiting for one
    }
    if (packet.type === 'response' && packet.id === id) return packet;
  }
  throw new ProbeError('DNS server closed the socket');
}

/**
 * `dns` checks: up when the name has at least one answer of the asked type and, when
 * `expectedValue` is set, it is among them. Timing: dns (the query round trip), total.
 */
export function probeDns(task: ProbeTask): Promise<ProbeResult> {
  return runScoped(task, async (scope, seen) => {
    const query = parseDnsTarget(task.url);
    let answers: string[];
    let askedAt: number;
    if (query.server === null) {
      askedAt = scope.now();
      answers = await querySystem(scope, query.name);
    } else {
      const server = query.server;
      askedAt = scope.now();
      const packet = await queryServer(scope, { ...query, server }, task.refusePrivate);
      const timing = timingOf({ dns: scope.now() - askedAt, total: scope.now() });
      seen.timing = timing;
      seen.responseTime = timing.total;
      if (packet.rcode !== undefined && packet.rcode !== 'NOERROR') {
        throw new ProbeError(`DNS server answered ${packet.rcode} for ${query.name}`);
      }
      answers = (packet.answers ?? []).filter((a) => a.type === query.type).map(formatAnswer);
      if (answers.length === 0 && packet.flag_tc) throw new ProbeError('DNS answer truncated (TCP fallback not supported)');
    }
    const answeredAt = scope.now();
    const timing = timingOf({ dns: answeredAt - askedAt, total: answeredAt });
    const snippet = answers.length > 0 ? snippetOf(Buffer.from(answers.join(', '), 'utf8')) : null;
    const expected = task.responseValidation?.expectedValue;
    let error: string | null = null;
    if (answers.length === 0) error = `No ${query.type} records for ${query.name}`;
    else if (expected !== undefined && !answers.some((a) => isExpected(expected, a, query.type))) {
      error = `Expected ${expected} among the answers, got ${answers.join(', ')}`;
    }
    return { ...emptyResult(scope.startedAt), ok: error === null, error, responseTime: timing.total, timing, snippet };
  });
}
