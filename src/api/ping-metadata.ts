import type { PingMetadata, PingSignal } from '../engine/heartbeats.js';

const MAX_STATUS = 200;
const MAX_MESSAGE = 1000;

/** The first `max` characters, counted as the API counts them (code points): never half an emoji. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : [...text].slice(0, max).join('');
}

/**
 * Ping metadata (spec 2.10) from a JSON body, or from the query string of a GET. Invalid JSON
 * and fields of the wrong type are ignored (the ping still counts); long texts are truncated.
 * Uptime Kuma's push names are read too (issue 23): `msg` for `message`, `ping` (ms) for
 * `duration`, each when Vigil's own name is absent.
 */
export function pingMetadata(body: Buffer, query: URLSearchParams): PingMetadata {
  const source = (body.length ? jsonObject(body) : null) ?? Object.fromEntries(query);
  const meta: PingMetadata = {};
  if (typeof source.status === 'string') meta.status = cut(source.status, MAX_STATUS);
  const message = source.message ?? source.msg;
  if (typeof message === 'string') meta.message = cut(message, MAX_MESSAGE);
  const given = source.duration ?? source.ping;
  const duration = typeof given === 'string' && given.trim() !== '' ? Number(given) : given;
  if (typeof duration === 'number' && Number.isFinite(duration) && duration >= 0) meta.duration = duration;
  return meta;
}

/** The body's JSON object; null for invalid JSON or any other value (the ping still counts). */
function jsonObject(body: Buffer): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const SUCCESS: PingSignal = Object.freeze({ kind: 'success' });
const START: PingSignal = Object.freeze({ kind: 'start' });
const FAIL: PingSignal = Object.freeze({ kind: 'fail' });

/** `/start`, `/fail` or an exit code 0–255 after the token; anything else is not a ping URL. */
export function pingSignal(action: string | undefined): PingSignal | null {
  if (action === undefined) return SUCCESS;
  if (action === 'start') return START;
  if (action === 'fail') return FAIL;
  if (/^\d{1,3}$/.test(action) && Number(action) <= 255) return { kind: 'exit', code: Number(action) };
  return null;
}

/**
 * A plain ping whose `status` says `down` (any case) reports a failure, as Uptime Kuma's
 * `?status=down` does; the URL's own `/start`, `/fail` or exit code wins over it.
 */
export function withStatus(signal: PingSignal | null, meta: PingMetadata): PingSignal | null {
  return signal === SUCCESS && meta.status !== undefined && meta.status.toLowerCase() === 'down' ? FAIL : signal;
}

/** Uptime Kuma's push URL: anything but `status=up` (the default) is a failure, as in Kuma. */
export function kumaSignal(meta: PingMetadata): PingSignal {
  return meta.status === undefined || meta.status === 'up' ? SUCCESS : FAIL;
}
