import type { AlertContent } from '../alert-content.js';

/**
 * Incident tools (PagerDuty, Opsgenie) group alerts into incidents: one per check and concern,
 * so `website_up` closes what `website_down` opened, and `domain_renewed` what
 * `domain_expiring`/`domain_expired` opened.
 */
export function incidentKey(c: AlertContent): string {
  const base = `vigil-${c.check.id}`;
  if (c.event === 'ssl_error' || c.event === 'ssl_warning') return `${base}-ssl`;
  if (c.event.startsWith('domain_')) return `${base}-domain`;
  return base;
}

/** Events that end an incident rather than open one. */
export const closesIncident = (c: AlertContent): boolean => c.event === 'website_up' || c.event === 'domain_renewed';
