import type { Config } from '../config.js';
import { inMaintenance } from '../monitor/maintenance.js';
import { limitsFor } from '../domain/plans.js';
import type { Principal } from './principal.js';
import type { AlertSummary } from '../alerts/alerts-module.js';
import { checkUrl } from '../domain/check-url.js';
import type { Check, HistoryRow } from '../domain/records.js';
import { statusEndpointStatus } from '../monitor/state-machine.js';
import { intervalOf, nextExpectedAt, scheduleInWords } from './heartbeat-schedule.js';

/** Output shapes (spec 2.1, 2.2, 2.7), shared by REST and the tool server. */
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function publicStatus(check: Pick<Check, 'disabled' | 'status'>): 'pending' | 'up' | 'down' | 'paused' {
  return check.disabled ? 'paused' : check.status;
}


function listFields(check: Check, config: Config) {
  return {
    id: check.id,
    name: check.name,
    url: checkUrl(check, config),
    type: check.type,
    method: check.method,
    status: publicStatus(check),
    interval: intervalOf(check),
    schedule: check.schedule,
    timezone: check.timezone,
    region: check.regionOverride ?? config.region,
    expectedStatus: check.expectedStatusCodes[0] ?? 200,
    lastChecked: iso(check.lastChecked),
    lastResponseTime: check.lastResponseTime,
    uptime: check.probesTotal === 0 ? 100 : (check.probesUp / check.probesTotal) * 100,
    createdAt: new Date(check.createdAt).toISOString(),
    folder: check.folder,
    tags: check.tags,
  };
}

/*
 * The views extend the list fields with Object.assign, not `{ ...listFields(), more }`: V8 adds
 * each property after a spread through a slow path, and the 27 of a check's detail made it cost
 * 60 µs (1.5 µs assigned), the larger part of every first read of a check.
 */

export function checkListItem(check: Check, config: Config) {
  return Object.assign(listFields(check, config), {
    ssl: { valid: check.ssl?.valid ?? null, issuer: check.ssl?.issuer ?? null, expiresAt: check.ssl?.validTo ?? null },
  });
}

export function checkDetail(check: Check, config: Config, now: number, blockedBy: readonly string[] = []) {
  const ssl = check.ssl;
  return Object.assign(listFields(check, config), {
    headers: check.headers,
    body: check.body,
    responseValidation: check.responseValidation,
    consecutiveFailures: check.consecutiveFailures,
    consecutiveFailureThreshold: check.downConfirmationAttempts,
    lastStatusCode: check.lastStatusCode,
    lastError: publicStatus(check) === 'down' ? check.lastError : null,
    ssl: {
      valid: ssl?.valid ?? null,
      error: ssl?.error ?? null,
      issuer: ssl?.issuer ?? null,
      subject: ssl?.subject ?? null,
      validFrom: ssl?.validFrom ?? null,
      validTo: ssl?.validTo ?? null,
      serialNumber: ssl?.serialNumber ?? null,
      fingerprint: ssl?.fingerprint ?? null,
    },
    domain: {
      name: check.domain?.name ?? (check.type === 'domain' ? check.url : null),
      registrar: check.domain?.registrar ?? null,
      expiresAt: check.domain?.expiresAt ?? null,
      updatedAt: check.domain?.updatedAt ?? null,
    },
    updatedAt: new Date(check.updatedAt).toISOString(),
    expectedStatusCodes: check.expectedStatusCodes,
    cacheControlNoCache: check.cacheControlNoCache,
    immediateRecheckEnabled: check.immediateRecheckEnabled,
    responseTimeLimit: check.responseTimeLimit,
    downConfirmationAttempts: check.downConfirmationAttempts,
    pingPackets: check.pingPackets,
    checkRegionOverride: check.regionOverride,
    disabled: check.disabled,
    disabledReason: check.disabledReason,
    maintenanceMode: inMaintenance(check, now),
    maintenanceUntil: inMaintenance(check, now) ? iso(check.maintenanceUntil) : null,
    scheduleDescription: scheduleInWords(check),
    nextExpectedAt: iso(nextExpectedAt(check, now)),
    gracePeriod: check.gracePeriodSeconds,
    dependsOn: check.dependsOn,
    blockedBy,
  });
}


export function accountView(principal: Principal, config: Config, usageChecks: number, alerts: AlertSummary) {
  const account = principal.account;
  const limits = { ...limitsFor(config, account) };
  return {
    tier: account.tier,
    scopes: principal.scopes,
    key: principal.key ? { expiresAt: principal.key.expiresAt, access: principal.key.access } : null,
    limits,
    usage: { checks: usageChecks, webhooks: alerts.webhookCount },
    alerts,
    dashboardUrl: config.dashboardUrl,
    upgradeUrl: account.tier === 'free' ? config.billing.upgradeUrl : null,
    ...(account.claimed ? {} : { claimed: false, claimHint: 'Ask the account owner to open the claim link emailed at signup; alerts start after the claim.' }),
  };
}

const NO_REGIONS = { primary: null, peer: null, regionsTotal: 0, regionsDown: 0, confirmedDown: false };

/** Spec 2.3: nothing in it moves by itself, so its hash is a faithful ETag. */
export function statusObject(check: Check, now: number, blockedBy: readonly string[] = []) {
  const status = statusEndpointStatus(check, check.disabled);
  return {
    id: check.id,
    name: check.name || check.url,
    status,
    lastStatusChange: check.lastStatusChange,
    lastError: status === 'offline' ? check.lastError : null,
    disabled: check.disabled,
    maintenanceMode: inMaintenance(check, now),
    regions: check.regions ?? NO_REGIONS,
    blockedBy,
  };
}

/** Spec 2.4; failed results carry null responseTime and timing. */
export function historyEntry(row: HistoryRow, checkId: string) {
  const failed = row.kind !== 'event' && row.status !== 'up';
  return {
    id: String(row.id),
    checkId,
    type: row.kind,
    status: row.status,
    statusCode: row.statusCode,
    responseTime: failed ? null : row.responseTime,
    region: row.region,
    timing: failed ? null : row.timing,
    error: row.error,
    snippet: row.snippet,
    createdAt: new Date(row.at).toISOString(),
    details: row.meta,
  };
}
