import type { AlertContent } from '../../src/alerts/alert-content.js';

/** The alert every format test renders: a check going down (or up again) at a fixed time. */
export const ALERT_AT = Date.UTC(2026, 5, 1, 12, 0, 0);
const REGIONS = { primary: 'vps-eu-1', peer: null, regionsTotal: 1, regionsDown: 1, confirmedDown: false };

export function sampleContent(event: AlertContent['event'], over: Partial<AlertContent> = {}): AlertContent {
  return {
    event,
    test: false,
    at: ALERT_AT,
    check: { id: 'chk_0123456789abcdef0123', name: 'Shop API', url: 'https://shop.example.com/health', type: 'website', status: event === 'website_up' ? 'up' : 'down' },
    previousStatus: event === 'website_up' ? 'down' : 'up',
    details: { statusCode: 503, responseTime: event === 'website_up' ? 87 : null, error: 'Expected status 200, got 503', region: 'vps-eu-1', regions: REGIONS },
    ssl: null,
    domain: null,
    ...over,
  };
}
