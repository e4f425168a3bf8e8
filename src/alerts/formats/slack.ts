import type { AlertContent } from '../alert-content.js';
import { alertMessage, type Severity } from './message.js';

/** Slack incoming webhooks, and Pumble's (which speak a plain-text subset of the same). */

const COLOR: Record<Severity, string> = { critical: '#E5484D', warning: '#F5A524', ok: '#30A46C' };
const ICON: Record<Severity, string> = { critical: ':red_circle:', warning: ':warning:', ok: ':large_green_circle:' };
const MAX_FIELDS = 10;

/** Slack mrkdwn treats &, < and > as control characters. */
const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function slackMessage(c: AlertContent) {
  const m = alertMessage(c);
  return {
    text: `${ICON[m.severity]} ${m.title}`,
    attachments: [
      {
        color: COLOR[m.severity],
        fallback: `${m.title}: ${m.summary}`,
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text: `*${esc(m.title)}*\n${esc(m.summary)}` } },
          ...(m.facts.length
            ? [{ type: 'section', fields: m.facts.slice(0, MAX_FIELDS).map(([k, v]) => ({ type: 'mrkdwn', text: `*${esc(k)}*\n${esc(v)}` })) }]
            : []),
          { type: 'context', elements: [{ type: 'mrkdwn', text: 'Sent by Vigil' }] },
        ],
      },
    ],
  };
}

const PUMBLE_ICON: Record<Severity, string> = { critical: '🔴', warning: '⚠️', ok: '✅' };

export function pumbleMessage(c: AlertContent) {
  const m = alertMessage(c);
  const lines = [`${PUMBLE_ICON[m.severity]} *${m.title}*`, m.summary, '', ...m.facts.map(([k, v]) => `*${k}:* ${v}`)];
  return { text: lines.join('\n') };
}
