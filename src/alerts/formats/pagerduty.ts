import type { AlertContent } from '../alert-content.js';
import { closesIncident, incidentKey } from './incident.js';
import { alertMessage } from './message.js';
import { credential, endpoint, type VendorRequest } from './vendor-request.js';

/**
 * PagerDuty Events API v2: `trigger` and `resolve` with a dedup key per check (and concern).
 * URL: https://events.pagerduty.com/v2/enqueue?routing_key=<integration key>.
 */
export function pagerDutyRequest(webhookUrl: string, c: AlertContent): VendorRequest {
  const url = new URL(webhookUrl);
  const routingKey = credential(url, ['routing_key', 'routingKey', 'integration_key'], 'integration key');
  const target = endpoint(url, '/v2/enqueue');
  const dedupKey = incidentKey(c);
  if (closesIncident(c)) {
    return { url: target, body: { routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey } };
  }
  const m = alertMessage(c);
  return {
    url: target,
    body: {
      routing_key: routingKey,
      event_action: 'trigger',
      dedup_key: dedupKey,
      payload: {
        summary: `${m.title}: ${m.summary}`.slice(0, 1024),
        source: c.check.url || c.check.name,
        severity: m.severity === 'critical' ? 'critical' : 'warning',
        timestamp: new Date(c.at).toISOString(),
        component: c.check.name,
        group: c.check.type,
        class: c.event,
        custom_details: Object.fromEntries(m.facts),
      },
      client: 'Vigil',
    },
  };
}
