import type { AlertContent } from '../alert-content.js';
import { alertMessage } from './message.js';
import { credential, endpoint, optionalParam, type VendorRequest } from './vendor-request.js';

/**
 * Pushover Message API. URL: https://api.pushover.net/1/messages.json?token=<app token>&user=<user key>
 * (optionally &device=, &sound=, &priority=).
 */
export function pushoverRequest(webhookUrl: string, c: AlertContent): VendorRequest {
  const url = new URL(webhookUrl);
  const token = credential(url, ['token'], 'application token');
  const user = credential(url, ['user'], 'user key');
  const m = alertMessage(c);
  const priority = optionalParam(url, 'priority');
  const link = /^https?:\/\//.test(c.check.url) ? { url: c.check.url.slice(0, 512), url_title: `Open ${c.check.name}`.slice(0, 100) } : {};
  const device = optionalParam(url, 'device');
  const sound = optionalParam(url, 'sound');
  return {
    url: endpoint(url, '/1/messages.json'),
    body: {
      token,
      user,
      title: m.title.slice(0, 250),
      message: [m.summary, ...m.facts.filter(([k]) => k !== 'Check').map(([k, v]) => `${k}: ${v}`)].join('\n').slice(0, 1024),
      priority: priority !== null && /^-?[0-2]$/.test(priority) ? Number(priority) : m.severity === 'critical' ? 1 : 0,
      timestamp: Math.floor(c.at / 1000),
      ...link,
      ...(device ? { device } : {}),
      ...(sound ? { sound } : {}),
    },
  };
}
