import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { Plan } from './domain/plans.js';
import { suggestions } from './util/did-you-mean.js';
// Imported rather than read at start, so the single binary carries the defaults.
import defaults from '../config/default.json' with { type: 'json' };

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);


const ConfigSchema = Type.Object({
  /** `trustProxy`: take the client's address and scheme from X-Forwarded-For/-Proto (behind a reverse proxy only). */
  server: Type.Object({ host: Type.String(), port: Type.Number(), trustProxy: Type.Boolean() }),
  publicUrl: Nullable(Type.String()),
  heartbeatUrl: Nullable(Type.String()),
  dataDir: Type.String(),
  /**
   * `url`: a PostgreSQL connection URL (postgres://user@host/db) selects the PostgreSQL store;
   * null keeps the embedded SQLite database in dataDir (the default).
   */
  store: Type.Object({ url: Nullable(Type.String()) }),
  region: Type.String(),
  logLevel: Type.String(),
  smtp: Type.Object({ url: Nullable(Type.String()), from: Type.String() }),
  billing: Type.Object({ upgradeUrl: Nullable(Type.String()) }),
  dashboardUrl: Nullable(Type.String()),
  /** `allowPrivateTargets`: accounts created by agent signup may watch private addresses too. */
  signup: Type.Object({ enabled: Type.Boolean(), verifyEmailDomain: Type.Boolean(), dailyLimit: Type.Number(), allowPrivateTargets: Type.Boolean() }),
  rateLimits: Type.Object({
    perKeyPerMinute: Type.Number(),
    statusPerKeyPerMinute: Type.Number(),
    statusPerAccountPerMinute: Type.Number(),
    /** Requests per client address and minute to the unauthenticated routes that do work (sign-in, signup, claim, subscribe). */
    perAddressPerMinute: Type.Integer({ minimum: 1 }),
  }),
  /**
   * `threads`: probe worker threads; 0 = one less than the cores, at most 2 (a core stays free for the API).
   * `dnsServers`: "ip" or "ip:port" servers that answer every name probes and alert deliveries
   * resolve (empty: the system resolver); docs/outbound-policy.md.
   */
  probes: Type.Object({ blockPrivateAddresses: Type.Boolean(), threads: Type.Number(), dnsServers: Type.Array(Type.String()) }),
  /**
   * Regional prober nodes: a region without a connected node for `failoverMs` is probed by the
   * central; a node's outbox keeps at most `outboxMax` unacknowledged results; the central
   * measures each node's clock every `pingMs`; a node redials at most `reconnectMaxMs` apart.
   */
  nodes: Type.Object({ failoverMs: Type.Number(), outboxMax: Type.Number(), pingMs: Type.Number(), reconnectMaxMs: Type.Number() }),
  /**
   * Delivery queue: first retry delay (each next about twice as long), how long retries go on,
   * per-request timeout, parallelism; whether webhooks may use plain http (private networks).
   */
  alerts: Type.Object({
    retryBaseMs: Type.Number(),
    retryForHours: Type.Number(),
    allowHttpWebhooks: Type.Boolean(),
    timeoutMs: Type.Number(),
    concurrency: Type.Number(),
    perTargetConcurrency: Type.Number(),
    keepDays: Type.Number(),
  }),
  /**
   * Status pages (issue 29): at most `maxSubscribers` subscribers per page (email, pending ones
   * included, and webhooks). `subscriberWebhooks.allowPrivateTargets` (issue 34): anonymous
   * subscribers' webhooks may reach loopback, private and link-local addresses (an intranet, a
   * test); refused otherwise, whatever `probes.blockPrivateAddresses` says.
   */
  statusPages: Type.Object({
    maxSubscribers: Type.Number({ minimum: 0 }),
    subscriberWebhooks: Type.Object({ allowPrivateTargets: Type.Boolean() }),
  }),
  /** Domain expiry lookups: IANA bootstrap refresh (null: shipped copy only); `servers` (tld -> base URL) wins over it. */
  rdap: Type.Object({
    bootstrapUrl: Nullable(Type.String()),
    servers: Type.Record(Type.String(), Type.String()),
    timeoutMs: Type.Number(),
  }),
  plans: Type.Object({ free: Plan, indie: Plan, nano: Plan, pro: Plan }),
  /**
   * People signing in (issue 28, docs/people.md). `signIn`: failed password sign-ins are slowed,
   * then refused. `oidc`: single sign-on with OpenID Connect, off while `issuer` is null.
   * `allowedDomains`: email domains admitted (empty: any); `createRole`: the role given to a person
   * the provider vouches for who is not a member yet (null: only existing members may sign in);
   * `account`: the account such people join (id or email; null: the admin account); `name`: the
   * sign-in button's label; `trustUnverifiedEmail`: an address the provider does not mark
   * `email_verified: true` may still link a member who has no identity at the provider yet.
   */
  auth: Type.Object({
    signIn: Type.Object({
      slowAfterFailures: Type.Number(),
      lockAfterFailures: Type.Number(),
      addressLockAfterFailures: Type.Number(),
      windowMinutes: Type.Number(),
    }),
    /** Password hashes run on `threads` of their own; beyond `maxQueued` waiting, a check is refused with 503. */
    passwordHashing: Type.Object({ threads: Type.Integer({ minimum: 1, maximum: 8 }), maxQueued: Type.Integer({ minimum: 1 }) }),
    oidc: Type.Object({
      issuer: Nullable(Type.String()),
      clientId: Type.String(),
      clientSecret: Type.String(),
      name: Type.String(),
      scopes: Type.String(),
      allowedDomains: Type.Array(Type.String()),
      createRole: Type.Union([Type.Literal('admin'), Type.Literal('editor'), Type.Literal('viewer'), Type.Null()]),
      account: Nullable(Type.String()),
      trustUnverifiedEmail: Type.Boolean(),
    }),
  }),
  /** Days the audit log keeps its entries. */
  audit: Type.Object({ keepDays: Type.Number() }),
  /**
   * Several centrals on one PostgreSQL store (docs/high-availability.md): `leaseMs` is how long a
   * central's hold on its share of the checks lasts without a renewal (renewed every third of it,
   * at most every 4 s); a central that died has its checks taken over within `leaseMs` + 5 s.
   */
  cluster: Type.Object({ leaseMs: Type.Number({ minimum: 3_000, maximum: 600_000 }) }),
  /** This central's name among several (`<hostname>:<port>` when null). */
  instance: Type.Object({ name: Nullable(Type.String()) }),
  /** Days of raw history kept per plan; rollups and state changes outlive it. */
  retention: Type.Object({
    rawDays: Type.Object({ free: Type.Number(), indie: Type.Number(), nano: Type.Number(), pro: Type.Number() }),
  }),
});

