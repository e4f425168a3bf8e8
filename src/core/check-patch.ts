import { isDeepStrictEqual } from 'node:util';
import { errors } from '../domain/errors.js';
import { CHECK_FIELDS } from '../domain/check-fields.js';
import { PATCH_TYPES, RECORD_READ_ONLY_FIELDS, type UpdateCheckBody, type UpdateCheckInput } from './schemas/checks.js';

const READ_ONLY = new Set(RECORD_READ_ONLY_FIELDS);

/** Read-only record fields that another field or endpoint sets: where the caller should look. */
const SET_BY: Record<string, string> = {
  ...Object.fromEntries(CHECK_FIELDS.filter((f) => f.record !== undefined).map((f) => [f.record, f.input])),
  status: 'POST /v1/public/checks/{id}/toggle',
  disabled: 'POST /v1/public/checks/{id}/toggle',
  disabledReason: 'POST /v1/public/checks/{id}/toggle',
  maintenanceMode: 'POST /v1/public/checks/{id}/maintenance',
  maintenanceUntil: 'POST /v1/public/checks/{id}/maintenance',
};

/**
 * Observations of the monitor: they move between a GET and the PATCH that sends the record
 * back without anyone asking, and nobody could mean to set them, so any value is ignored.
 */
const OBSERVED = new Set([
  'lastChecked', 'lastResponseTime', 'lastProbe', 'uptime', 'consecutiveFailures', 'lastStatusCode', 'lastError', 'ssl', 'domain', 'updatedAt',
  'blockedBy', 'nextExpectedAt', 'scheduleDescription',
]);

/**
 * The settings a PATCH body asks to change, given the check's current record (its GET view),
 * so that a record read with GET can be sent back as a PATCH. Read-only fields equal to the
 * record are ignored and different ones are a 400 naming the field; the record's own url and
 * type sent back unchanged change nothing (a heartbeat's ping URL, a type fixed at creation).
 */
export function settingsOfPatch(body: UpdateCheckBody, record: Readonly<Record<string, unknown>>): UpdateCheckInput {
  const input: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    if (!READ_ONLY.has(name)) input[name] = value;
    else if (!OBSERVED.has(name) && !isDeepStrictEqual(value, asJson(record[name]))) {
      const hint = SET_BY[name];
      throw errors.badRequest(`${name} is read-only${hint ? `: change it with ${hint}` : ''} (send it unchanged or leave it out)`);
    }
  }
  if (input.url !== undefined && input.url === record.url) delete input.url;
  if (input.type !== undefined && input.type === record.type) delete input.type;
  if (input.type !== undefined && !(PATCH_TYPES as readonly unknown[]).includes(input.type)) {
    throw errors.badRequest(`type must be one of: ${PATCH_TYPES.join(', ')}`);
  }
  return input as UpdateCheckInput;
}

/** A record value as the client received it (what it sends back is parsed JSON). */
function asJson(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
