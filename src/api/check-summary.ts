import type { Check } from '../domain/records.js';
import type { Config } from '../config.js';
import { inMaintenance } from '../monitor/maintenance.js';
import { checkUrl } from '../domain/check-url.js';
import { publicStatus } from '../core/views.js';
import type { CheckTrends } from '../stats/check-summaries.js';
import type { LastProbe } from '../monitor/live-check.js';
import { intervalOf, nextExpectedAt, scheduleInWords } from '../core/heartbeat-schedule.js';

/**
 * One row of the dashboard list (GET /v1/public/checks/summary, and each live update). Its
 * last check and response time are the latest result's (`lastProbe`), not the record's synced
 * fields, which move only on status changes.
 */
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export async function checkSummary(check: Check, trends: CheckTrends, config: Config, now: number, lastProbe: LastProbe | null) {
  const status = publicStatus(check);
  const lastChecked = lastProbe?.at ?? check.lastChecked;
  return {
    id: check.id,
    name: check.name || check.url,
    url: checkUrl(check, config),
    type: check.type,
    folder: check.folder,
    tags: check.tags,
    status,
    maintenance: inMaintenance(check, now),
    // What the status endpoint calls `degraded`: up, but slower than responseTimeLimit.
    degraded: status === 'up' && check.degraded,
    lastChecked: lastChecked === null ? null : new Date(lastChecked).toISOString(),
    lastResponseTime: lastProbe ? lastProbe.responseTime : check.lastResponseTime,
    lastError: status === 'down' ? check.lastError : null,
    interval: intervalOf(check),
    schedule: check.schedule,
    timezone: check.timezone,
    scheduleDescription: scheduleInWords(check),
    nextExpectedAt: iso(nextExpectedAt(check, now)),
    ...(await trends.trend(check.seq, now)),
  };
}
