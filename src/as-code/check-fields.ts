import { applyInput, DEFAULT_SETTINGS } from '../core/check-settings.js';
import type { CreateCheckInput } from '../core/schemas/checks.js';
import type { CheckType } from '../domain/check-types.js';
import type { CheckSettings } from '../domain/records.js';

/** A check's settings in the API's input names: what a file entry says of it (no key, no pause). */
export type CheckFields = Omit<CreateCheckInput, 'url'> & { url?: string };

/**
 * The create input that gives these settings: every field of POST /v1/public/checks, in its
 * input name (test/unit/as-code-check-fields.test.ts holds it to the schema, so a new field
 * cannot be forgotten here). A heartbeat has no url (its ping URL is generated).
 */
export function fieldsOfSettings(s: CheckSettings): CheckFields {
  return {
    ...(s.type === 'heartbeat' ? {} : { url: s.url }),
    type: s.type,
    name: s.name,
    folder: s.folder,
    tags: s.tags,
    // Ids here; the file names them by key (plan.ts and export-file.ts translate).
    dependsOn: s.dependsOn,
    checkFrequency: s.intervalMinutes,
    checkRegionOverride: s.regionOverride,
    httpMethod: s.method,
    expectedStatusCodes: s.expectedStatusCodes,
    requestHeaders: s.headers,
    requestBody: s.body,
    responseValidation: s.responseValidation,
    cacheControlNoCache: s.cacheControlNoCache,
    immediateRecheckEnabled: s.immediateRecheckEnabled,
    responseTimeLimit: s.responseTimeLimit,
    downConfirmationAttempts: s.downConfirmationAttempts,
    pingPackets: s.pingPackets,
    timezone: s.timezone,
    schedule: s.schedule,
    gracePeriod: s.gracePeriodSeconds,
  };
}

/**
 * The settings a file entry declares: a field left out has its create default, so the entry
 * says everything about the check (a heartbeat without a name keeps the one it has, or gets the
 * generated one; any other check is named by its URL, as on create).
 */
export function declaredFields(entry: CreateCheckInput, currentName: string | null): CheckFields {
  const type: CheckType = entry.type ?? 'website';
  const settings = entrySettings(entry);
  const fields = fieldsOfSettings(settings);
  if (entry.name === undefined) {
    if (type === 'heartbeat') {
      if (currentName === null) delete fields.name;
      else fields.name = currentName;
    } else fields.name = settings.url;
  }
  return fields;
}

/** The settings a create with this input starts from, as the checks service builds them. */
export function entrySettings(entry: CreateCheckInput): CheckSettings {
  const type: CheckType = entry.type ?? 'website';
  return applyInput({ ...DEFAULT_SETTINGS, name: '', url: '', type }, { ...entry, type });
}

/** The fields of a check that a file needs to say: those that differ from the defaults of its type (its name, url and type always). */
export function writtenFields(s: CheckSettings): CheckFields {
  const all = fieldsOfSettings(s);
  const defaults = fieldsOfSettings(applyInput({ ...DEFAULT_SETTINGS, name: '', url: '', type: s.type }, { type: s.type }));
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(all)) {
    const always = name === 'name' || name === 'url' || name === 'type';
    if (always || JSON.stringify(value) !== JSON.stringify((defaults as Record<string, unknown>)[name])) out[name] = value;
  }
  return out as CheckFields;
}
