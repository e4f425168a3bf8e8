import type { Config } from '../config.js';
import type { CheckType } from '../domain/check-types.js';
import { errors } from '../domain/errors.js';
import { CHECK_FIELDS } from '../domain/check-fields.js';
import { limitsFor, tierAtLeast } from '../domain/plans.js';
import type { Account, CheckSettings } from '../domain/records.js';
import { MAX_REQUEST_BODY_BYTES, type CreateCheckInput, type UpdateCheckInput } from './schemas/checks.js';
import { parseTarget } from './check-target.js';
import { cronProblem } from '../domain/cron.js';
import { displayName } from '../domain/display-name.js';
import { jsonPathProblem } from './json-path.js';
import { tagProblem, uniqueTags } from '../domain/tags.js';

/** Domain checks look at registration data, which changes slowly: once a day. */
export const DOMAIN_INTERVAL_MINUTES = 1440;
export const DEFAULT_SETTINGS: Omit<CheckSettings, 'name' | 'url' | 'type'> = {
  folder: null,
  method: 'GET',
  intervalMinutes: 5,
  regionOverride: null,
  expectedStatusCodes: [200],
  headers: {},
  body: null,
  responseValidation: null,
  cacheControlNoCache: false,
  immediateRecheckEnabled: true,
  responseTimeLimit: null,
  downConfirmationAttempts: 2,
  pingPackets: 3,
  timezone: null,
  schedule: null,
  gracePeriodSeconds: 0,
  tags: [],
  dependsOn: [],
};

type Input = CreateCheckInput | UpdateCheckInput;

/** How an input value is stored, where it is not stored as given. */
const NORMALISED: Partial<Record<keyof CheckSettings, (value: never) => unknown>> = {
  url: (url: string) => url.trim(),
  name: displayName,
  expectedStatusCodes: (codes: number[]) => [...new Set(codes)],
  tags: uniqueTags,
  dependsOn: (ids: string[]) => [...new Set(ids.map((id) => id.trim()))],
};

/**
 * Applies only the fields present in the input (PATCH semantics; create starts from defaults),
 * each input name to its setting by domain/check-fields.ts.
 */
export function applyInput(base: CheckSettings, input: Input): CheckSettings {
  const s: Record<string, unknown> = { ...base };
  const given = input as Readonly<Record<string, unknown>>;
  for (const f of CHECK_FIELDS) {
    const value = given[f.input];
    if (value === undefined) continue;
    const normalise = NORMALISED[f.settings];
    s[f.settings] = normalise ? normalise(value as never) : value;
  }
  if (s.type === 'domain') s.intervalMinutes = DOMAIN_INTERVAL_MINUTES;
  return s as unknown as CheckSettings;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Framing and connection headers belong to the probe's own HTTP client. */
const RESERVED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer']);

/**
 * The rules a schema cannot express: URL form per type, plan limits, JSON bodies, header and
 * time-zone names. Returns the normalised URL key for duplicate detection (null for heartbeats).
 * Only fields in `changed` are held to plan limits, so a PATCH of the name still works after a
 * plan's minimum interval has gone up.
 */
export function validateSettings(
  s: CheckSettings,
  account: Account,
  config: Config,
  changed: ReadonlySet<string>,
): string | null {
  const plan = limitsFor(config, account);
  let urlKey: string | null = null;
  if (s.type !== 'heartbeat') {
    if (!s.url) throw errors.badRequest('url is required');
    const target = parseTarget(s.type, s.url);
    if (!target.ok) throw errors.badRequest(target.message);
    urlKey = target.key;
  }
  if (changed.has('type') && s.type === 'domain' && !tierAtLeast(account, 'nano')) {
    throw errors.forbidden('domain checks need the nano plan or higher');
  }
  if (changed.has('checkRegionOverride') && s.regionOverride !== null && !plan.regionChoice) {
    throw errors.forbidden(`the ${account.tier} plan does not include region choice (checkRegionOverride)`);
  }
  if ((changed.has('checkFrequency') || changed.has('type')) && s.type !== 'domain') {
    checkInterval(s.type, s.intervalMinutes, plan.minCheckIntervalMinutes, plan.minHeartbeatIntervalSeconds, account);
  }
  if (changed.has('requestBody') && s.body !== null) checkBody(s.type, s.body);
  if (changed.has('requestHeaders')) checkHeaders(s.headers);
  const jsonPath = changed.has('responseValidation') ? s.responseValidation?.jsonPath : undefined;
  if (jsonPath) {
    const problem = jsonPathProblem(jsonPath);
    if (problem !== null) throw errors.badRequest(`responseValidation.jsonPath is not a valid JSONPath: ${problem}`);
  }
  if (changed.has('tags')) {
    for (const tag of s.tags) {
      const problem = tagProblem(tag);
      if (problem !== null) throw errors.badRequest(`tags: ${problem}`);
    }
  }
  if (changed.has('timezone') && s.timezone !== null && !isTimeZone(s.timezone)) {
    throw errors.badRequest(`timezone is not a known IANA time zone: ${s.timezone}`);
  }
  if ((changed.has('schedule') || changed.has('gracePeriod')) && s.type !== 'heartbeat' && (s.schedule !== null || s.gracePeriodSeconds !== 0)) {
    throw errors.badRequest('schedule and gracePeriod apply to heartbeat checks only');
  }
  if ((changed.has('schedule') || changed.has('timezone')) && s.schedule !== null) {
    const problem = cronProblem(s.schedule, s.timezone);
    if (problem) throw errors.badRequest(`schedule is not a valid cron expression: ${problem}`);
  }
  return urlKey;
}

function checkInterval(type: CheckType, minutes: number, minMinutes: number, minHeartbeatSeconds: number, account: Account): void {
  const min = type === 'heartbeat' ? minHeartbeatSeconds / 60 : minMinutes;
  if (minutes < min - 1e-9) {
    const what = type === 'heartbeat' ? 'heartbeat checks on' : 'checks on';
    throw errors.badRequest(`checkFrequency must be at least ${min} minute${min === 1 ? '' : 's'} for ${what} the ${account.tier} plan`);
  }
}

function checkBody(type: CheckType, body: string): void {
  if (Buffer.byteLength(body, 'utf8') > MAX_REQUEST_BODY_BYTES) throw errors.badRequest('requestBody must be at most 64 KB');
  if (type === 'udp') return; // a UDP datagram is any text
  try {
    JSON.parse(body);
  } catch {
    throw errors.badRequest('requestBody must be valid JSON');
  }
}

function checkHeaders(headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) throw errors.badRequest(`requestHeaders has an invalid header name: ${name}`);
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw errors.badRequest(`requestHeaders must not set ${name}; the probe sets it`);
    if (/[\r\n\0]/.test(value)) throw errors.badRequest(`requestHeaders.${name} must not contain line breaks`);
  }
}

export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
