import type { AlertContent } from '../alert-content.js';

/** How an alert reads to a person: the words every channel format (and email) starts from. */
export type Severity = 'critical' | 'warning' | 'ok';

export interface AlertMessage {
  title: string;
  /** One line: what happened, in plain words. */
  summary: string;
  severity: Severity;
  /** Label and value pairs, in reading order; empty values are left out. */
  facts: Array<[string, string]>;
}

const SEVERITY: Record<AlertContent['event'], Severity> = {
  website_down: 'critical',
  website_up: 'ok',
  website_error: 'warning',
  ssl_error: 'critical',
  ssl_warning: 'warning',
  domain_expiring: 'warning',
  domain_expired: 'critical',
  domain_renewed: 'ok',
};

export const severityOf = (c: AlertContent): Severity => SEVERITY[c.event];

/** `2026-06-01 12:00 UTC`: unambiguous in any channel, with no locale to guess. */
export function readableTime(ms: number | string): string {
  const d = typeof ms === 'number' ? new Date(ms) : new Date(ms);
  if (Number.isNaN(d.getTime())) return String(ms);
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const readableDate = (iso: string): string => (Number.isNaN(Date.parse(iso)) ? iso : new Date(iso).toISOString().slice(0, 10));

function daysUntil(iso: string, from: number): number {
  return Math.floor((Date.parse(iso) - from) / 86_400_000);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function titleOf(c: AlertContent): string {
  const name = c.check.name;
  const domain = c.domain?.name ?? name;
  switch (c.event) {
    case 'website_down':
      return c.reminder ? `Reminder: ${name} is still down` : `${name} is down`;
    case 'website_up':
      return `${name} is up again`;
    case 'website_error':
      return `${name} reported an error`;
    case 'ssl_error':
      return `Certificate problem on ${name}`;
    case 'ssl_warning':
      return `Certificate of ${name} expires soon`;
    case 'domain_expiring':
      return `Domain ${domain} expires soon`;
    case 'domain_expired':
      return `Domain ${domain} has expired`;
    case 'domain_renewed':
      return `Domain ${domain} was renewed`;
  }
}

function summaryOf(c: AlertContent): string {
  const d = c.details;
  switch (c.event) {
    case 'website_down':
      if (c.reminder) return `It has been down since ${readableTime(c.reminder.downSince)}${d.error ? `: ${d.error}` : ''}.`;
      return d.error ? `It stopped answering as expected: ${d.error}.` : 'It stopped answering as expected.';
    case 'website_up':
      return d.responseTime !== null ? `It answers again (${Math.round(d.responseTime)} ms).` : 'It answers again.';
    case 'website_error':
      return `A check failed${d.error ? `: ${d.error}` : ''}. It is not counted as down until the failure is confirmed.`;
    case 'ssl_error':
    case 'ssl_warning':
      return d.error ?? 'The certificate needs attention.';
    case 'domain_expiring': {
      const expires = c.domain?.expiresAt;
      return expires ? `The registration expires in ${plural(daysUntil(expires, c.at), 'day')}, on ${readableDate(expires)}.` : 'The registration expires soon.';
    }
    case 'domain_expired':
      return c.domain?.expiresAt ? `The registration expired on ${readableDate(c.domain.expiresAt)}.` : 'The registration has expired.';
    case 'domain_renewed':
      return c.domain?.expiresAt ? `The registration now runs until ${readableDate(c.domain.expiresAt)}.` : 'The registration was renewed.';
  }
}

export function alertMessage(c: AlertContent): AlertMessage {
  if (c.test) {
    return {
      title: 'Test alert from Vigil',
      summary: 'If you can read this, Vigil alerts will reach this channel.',
      severity: 'ok',
      facts: [['Sent', readableTime(c.at)]],
    };
  }
  const d = c.details;
  const facts: Array<[string, string | null]> = [
    ['Check', c.check.name],
    ['URL', c.check.url],
    ['Status', c.previousStatus && c.previousStatus !== c.check.status ? `${c.previousStatus} → ${c.check.status}` : c.check.status],
    ['Error', c.event === 'website_down' || c.event === 'website_error' ? d.error : null],
    ['HTTP status', d.statusCode === null ? null : String(d.statusCode)],
    ['Response time', d.responseTime === null ? null : `${Math.round(d.responseTime)} ms`],
    ['Certificate expires', c.ssl ? readableDate(c.ssl.validTo) : null],
    ['Certificate issuer', c.ssl?.issuer ?? null],
    ['Domain expires', c.domain?.expiresAt ? readableDate(c.domain.expiresAt) : null],
    ['Registrar', c.domain?.registrar ?? null],
    ['Region', d.region],
    ['Time', readableTime(c.at)],
  ];
  return {
    title: titleOf(c),
    summary: summaryOf(c),
    severity: severityOf(c),
    facts: facts.filter((f): f is [string, string] => f[1] !== null && f[1] !== ''),
  };
}