/** Every key the schema knows, objects and leaves, as dotted paths (for "did you mean …?"). */
const KNOWN_KEYS = knownKeys(ConfigSchema);

/** The validated config as written: public addresses may still be null (defaults need the port). */
export type ConfigInput = Static<typeof ConfigSchema>;

/** The config in force once the server knows its port: the public addresses are resolved. */
export interface Config extends ConfigInput {
  publicUrl: string;
  heartbeatUrl: string;
  dashboardUrl: string;
}

export class ConfigError extends Error {}

/** This central's name among several: `instance.name`, else `<hostname>:<port>` (the port bound). */
export function instanceName(input: ConfigInput, port: number, host: string = hostname()): string {
  return input.instance.name ?? `${host}:${port}`;
}

const ENV_KEYS: Array<[string, string, 'string' | 'number' | 'boolean']> = [
  ['VIGIL_PORT', 'server.port', 'number'],
  ['VIGIL_HOST', 'server.host', 'string'],
  ['VIGIL_DATA_DIR', 'dataDir', 'string'],
  ['VIGIL_DATABASE_URL', 'store.url', 'string'],
  ['VIGIL_PUBLIC_URL', 'publicUrl', 'string'],
  ['VIGIL_SMTP_URL', 'smtp.url', 'string'],
  ['VIGIL_REGION', 'region', 'string'],
  ['VIGIL_OIDC_ISSUER', 'auth.oidc.issuer', 'string'],
  ['VIGIL_OIDC_CLIENT_ID', 'auth.oidc.clientId', 'string'],
  ['VIGIL_OIDC_CLIENT_SECRET', 'auth.oidc.clientSecret', 'string'],
  ['VIGIL_INSTANCE', 'instance.name', 'string'],
  ['VIGIL_SIGNUP_VERIFY_EMAIL_DOMAIN', 'signup.verifyEmailDomain', 'boolean'],
];

export interface LoadOptions {
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Extra values merged last (tests). */
  overrides?: unknown;
  warn?: (message: string) => void;
}

/** default.json, deep-merged with --config FILE (or VIGIL_CONFIG), then env vars, then overrides. */
export function loadConfig(opts: LoadOptions = {}): ConfigInput {
  const env = opts.env ?? process.env;
  const warn = opts.warn ?? ((m: string) => process.stderr.write(`warning: ${m}\n`));
  let merged: unknown = structuredClone(defaults);
  const file = opts.file ?? env.VIGIL_CONFIG;
  if (file) merged = deepMerge(merged, readJson(resolve(file)));
  for (const [name, key, kind] of ENV_KEYS) {
    const raw = env[name];
    if (raw !== undefined && raw !== '') merged = deepMerge(merged, setPath(key, parseEnv(name, raw, kind)));
  }
  if (opts.overrides) merged = deepMerge(merged, opts.overrides);

  for (const key of unknownKeys(merged, ConfigSchema)) {
    const close = suggestions(key, KNOWN_KEYS);
    warn(`unknown config key ${key} (ignored)${close.length > 0 ? `; did you mean ${close.join(' or ')}?` : ''}`);
  }
  const cleaned = Value.Clean(ConfigSchema, structuredClone(merged));
  const first = [...Value.Errors(ConfigSchema, cleaned)][0];
  if (first) throw new ConfigError(describe(first.path, first.type, first.schema));
  const config = cleaned as ConfigInput;
  if (config.store.url !== null) assertDatabaseUrl(config.store.url);
  const name = config.instance.name;
  if (name !== null && (name.trim() === '' || name.length > 200)) throw new ConfigError('instance.name must not be empty or longer than 200 characters');
  config.probes.dnsServers.forEach(assertDnsServer);
  return config;
}

