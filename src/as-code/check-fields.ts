import { applyInput, DEFAULT_SETTINGS } from '../core/check-settings.js';
import type { CreateCheckInput } from '../core/schemas/checks.js';
import type { CheckType } from '../domain/check-types.js';
import type { CheckSettings } from '../domain/records.js';
import { CHECK_FIELDS } from '../domain/check-fields.js';

/** A check's settings in the API's input names: what a file entry says of it (no key, no pause). */
export type CheckFields = Omit<CreateCheckInput, 'url'> & { url?: string };

/**
 * The create input that gives these settings: every field of POST /v1/public/checks, in its
 * input name, in the order a file writes them (domain/check-fields.ts maps the names;
 * test/unit/as-code-check-fields.test.ts holds it to the schema). A heartbeat has no url (its
 * ping URL is generated); dependsOn holds ids here, which plan.ts and export-file.ts translate.
 */
export function fieldsOfSettings(s: CheckSettings): CheckFields {
  const fields: Record<string, unknown> = {};
  for (const f of CHECK_FIELDS) if (f.settings !== 'url' || s.type !== 'heartbeat') fields[f.input] = s[f.settings];
  return fields as CheckFields;
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
