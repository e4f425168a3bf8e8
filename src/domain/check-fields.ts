import type { CheckSettings } from './records.js';

/**
 * One setting of a check by its name in each place. The public names and the columns stay what
 * they are (clients and databases depend on them); this table is the one place that says which
 * is which, and in what unit.
 */
export interface CheckField {
  /** CheckSettings and Check: the services, the engine and the store's row mappers. */
  settings: keyof CheckSettings;
  /** The API's create and update bodies, and the monitoring file's check entry. */
  input: string;
  /**
   * The check record's read-only field of the same setting, where the record shows it under
   * another name (besides or instead of `input`): a PATCH sending it changed is told to use `input`.
   */
  record?: string;
  /** The column in both stores. */
  column: string;
  unit?: 'minutes' | 'seconds' | 'milliseconds';
}

/**
 * Every user-settable field of a check, in the order a monitoring file writes them. The
 * interval is one concept under four names: `checkFrequency` in requests and files, `interval`
 * in the record (null on a cron schedule), `intervalMinutes` in CheckSettings and
 * `interval_minutes` in the stores; the engine takes it in milliseconds (`intervalMs`,
 * engine/check-task.ts).
 */
export const CHECK_FIELDS: readonly CheckField[] = [
  { settings: 'url', input: 'url', column: 'url' },
  { settings: 'type', input: 'type', column: 'type' },
  { settings: 'name', input: 'name', column: 'name' },
  { settings: 'folder', input: 'folder', column: 'folder' },
  { settings: 'tags', input: 'tags', column: 'tags' },
  { settings: 'dependsOn', input: 'dependsOn', column: 'depends_on' },
  { settings: 'intervalMinutes', input: 'checkFrequency', record: 'interval', column: 'interval_minutes', unit: 'minutes' },
  { settings: 'regionOverride', input: 'checkRegionOverride', record: 'region', column: 'region_override' },
  { settings: 'method', input: 'httpMethod', record: 'method', column: 'method' },
  { settings: 'expectedStatusCodes', input: 'expectedStatusCodes', record: 'expectedStatus', column: 'expected_status_codes' },
  { settings: 'headers', input: 'requestHeaders', record: 'headers', column: 'headers' },
  { settings: 'body', input: 'requestBody', record: 'body', column: 'body' },
  { settings: 'responseValidation', input: 'responseValidation', column: 'response_validation' },
  { settings: 'cacheControlNoCache', input: 'cacheControlNoCache', column: 'cache_control_no_cache' },
  { settings: 'immediateRecheckEnabled', input: 'immediateRecheckEnabled', column: 'immediate_recheck' },
  { settings: 'responseTimeLimit', input: 'responseTimeLimit', column: 'response_time_limit', unit: 'milliseconds' },
  {
    settings: 'downConfirmationAttempts', input: 'downConfirmationAttempts', record: 'consecutiveFailureThreshold', column: 'down_confirmation_attempts',
  },
  { settings: 'pingPackets', input: 'pingPackets', column: 'ping_packets' },
  { settings: 'timezone', input: 'timezone', column: 'timezone' },
  { settings: 'schedule', input: 'schedule', column: 'schedule' },
  { settings: 'gracePeriodSeconds', input: 'gracePeriod', column: 'grace_seconds', unit: 'seconds' },
];

/** The setting's field by its input name (request body, monitoring file). */
export const fieldByInput: ReadonlyMap<string, CheckField> = new Map(CHECK_FIELDS.map((f) => [f.input, f]));
