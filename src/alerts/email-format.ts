import type { Mail } from './delivery/mailer.js';
import type { AlertContent } from './alert-content.js';
import type { EmailFormat } from '../store/alert-store.js';
import { escapeHtml } from './formats/html.js';
import { alertMessage, type Severity } from './formats/message.js';

/**
 * Alert emails (decisions §8: `html` or `text` per `emailFormat`). The html form is one
 * table-based card with inline styles (what mail clients render), and always travels with
 * its text twin for clients that show plain text.
 */

const TAG: Record<Severity, string> = { critical: 'ALERT', warning: 'WARNING', ok: 'RESOLVED' };
const COLOR: Record<Severity, string> = { critical: '#c62828', warning: '#b26a00', ok: '#2e7d32' };


/** Subjects are one line whatever a check's name holds. */
const oneLine = (s: string): string => s.replace(/[\r\n]+/g, ' ').trim();

export function alertMail(to: string, content: AlertContent, format: EmailFormat): Mail {
  const m = alertMessage(content);
  const subject = oneLine(content.test ? `[Vigil] ${m.title}` : `[Vigil ${TAG[m.severity]}] ${m.title}`);
  const width = Math.max(0, ...m.facts.map(([k]) => k.length)) + 2;
  const text = [
    m.title,
    '='.repeat(Math.min(72, m.title.length)),
    '',
    m.summary,
    '',
    ...m.facts.map(([k, v]) => `${`${k}:`.padEnd(width)}${v}`),
    '',
    '-- ',
    'Sent by Vigil. Change these alerts in the alert settings of your account.',
    '',
  ].join('\n');
  if (format === 'text') return { to, subject, text };
  return { to, subject, text, html: htmlBody(m.title, m.summary, m.facts, COLOR[m.severity]) };
}

function htmlBody(title: string, summary: string, facts: Array<[string, string]>, color: string): string {
  const rows = facts
    .map(
      ([k, v]) =>
        `<tr><td style="padding:4px 12px 4px 0;color:#555;white-space:nowrap;vertical-align:top">${escapeHtml(k)}</td>` +
        `<td style="padding:4px 0;color:#111;word-break:break-all">${escapeHtml(v)}</td></tr>`,
    )
    .join('');
  return `<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head>
<body style="margin:0;padding:24px;background:#f4f5f7;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;margin:0 auto;background:#fff;border-radius:6px;border-top:4px solid ${color}">
<tr><td style="padding:20px 24px">
<h1 style="margin:0 0 8px;font-size:20px;color:${color}">${escapeHtml(title)}</h1>
<p style="margin:0 0 16px;font-size:15px;color:#111;line-height:1.4">${escapeHtml(summary)}</p>
<table role="presentation" cellpadding="0" cellspacing="0" style="font-size:14px;line-height:1.4">${rows}</table>
</td></tr>
<tr><td style="padding:12px 24px;border-top:1px solid #eee;font-size:12px;color:#777">Sent by Vigil. Change these alerts in the alert settings of your account.</td></tr>
</table>
</body></html>
`;
}
