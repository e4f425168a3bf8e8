import type { AlertContent } from '../alert-content.js';
import { cut } from './html.js';
import { alertMessage, type Severity } from './message.js';

/**
 * Incoming webhooks of the self-hosted team chats, which speak Slack's attachment dialect:
 * Mattermost (https://developers.mattermost.com/integrate/webhooks/incoming/, URL
 * https://mattermost.example.com/hooks/<key>) and Rocket.Chat (URL
 * https://chat.example.com/hooks/<id>/<token>). Both are POSTed to the URL as given.
 */

const COLOR: Record<Severity, string> = { critical: '#E5484D', warning: '#F5A524', ok: '#30A46C' };
const ICON: Record<Severity, string> = { critical: ':red_circle:', warning: ':warning:', ok: ':white_check_mark:' };
const SHORT_FACT = 40;

function attachment(c: AlertContent) {
  const m = alertMessage(c);
  return {
    fallback: `${m.title}: ${m.summary}`,
    color: COLOR[m.severity],
    title: cut(m.title, 200),
    text: m.summary,
    fields: m.facts.map(([title, value]) => ({ title, value, short: value.length <= SHORT_FACT })),
  };
}

export function mattermostMessage(c: AlertContent) {
  const m = alertMessage(c);
  return { username: 'Vigil', text: `${ICON[m.severity]} **${m.title}**`, attachments: [attachment(c)] };
}

export function rocketChatMessage(c: AlertContent) {
  const m = alertMessage(c);
  return { alias: 'Vigil', emoji: ICON[m.severity], text: `*${m.title}*`, attachments: [attachment(c)] };
}