/** Fills the public addresses from the port actually bound (which differs when port is 0). */
export function resolveConfig(input: ConfigInput, port: number = input.server.port): Config {
  const publicUrl = stripSlash(input.publicUrl ?? `http://localhost:${port}`);
  return {
    ...input,
    server: { ...input.server, port },
    publicUrl,
    heartbeatUrl: stripSlash(input.heartbeatUrl ?? publicUrl),
    dashboardUrl: stripSlash(input.dashboardUrl ?? `${publicUrl}/dashboard`),
  };
}

/** store.url must be a PostgreSQL URL a client can connect with. */
export function assertDatabaseUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('store.url (VIGIL_DATABASE_URL) must be a URL such as postgres://vigil@db.internal/vigil');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new ConfigError(`store.url (VIGIL_DATABASE_URL) must start with postgres:// or postgresql://, not ${parsed.protocol}//`);
  }
  if (!parsed.hostname && !parsed.searchParams.get('host')) {
    throw new ConfigError('store.url (VIGIL_DATABASE_URL) names no host: postgres://user@host/database');
  }
}

/** A probes.dnsServers entry: an IP address, with a port after it (`[v6]:port` for IPv6) or not. */
function assertDnsServer(entry: string, index: number): void {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry) ?? /^([^:]+)(?::(\d+))?$/.exec(entry);
  const host = m ? m[1]! : entry;
  const port = m?.[2];
  const valid = (m !== null && isIP(host) !== 0) || isIP(entry) === 6;
  if (!valid || (port !== undefined && (Number(port) < 1 || Number(port) > 65535))) {
    throw new ConfigError(`probes.dnsServers[${index}] must be an IP address with an optional port ("192.0.2.53", "192.0.2.53:5353" or "[2001:db8::53]:53"), not ${JSON.stringify(entry)}`);
  }
}

const stripSlash = (url: string) => url.replace(/\/+$/, '');

function describe(path: string, type: ValueErrorType, schema: unknown): string {
  const key = path.replace(/^\//, '').replace(/\//g, '.') || '(root)';
  if (type === ValueErrorType.ObjectRequiredProperty) return `${key} is missing`;
  const s = schema as { type?: string; anyOf?: Array<{ type?: string }>; minimum?: number; maximum?: number };
  if (type === ValueErrorType.NumberMinimum || type === ValueErrorType.NumberMaximum) return `${key} must be between ${s.minimum} and ${s.maximum}`;
  const kind = s.type ?? s.anyOf?.map((o) => o.type).join(' or ') ?? 'valid';
  return `${key} must be ${kind === 'object' ? 'an object' : `a ${kind}`}`;
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`config file ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

function parseEnv(name: string, raw: string, kind: 'string' | 'number' | 'boolean'): unknown {
  if (kind === 'string') return raw;
  if (kind === 'number') {
    const n = Number(raw);
    if (!Number.isFinite(n)) throw new ConfigError(`${name} must be a number`);
    return n;
  }
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false`);
}

function setPath(path: string, value: unknown): Record<string, unknown> {
  return path
    .split('.')
    .reverse()
    .reduce<unknown>((acc, part) => ({ [part]: acc }), value) as Record<string, unknown>;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function deepMerge(base: unknown, over: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(over)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...base };
  // Own keys only, defined rather than assigned: a key named __proto__ or constructor is a key like any other.
  for (const [k, v] of Object.entries(over)) {
    Object.defineProperty(out, k, { value: deepMerge(Object.hasOwn(base, k) ? base[k] : undefined, v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function knownKeys(schema: { properties?: Record<string, unknown> }, prefix = ''): string[] {
  return Object.entries(schema.properties ?? {}).flatMap(([k, sub]) => [
    `${prefix}${k}`,
    ...knownKeys(sub as { properties?: Record<string, unknown> }, `${prefix}${k}.`),
  ]);
}

function unknownKeys(value: unknown, schema: { properties?: Record<string, unknown> }, prefix = ''): string[] {
  if (!isPlainObject(value) || !schema.properties) return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const sub = (Object.hasOwn(schema.properties!, k) ? schema.properties![k] : undefined) as { properties?: Record<string, unknown> } | undefined;
    return sub ? unknownKeys(v, sub, `${prefix}${k}.`) : [`${prefix}${k}`];
  });
}
