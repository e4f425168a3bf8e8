import type { Check } from '../domain/records.js';
import type { Config } from '../config.js';
import { inMaintenance } from '../monitor/maintenance.js';
import { checkUrl } from '../domain/check-url.js';
import { publicStatus } from '../core/views.js';
import type { CheckTrends } from '../stats/check-summaries.js';

/** One row of the dashboard list (GET /v1/public/checks/summary, and each live update). */
export function checkSummary(check: Check, trends: CheckTrends, config: Config, now: number) {
  const status = publicStatus(check);
  return {
    id: check.id,
    name: check.name || check.url,
    url: checkUrl(check, config),
    type: check.type,
    folder: check.folder,
    status,
    maintenance: inMaintenance(check, now),
    lastChecked: check.lastChecked === null ? null : new Date(check.lastChecked).toISOString(),
    lastResponseTime: check.lastResponseTime,
    lastError: status === 'down' ? check.lastError : null,
    ...trends.trend(check.seq, now),
  };
}
