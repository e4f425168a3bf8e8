import type { AlertContent } from '../alert-content.js';
import { escapeHtml } from './html.js';
import { alertMessage } from './message.js';
import { credential, optionalParam, type VendorRequest } from './vendor-request.js';

/**
 * Telegram Bot API sendMessage (https://core.telegram.org/bots/api#sendmessage) in HTML parse
 * mode: every piece of alert text is escaped, so a check name cannot inject markup. URL:
 * https://api.telegram.org/bot<token>/sendMessage?chat_id=<chat> (optionally
 * &message_thread_id=<topic>); the chat moves into the JSON body.
 */

const MAX_TEXT = 4096;

export function telegramRequest(webhookUrl: string, c: AlertContent): VendorRequest {
  const url = new URL(webhookUrl);
  const chatId = credential(url, ['chat_id'], 'chat id');
  const thread = optionalParam(url, 'message_thread_id');
  const m = alertMessage(c);
  const lines = [`<b>${escapeHtml(m.title)}</b>`, escapeHtml(m.summary), '', ...m.facts.map(([k, v]) => `<b>${escapeHtml(k)}:</b> ${escapeHtml(v)}`)];
  let text = lines.join('\n');
  // Whole lines are dropped rather than cutting through an entity or tag.
  while (text.length > MAX_TEXT && lines.length > 2) text = (lines.pop(), lines.join('\n'));
  return {
    url: `${url.origin}${url.pathname.replace(/\/+$/, '')}`,
    body: {
      chat_id: /^-?\d+$/.test(chatId) ? Number(chatId) : chatId,
      ...(thread !== null && /^\d+$/.test(thread) ? { message_thread_id: Number(thread) } : {}),
      text,
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
    },
  };
}
