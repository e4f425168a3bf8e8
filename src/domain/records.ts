import type { Tier } from './plans.js';
import type { CheckType, HttpMethod, ResponseValidation, Timing } from './check-types.js';
import type { DomainInfo, SslAlertMemory, SslInfo } from './probe-types.js';

export type Scope = 'checks:read' | 'checks:write' | 'checks:delete' | 'alerts:read' | 'alerts:write';
export const SCOPES: readonly Scope[] = ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'];

export interface Account {
  id: string;
  email: string;
  tier: Tier;
  /** Per-account override of the plan's maxChecks ("effective cap", spec 2.7). */
  maxChecksOverride: number | null;
  claimed: boolean;
  createdAt: number;
}

/** Restriction of a key to some checks or folders (spec 5.6). */
export interface KeyAccess {
  checkIds: string[];
  folders: string[];
}

export interface ApiKey {
  id: string;
  accountId: string;
  name: string | null;
  scopes: Scope[];
  access: KeyAccess | null;
  expiresAt: number | null;
  disabled: boolean;
  revokedAt: number | null;
  createdAt: number;
}

import type { MonitorStatus, Regions } from './events.js';
export type { DomainInfo, MonitorStatus, Regions };


/** What a user configures: every field the create and update bodies can set. */
export interface CheckSettings {
  name: string;
  url: string;
  type: CheckType;
  folder: string | null;
  method: HttpMethod;
  intervalMinutes: number;
  regionOverride: string | null;
  expectedStatusCodes: number[];
  headers: Record<string, string>;
  body: string | null;
  responseValidation: ResponseValidation | null;
  cacheControlNoCache: boolean;
  immediateRecheckEnabled: boolean;
  responseTimeLimit: number | null;
  downConfirmationAttempts: number;
  pingPackets: number;
  timezone: string | null;
  /** Heartbeats: a cron expression (in `timezone`) for when pings are due, instead of the interval. */
  schedule: string | null;
  /** Heartbeats: seconds a late ping is forgiven before the check counts as down. */
  gracePeriodSeconds: number;
  /** `key` or `key:value`, as given (domain/tags.ts matches them case-insensitively). */
  tags: string[];
  /** Ids of checks of the same account this one depends on: while one is down, its alerts wait (issue 27). */
  dependsOn: string[];
}

/** What monitoring has learned; written by the engine, read by the API. */
export interface CheckRuntime {
  status: MonitorStatus;
  consecutiveFailures: number;
  degraded: boolean;
  lastChecked: number | null;
  lastResponseTime: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  lastStatusChange: number | null;
  probesTotal: number;
  probesUp: number;
  ssl: SslInfo | null;
  domain: DomainInfo | null;
  regions: Regions | null;
  /** Which alerts were already sent in the current cycle (state machine memory). */
  errorAlerted: boolean;
  sslAlerts: SslAlertMemory | null;
}

export interface Check extends CheckSettings, CheckRuntime {
  /** Internal sequence: dashboard order, history foreign key. */
  seq: number;
  id: string;
  accountId: string;
  disabled: boolean;
  disabledReason: string | null;
  maintenance: boolean;
  maintenanceUntil: number | null;
  /** A scheduled maintenance window is in force for the check (issue 27); apart from the manual flag. */
  windowMaintenance: boolean;
  heartbeatToken: string | null;
  createdAt: number;
  updatedAt: number;
}

export type HistoryKind = 'probe' | 'event' | 'ping';

export interface HistoryRow {
  id: number;
  checkSeq: number;
  at: number;
  kind: HistoryKind;
  status: string;
  statusCode: number | null;
  responseTime: number | null;
  timing: Timing | null;
  error: string | null;
  region: string | null;
  snippet: string | null;
  meta: Record<string, unknown> | null;
}
