import type { AlertContent } from '../alert-content.js';
import { cut, escapeHtml } from './html.js';
import { alertMessage } from './message.js';

/**
 * Google Chat incoming webhooks with a cards v2 message
 * (https://developers.google.com/workspace/chat/api/reference/rest/v1/cards): a header and one
 * section of decorated text per fact, plus a plain `text` for notifications. URL, POSTed as
 * given (Google needs key and token in it): https://chat.googleapis.com/v1/spaces/<space>/messages?key=…&token=…
 */

const MAX_WIDGETS = 100;

export function googleChatMessage(c: AlertContent) {
  const m = alertMessage(c);
  return {
    text: `${m.title}: ${m.summary}`,
    cardsV2: [
      {
        cardId: 'vigil-alert',
        card: {
          header: { title: cut(m.title, 200), subtitle: cut(m.summary, 200) },
          sections: [
            {
              widgets: m.facts.slice(0, MAX_WIDGETS).map(([k, v]) => ({ decoratedText: { topLabel: escapeHtml(k), text: escapeHtml(v), wrapText: true } })),
            },
          ],
        },
      },
    ],
  };
}
