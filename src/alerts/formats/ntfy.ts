import type { AlertContent } from '../alert-content.js';
import { cut } from './html.js';
import { alertMessage, type Severity } from './message.js';
import { MisconfiguredWebhook, optionalParam, type VendorRequest } from './vendor-request.js';

/**
 * ntfy (https://docs.ntfy.sh/publish/): the message is the plain-text body of a POST to the
 * topic URL; title, priority (1-5), tags and click action travel as headers. URL:
 * https://ntfy.sh/<topic> (or a self-hosted server), optionally ?token=<access token>, which is
 * sent as `Authorization: Bearer`, and ?priority=1..5 to override the severity's priority.
 */

const PRIORITY: Record<Severity, string> = { critical: '5', warning: '4', ok: '3' };
const TAG: Record<Severity, string> = { critical: 'rotating_light', warning: 'warning', ok: 'white_check_mark' };

/** Header values are Latin-1 on the wire; ntfy decodes RFC 2047 encoded words for anything else. */
function headerText(s: string): string {
  const line = s.replace(/[\r\n]+/g, ' ');
  return /^[\x20-\x7e]*$/.test(line) ? line : `=?UTF-8?B?${Buffer.from(line, 'utf8').toString('base64')}?=`;
}

export function ntfyRequest(webhookUrl: string, c: AlertContent): VendorRequest {
  const url = new URL(webhookUrl);
  const topic = url.pathname.replace(/\/+$/, '');
  if (topic === '') throw new MisconfiguredWebhook('the webhook URL needs a topic: https://ntfy.sh/<topic>');
  const m = alertMessage(c);
  const token = optionalParam(url, 'token');
  const priority = optionalParam(url, 'priority');
  const tags = [TAG[m.severity], 'vigil', ...(c.reminder ? ['repeat'] : [])];
  const click: Record<string, string> = !c.test && /^https?:\/\//.test(c.check.url) ? { Click: c.check.url } : {};
  return {
    url: `${url.origin}${topic}`,
    headers: {
      Title: headerText(cut(m.title, 200)),
      Priority: priority !== null && /^[1-5]$/.test(priority) ? priority : PRIORITY[m.severity],
      Tags: tags.join(','),
      ...click,
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: cut([m.summary, '', ...m.facts.filter(([k]) => k !== 'Check').map(([k, v]) => `${k}: ${v}`)].join('\n'), 4000),
  };
}
