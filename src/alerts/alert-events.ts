import { errors } from '../domain/errors.js';
import { ALERT_EVENT_TYPES, type AlertEventType } from '../domain/events.js';

/** Spec §6 rule 2: what a new email setting or webhook listens to. */
export const DEFAULT_EVENTS: readonly AlertEventType[] = ['website_down', 'website_up'];

const KNOWN: ReadonlySet<string> = new Set(ALERT_EVENT_TYPES);

/** Spec §6 rule 1: unknown values are dropped (duplicates too); none left valid is a 400. */
export function normalizeEvents(values: readonly string[]): AlertEventType[] {
  const valid = [...new Set(values.filter((v) => KNOWN.has(v)))] as AlertEventType[];
  if (valid.length === 0) {
    throw errors.badRequest(`events has no valid value; choose from: ${ALERT_EVENT_TYPES.join(', ')}`);
  }
  return valid;
}
