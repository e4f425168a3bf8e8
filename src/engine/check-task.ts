import type { ProbeType } from '../domain/check-types.js';
import type { Check } from '../domain/records.js';
import type { ProbeTask } from '../domain/probe-types.js';
import type { PrivateRefusal } from '../domain/outbound-policy.js';

const MAX_PROBE_TIMEOUT_MS = 30_000;

/*
 * A scheduled check lives in memory for as long as it is enabled; at 100,000 checks every
 * object counts. Values most checks share (no headers, [200], the type and method names)
 * point at one frozen copy instead of one copy per check.
 */
const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const DEFAULT_CODES: number[] = Object.freeze([200]) as unknown as number[];
const interned = new Map<string, string>();
/** One string object per distinct value (types, methods, statuses, account ids). */
export function intern(value: string): string {
  let v = interned.get(value);
  if (v === undefined) {
    interned.set(value, value);
    v = value;
  }
  return v;
}

/** Types the wheel probes on an interval; heartbeats and domains run on deadlines instead. */
export function isProbeType(type: Check['type']): type is ProbeType {
  return type !== 'heartbeat' && type !== 'domain';
}

export function intervalMs(check: Pick<Check, 'intervalMinutes'>): number {
  return Math.max(1000, Math.round(check.intervalMinutes * 60_000));
}

/**
 * What a worker needs for one probe of this check (structured-cloneable). `refusePrivate`: the
 * outbound rule of the check's account (the probe refuses private addresses at connect time).
 */
export function probeTask(check: Check, refusePrivate: PrivateRefusal | null): ProbeTask {
  return {
    type: intern(check.type) as ProbeType,
    url: check.url,
    method: intern(check.method) as Check['method'],
    headers: Object.keys(check.headers).length === 0 ? NO_HEADERS : check.headers,
    body: check.body,
    expectedStatusCodes: check.expectedStatusCodes.length === 1 && check.expectedStatusCodes[0] === 200 ? DEFAULT_CODES : check.expectedStatusCodes,
    responseValidation: check.responseValidation,
    cacheControlNoCache: check.cacheControlNoCache,
    pingPackets: check.pingPackets,
    // The smaller of 30 s and the interval: a probe never overlaps its own next run.
    timeoutMs: Math.min(MAX_PROBE_TIMEOUT_MS, intervalMs(check)),
    refusePrivate,
  };
}
