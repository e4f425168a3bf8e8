import type { CheckType, HttpMethod, ResponseValidation } from '../../domain/check-types.js';
import type { Check, CheckSettings, DomainInfo, MonitorStatus, Regions } from '../../domain/records.js';
import type { SslAlertMemory, SslInfo } from '../../domain/probe-types.js';
import { fromBool, parseJson, toBool, toJson } from './values.js';

/** A row of `checks` as either store reads it (`SELECT *`). */
export interface CheckRowDb {
  seq: number;
  id: string;
  account_id: string;
  name: string;
  url: string;
  type: string;
  folder: string | null;
  method: string;
  interval_minutes: number;
  region_override: string | null;
  expected_status_codes: string;
  headers: string;
  body: string | null;
  response_validation: string | null;
  cache_control_no_cache: number;
  immediate_recheck: number;
  response_time_limit: number | null;
  down_confirmation_attempts: number;
  ping_packets: number;
  timezone: string | null;
  schedule: string | null;
  grace_seconds: number | null;
  tags: string;
  depends_on: string;
  disabled: number;
  disabled_reason: string | null;
  maintenance: number;
  maintenance_until: number | null;
  window_maintenance: number;
  heartbeat_token: string | null;
  status: string;
  consecutive_failures: number;
  degraded: number;
  last_checked: number | null;
  last_response_time: number | null;
  last_status_code: number | null;
  last_error: string | null;
  last_status_change: number | null;
  probes_total: number;
  probes_up: number;
  ssl: string | null;
  domain: string | null;
  regions: string | null;
  error_alerted: number;
  ssl_alerts: string | null;
  created_at: number;
  updated_at: number;
}

export function rowToCheck(r: CheckRowDb): Check {
  return {
    seq: r.seq,
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    url: r.url,
    type: r.type as CheckType,
    folder: r.folder,
    method: r.method as HttpMethod,
    intervalMinutes: r.interval_minutes,
    regionOverride: r.region_override,
    expectedStatusCodes: JSON.parse(r.expected_status_codes) as number[],
    headers: JSON.parse(r.headers) as Record<string, string>,
    body: r.body,
    responseValidation: parseJson<ResponseValidation>(r.response_validation),
    cacheControlNoCache: toBool(r.cache_control_no_cache),
    immediateRecheckEnabled: toBool(r.immediate_recheck),
    responseTimeLimit: r.response_time_limit,
    downConfirmationAttempts: r.down_confirmation_attempts,
    pingPackets: r.ping_packets,
    timezone: r.timezone,
    schedule: r.schedule,
    gracePeriodSeconds: r.grace_seconds ?? 0,
    tags: JSON.parse(r.tags) as string[],
    dependsOn: JSON.parse(r.depends_on) as string[],
    disabled: toBool(r.disabled),
    disabledReason: r.disabled_reason,
    maintenance: toBool(r.maintenance),
    maintenanceUntil: r.maintenance_until,
    windowMaintenance: toBool(r.window_maintenance),
    heartbeatToken: r.heartbeat_token,
    status: r.status as MonitorStatus,
    consecutiveFailures: r.consecutive_failures,
    degraded: toBool(r.degraded),
    lastChecked: r.last_checked,
    lastResponseTime: r.last_response_time,
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    lastStatusChange: r.last_status_change,
    probesTotal: r.probes_total,
    probesUp: r.probes_up,
    ssl: parseJson<SslInfo>(r.ssl),
    domain: parseJson<DomainInfo>(r.domain),
    regions: parseJson<Regions>(r.regions),
    errorAlerted: toBool(r.error_alerted),
    sslAlerts: parseJson<SslAlertMemory>(r.ssl_alerts),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Column values of the settings a user can change, in SETTINGS_COLUMNS order. */
export function settingsValues(s: CheckSettings): unknown[] {
  return [
    s.name, s.url, s.type, s.folder, s.method, s.intervalMinutes, s.regionOverride,
    JSON.stringify(s.expectedStatusCodes), JSON.stringify(s.headers), s.body, toJson(s.responseValidation),
    fromBool(s.cacheControlNoCache), fromBool(s.immediateRecheckEnabled), s.responseTimeLimit,
    s.downConfirmationAttempts, s.pingPackets, s.timezone, s.schedule, s.gracePeriodSeconds, JSON.stringify(s.tags),
    JSON.stringify(s.dependsOn),
  ];
}
export const SETTINGS_COLUMNS = [
  'name', 'url', 'type', 'folder', 'method', 'interval_minutes', 'region_override',
  'expected_status_codes', 'headers', 'body', 'response_validation',
  'cache_control_no_cache', 'immediate_recheck', 'response_time_limit',
  'down_confirmation_attempts', 'ping_packets', 'timezone', 'schedule', 'grace_seconds', 'tags', 'depends_on',
];
