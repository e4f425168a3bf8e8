import { MAX_TAG_PART, MAX_TAGS, tagProblem, uniqueTags } from '../domain/tags.js';
import { STATUS_CODES } from 'node:http';
import type { CreateCheckInput } from '../core/schemas/checks.js';
import type { PlanLimits } from '../domain/plans.js';
import type { KumaMonitorRow } from '../store/kuma-source.js';

/** A Kuma monitor as a Vigil check, with every Kuma setting that did not carry over. */
export interface MappedMonitor {
  input: CreateCheckInput;
  paused: boolean;
  /** Settings without a Vigil equivalent (or changed to fit), one sentence each. */
  notes: string[];
  pushToken: string | null;
}

export type MonitorMapping = { ok: true; check: MappedMonitor } | { ok: false; reason: string };

export interface MonitorContext {
  /** The folder of the monitor's Kuma group chain (`Parent / Child`), null outside groups. */
  folder: string | null;
  tags: { name: string; value: string }[];
  limits: PlanLimits;
}

const DNS_TYPES = new Set(['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS']);
const MAX_STATUS_CODES = 20;
const REGISTERED_CODES = Object.keys(STATUS_CODES).map(Number);

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);
const flag = (v: unknown): boolean => v === 1 || v === true || v === '1';

/**
 * Kuma's accepted status codes ("200-299", "401") as Vigil's list: a range becomes the
 * registered HTTP codes inside it (Vigil takes at most 20 codes).
 */
export function statusCodesOf(accepted: string[]): { codes: number[]; note: string | null } {
  const codes = new Set<number>();
  for (const entry of accepted) {
    const m = /^\s*(\d{3})\s*(?:-\s*(\d{3}))?\s*$/.exec(entry);
    if (!m) continue;
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (from === to) codes.add(from);
    else for (const c of REGISTERED_CODES) if (c >= from && c <= to) codes.add(c);
  }
  const list = [...codes].filter((c) => c >= 100 && c <= 599).sort((a, b) => a - b);
  if (list.length === 0) return { codes: [200], note: `accepted status codes ${accepted.join(', ')} not understood; 200 expected` };
  if (list.length > MAX_STATUS_CODES) {
    return { codes: list.slice(0, MAX_STATUS_CODES), note: `accepted status codes ${accepted.join(', ')}: Vigil takes ${MAX_STATUS_CODES} codes, kept ${list.slice(0, MAX_STATUS_CODES).join(', ')}` };
  }
  return { codes: list, note: null };
}

/** Kuma's interval (seconds) in Vigil minutes, raised to the plan's minimum when below it. */
function frequency(seconds: number, minimumMinutes: number, notes: string[]): number {
  const minutes = seconds / 60;
  if (minutes >= minimumMinutes) return Math.round(minutes * 1000) / 1000;
  notes.push(`interval ${seconds} s is below the plan's minimum: checked every ${minimumMinutes} min`);
  return minimumMinutes;
}

