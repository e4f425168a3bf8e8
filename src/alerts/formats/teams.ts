import type { AlertContent } from '../alert-content.js';
import { alertMessage, type Severity } from './message.js';

/**
 * Microsoft Teams: an Adaptive Card in a message, which both incoming webhooks
 * (*.webhook.office.com) and Workflows webhooks accept.
 */

const COLOR: Record<Severity, string> = { critical: 'Attention', warning: 'Warning', ok: 'Good' };

export function teamsMessage(c: AlertContent) {
  const m = alertMessage(c);
  const open = !c.test && /^https?:\/\//.test(c.check.url) ? [{ type: 'Action.OpenUrl', title: 'Open the monitored URL', url: c.check.url }] : [];
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          msteams: { width: 'Full' },
          body: [
            { type: 'TextBlock', text: m.title, weight: 'Bolder', size: 'Medium', color: COLOR[m.severity], wrap: true },
            { type: 'TextBlock', text: m.summary, wrap: true },
            { type: 'FactSet', facts: m.facts.map(([title, value]) => ({ title, value })) },
          ],
          actions: open,
        },
      },
    ],
  };
}
