import type { AlertContent } from '../alert-content.js';
import { escapeHtml } from './html.js';
import { alertMessage } from './message.js';
import { credential, MisconfiguredWebhook, type VendorRequest } from './vendor-request.js';

/**
 * Matrix client-server API (https://spec.matrix.org/latest/client-server-api/#put_matrixclientv3roomsroomidsendeventtypetxnid):
 * an `m.room.message` (m.text, with an HTML twin) sent with PUT to the room, the delivery id as
 * transaction id, so a retried delivery is not posted twice. URL:
 * https://matrix.example.org/_matrix/client/v3/rooms/<room id>/send/m.room.message?access_token=<token>
 * (the part after the room id is optional); the token goes in the Authorization header.
 */

const ROOM = /^(.*?)\/_matrix\/client\/[^/]+\/rooms\/([^/]+)/;

export function matrixRequest(webhookUrl: string, c: AlertContent, deliveryId: string): VendorRequest {
  const url = new URL(webhookUrl);
  const token = credential(url, ['access_token'], 'access token');
  const match = ROOM.exec(url.pathname);
  if (!match) throw new MisconfiguredWebhook('the webhook URL needs a room: /_matrix/client/v3/rooms/<room id>');
  const room = encodeURIComponent(decodeURIComponent(match[2]!));
  const m = alertMessage(c);
  const facts = m.facts.filter(([k]) => k !== 'Check');
  return {
    url: `${url.origin}${match[1]}/_matrix/client/v3/rooms/${room}/send/m.room.message/${encodeURIComponent(deliveryId)}`,
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}` },
    body: {
      msgtype: 'm.text',
      body: [m.title, m.summary, ...facts.map(([k, v]) => `${k}: ${v}`)].join('\n'),
      format: 'org.matrix.custom.html',
      formatted_body: [
        `<strong>${escapeHtml(m.title)}</strong>`,
        escapeHtml(m.summary),
        ...facts.map(([k, v]) => `<b>${escapeHtml(k)}:</b> ${escapeHtml(v)}`),
      ].join('<br>'),
    },
  };
}