function headersOf(raw: unknown, notes: string[]): Record<string, string> {
  const text = str(raw);
  if (text === null) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    return Object.fromEntries(Object.entries(parsed as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
  } catch {
    notes.push('headers are not a JSON object: not carried over');
    return {};
  }
}

/** Settings every Kuma monitor type shares that Vigil has no place for. */
function commonNotes(m: KumaMonitorRow, notes: string[]): void {
  const interval = num(m.interval);
  const retry = num(m.retry_interval);
  if (retry !== null && interval !== null && retry !== interval) notes.push(`retry interval ${retry} s: Vigil rechecks at once before confirming down (immediateRecheckEnabled)`);
  const resend = num(m.resend_interval);
  if (resend !== null && resend > 0) notes.push(`resend every ${resend} beats: use a webhook's remindEveryMinutes`);
  if (str(m.description)) notes.push(`description "${str(m.description)}": Vigil checks have no description`);
}

function httpLike(m: KumaMonitorRow, input: CreateCheckInput, notes: string[]): void {
  const method = (str(m.method) ?? 'GET').toUpperCase();
  if (['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'].includes(method)) input.httpMethod = method as CreateCheckInput['httpMethod'];
  else notes.push(`method ${method}: Vigil sends GET`);
  const headers = headersOf(m.headers, notes);
  const user = str(m.basic_auth_user);
  const auth = str(m.auth_method);
  if (user !== null && (auth === null || auth === 'basic')) {
    headers.Authorization = `Basic ${Buffer.from(`${user}:${typeof m.basic_auth_pass === 'string' ? m.basic_auth_pass : ''}`).toString('base64')}`;
  } else if (auth !== null && auth !== 'basic') notes.push(`authentication ${auth}: not carried over (Vigil sends the headers you set)`);
  if (Object.keys(headers).length > 0) input.requestHeaders = headers;
  const body = typeof m.body === 'string' && m.body !== '' ? m.body : null;
  if (body !== null) input.requestBody = body;
  const accepted = parseList(m.accepted_statuscodes_json);
  const { codes, note } = statusCodesOf(accepted.length > 0 ? accepted : ['200-299']);
  input.expectedStatusCodes = codes;
  if (note) notes.push(note);
  const timeout = num(m.timeout);
  if (timeout !== null && timeout > 0) notes.push(`timeout ${timeout} s: Vigil's probes use their own timeout`);
  if (flag(m.ignore_tls)) notes.push('ignore TLS errors: Vigil always verifies certificates (an invalid one is reported on the check)');
  const redirects = num(m.maxredirects);
  if (redirects !== null && redirects > 0 && redirects !== 10 && input.type === 'website') notes.push(`max redirects ${redirects}: Vigil follows up to 10`);
  if (str(m.proxy_id)) notes.push('proxy: Vigil probes directly');
}

function parseList(raw: unknown): string[] {
  if (Array.isArray(raw)) return raw.map(String);
  if (typeof raw !== 'string') return [];
  try {
    const v: unknown = JSON.parse(raw);
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    return [];
  }
}

/** A Kuma json-query path as a JSONPath Vigil evaluates ("status" → "$.status"). */
export function jsonPathOf(path: string): string {
  if (path.startsWith('$')) return path;
  return `$.${path.replace(/^\./, '')}`;
}

/**
 * Kuma's tags as Vigil tags: `name` or `name:value`. Commas become spaces, ends are trimmed and
 * sides cut to 64 characters; a tag still unusable, or past the 20th, is named in the notes.
 */
export function kumaTags(tags: { name: string; value: string }[], notes: string[]): string[] {
  const clean = (part: string) => [...part.replace(/,/g, ' ').trim()].slice(0, MAX_TAG_PART).join('').trim();
  const out: string[] = [];
  for (const t of tags) {
    const name = clean(t.name);
    const value = clean(t.value ?? '');
    const tag = value ? `${name}:${value}` : name;
    const shown = t.value ? `${t.name}=${t.value}` : t.name;
    if (tagProblem(tag) !== null) notes.push(`tag ${shown}: not a usable Vigil tag`);
    else out.push(tag);
  }
  const unique = uniqueTags(out);
  if (unique.length > MAX_TAGS) notes.push(`tags ${unique.slice(MAX_TAGS).join(', ')}: a Vigil check has at most ${MAX_TAGS} tags`);
  return unique.slice(0, MAX_TAGS);
}

/** Maps one Kuma monitor (not a group: groups become folders) to a Vigil check, or says why not. */
export function mapMonitor(m: KumaMonitorRow, ctx: MonitorContext): MonitorMapping {
  const notes: string[] = [];
  if (flag(m.upside_down)) {
    return { ok: false, reason: 'upside-down mode: Vigil has no inverted check (it would report the opposite status)' };
  }
  const input: CreateCheckInput = { name: m.name.slice(0, 200), folder: ctx.folder };
  const tags = kumaTags(ctx.tags, notes);
  if (tags.length > 0) input.tags = tags;
  const interval = num(m.interval) ?? 60;
  const retries = num(m.maxretries) ?? 0;
  input.downConfirmationAttempts = Math.min(99, Math.max(1, retries + 1));
  let pushToken: string | null = null;
  const url = str(m.url);
  const host = str(m.hostname);
  const port = num(m.port);
  switch (m.type) {
    case 'http':
    case 'keyword':
    case 'json-query': {
      if (url === null) return { ok: false, reason: 'no URL' };
      input.url = url;
      const accepted = parseList(m.accepted_statuscodes_json);
      const redirects = num(m.maxredirects);
      const onlyRedirects = accepted.length > 0 && accepted.every((a) => /^3\d\d(-3\d\d)?$/.test(a.trim()));
      if (m.type === 'json-query') input.type = 'rest_endpoint';
      else if (redirects === 0) input.type = onlyRedirects ? 'redirect' : 'rest_endpoint';
      else input.type = 'website';
      httpLike(m, input, notes);
      if (m.type === 'keyword') {
        const keyword = typeof m.keyword === 'string' ? m.keyword : '';
        if (flag(m.invert_keyword)) notes.push(`inverted keyword "${keyword}": Vigil cannot require text to be absent; only the status code is checked`);
        else if (keyword) input.responseValidation = { containsText: [keyword] };
      }
      if (m.type === 'json-query') {
        const path = str(m.json_path);
        const operator = str(m.json_path_operator) ?? '==';
        const expected = typeof m.expected_value === 'string' ? m.expected_value : null;
        if (path === null || path === '$') notes.push('json query without a path: only the status code is checked');
        else if (operator !== '==') notes.push(`json query operator ${operator}: Vigil compares for equality only; only the status code is checked`);
        else input.responseValidation = expected === null ? { jsonPath: jsonPathOf(path) } : { jsonPath: jsonPathOf(path), expectedValue: expected };
      }
      break;
    }
    case 'port':
      if (host === null || port === null) return { ok: false, reason: 'no host or port' };
      input.type = 'tcp';
      input.url = `tcp://${host}:${port}`;
      break;
    case 'ping': {
      if (host === null) return { ok: false, reason: 'no host' };
      input.type = 'ping';
      input.url = host;
      const count = num(m.ping_count);
      if (count !== null) input.pingPackets = Math.min(5, Math.max(1, count));
      if (count !== null && count > 5) notes.push(`ping count ${count}: Vigil sends at most 5`);
      const size = num(m.packet_size);
      if (size !== null && size !== 56) notes.push(`packet size ${size}: Vigil sends its own`);
      break;
    }
    case 'dns': {
      if (host === null) return { ok: false, reason: 'no host name' };
      const record = (str(m.dns_resolve_type) ?? 'A').toUpperCase();
      if (!DNS_TYPES.has(record)) return { ok: false, reason: `DNS record type ${record}: Vigil resolves ${[...DNS_TYPES].join(', ')}` };
      const servers = (str(m.dns_resolve_server) ?? '1.1.1.1').split(',').map((s) => s.trim()).filter(Boolean);
      if (servers.length > 1) notes.push(`resolvers ${servers.join(', ')}: Vigil asks one, ${servers[0]}`);
      const dnsPort = port !== null && port !== 53 ? `:${port}` : '';
      input.type = 'dns';
      input.url = `dns://${servers[0]}${dnsPort}/${host}?type=${record}`;
      if (str(m.dns_last_result)) notes.push('last DNS result: Vigil does not compare answers with a previous one');
      break;
    }
    case 'push':
      input.type = 'heartbeat';
      pushToken = str(m.push_token);
      input.checkFrequency = Math.max(interval / 60, ctx.limits.minHeartbeatIntervalSeconds / 60);
      if (interval < ctx.limits.minHeartbeatIntervalSeconds) notes.push(`push interval ${interval} s is below the plan's minimum: expected every ${ctx.limits.minHeartbeatIntervalSeconds} s`);
      break;
    case 'websocket-upgrade':
      if (url === null) return { ok: false, reason: 'no URL' };
      input.type = 'websocket';
      input.url = url;
      if (str(m.ws_subprotocol)) notes.push(`subprotocol ${str(m.ws_subprotocol)}: Vigil asks for none`);
      if (flag(m.ignore_tls)) notes.push('ignore TLS errors: Vigil always verifies certificates');
      break;
    case 'smtp': {
      if (host === null) return { ok: false, reason: 'no host' };
      const secure = str(m.smtp_security) === 'secure';
      input.type = 'smtp';
      input.url = `${secure ? 'smtps' : 'smtp'}://${host}${port !== null ? `:${port}` : ''}`;
      break;
    }
    default:
      return { ok: false, reason: `monitor type ${m.type}: Vigil has no equivalent check type` };
  }
  if (input.type !== 'heartbeat') input.checkFrequency = frequency(interval, ctx.limits.minCheckIntervalMinutes, notes);
  commonNotes(m, notes);
  return { ok: true, check: { input, paused: !flag(m.active), notes, pushToken } };
}
