import type { AlertContent } from '../alert-content.js';
import { closesIncident, incidentKey } from './incident.js';
import { alertMessage } from './message.js';
import { credential, endpoint, type VendorRequest } from './vendor-request.js';

/**
 * Opsgenie Alert API: create, and close by alias. URL: https://api.opsgenie.com/v2/alerts?apiKey=<key>
 * (api.eu.opsgenie.com for the EU instance); the key goes in `Authorization: GenieKey`.
 */
export function opsgenieRequest(webhookUrl: string, c: AlertContent): VendorRequest {
  const url = new URL(webhookUrl);
  const key = credential(url, ['apiKey', 'apikey', 'key'], 'API key');
  const alerts = endpoint(url, '/v2/alerts');
  const headers = { Authorization: `GenieKey ${key}` };
  const alias = incidentKey(c);
  const m = alertMessage(c);
  if (closesIncident(c)) {
    return {
      url: `${alerts}/${encodeURIComponent(alias)}/close?identifierType=alias`,
      headers,
      body: { source: 'Vigil', note: `${m.title}. ${m.summary}` },
    };
  }
  return {
    url: alerts,
    headers,
    body: {
      message: m.title.slice(0, 130),
      alias,
      description: [m.summary, '', ...m.facts.map(([k, v]) => `${k}: ${v}`)].join('\n').slice(0, 15_000),
      priority: m.severity === 'critical' ? 'P1' : 'P3',
      source: 'Vigil',
      entity: c.check.name,
      tags: ['vigil', c.event, c.check.type],
      details: Object.fromEntries(m.facts),
    },
  };
}
