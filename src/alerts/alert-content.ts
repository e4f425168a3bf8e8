import type { Config } from '../config.js';
import { checkUrl } from '../domain/check-url.js';
import type { Check, DomainInfo } from '../domain/records.js';
import type { AlertEvent, AlertEventType, Regions } from '../domain/events.js';

/**
 * What one alert says, whatever the channel: built once when the event happens and stored with
 * each delivery, so a retry after a restart sends what was true at the time.
 */
export interface AlertContent {
  event: AlertEventType;
  test: boolean;
  /** Epoch ms of the transition. */
  at: number;
  check: { id: string; name: string; url: string; type: string; status: string };
  previousStatus: string | null;
  details: {
    statusCode: number | null;
    responseTime: number | null;
    error: string | null;
    region: string | null;
    regions: Regions | null;
  };
  ssl: { issuer: string; subject: string; validTo: string; fingerprint: string } | null;
  domain: DomainInfo | null;
  /** Issue 17: a repeat `website_down` while the check stays down; when it went down. Absent on other alerts. */
  reminder?: { downSince: number };
}

/**
 * A heartbeat's ping URL is its credential: alerts leave the site other channels (Slack, a
 * vendor), so they name it without the token.
 */
function alertUrl(check: Check, config: Config): string {
  if (check.type !== 'heartbeat') return checkUrl(check, config);
  return `${config.heartbeatUrl}/heartbeat/${(check.heartbeatToken ?? '').slice(0, 6)}…`;
}

export function alertContent(check: Check, event: AlertEvent, config: Config): AlertContent {
  return {
    event: event.type,
    test: false,
    at: event.at,
    check: { id: check.id, name: check.name, url: alertUrl(check, config), type: check.type, status: event.status },
    previousStatus: event.previousStatus,
    details: {
      statusCode: event.statusCode,
      responseTime: event.responseTime,
      error: event.error,
      region: event.regions.primary,
      regions: event.regions,
    },
    ssl: event.ssl ? { issuer: event.ssl.issuer, subject: event.ssl.subject, validTo: event.ssl.validTo, fingerprint: event.ssl.fingerprint } : null,
    domain: event.domain ?? null,
  };
}

/** A `website_down` reminder: the check as it is now, still down since `downSince`. */
export function reminderContent(check: Check, downSince: number, now: number, config: Config): AlertContent {
  return {
    ...alertContent(check, {
      type: 'website_down', at: now, previousStatus: 'down', status: check.status, error: check.lastError,
      statusCode: check.lastStatusCode, responseTime: null, ssl: null,
      regions: check.regions ?? { primary: config.region, peer: null, regionsTotal: 1, regionsDown: 1, confirmedDown: false },
    }, config),
    reminder: { downSince },
  };
}

/** The sample every test delivery carries: a `website_down` with `test: true` (decisions §8). */
export function testContent(now: number, config: Config): AlertContent {
  return {
    event: 'website_down',
    test: true,
    at: now,
    check: { id: 'chk_00000000000000000000', name: 'Vigil test check', url: 'https://example.com', type: 'website', status: 'down' },
    previousStatus: 'up',
    details: {
      statusCode: 503,
      responseTime: null,
      error: 'This is a test alert from Vigil',
      region: config.region,
      regions: { primary: config.region, peer: null, regionsTotal: 1, regionsDown: 1, confirmedDown: false },
    },
    ssl: null,
    domain: null,
  };
}
