import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AlertContent } from '../../src/alerts/alert-content.js';
import { WEBHOOK_TYPES, type WebhookType } from '../../src/store/alert-store.js';
import { alertMail } from '../../src/alerts/email-format.js';
import { MisconfiguredWebhook } from '../../src/alerts/formats/vendor-request.js';
import { retryAfterMs } from '../../src/alerts/delivery/webhook-client.js';
import { webhookRequest } from '../../src/alerts/delivery/webhook-request.js';
import { detectWebhookType } from '../../src/alerts/webhook-type.js';
import { routeMatches } from '../../src/alerts/target-options.js';
import { ALERT_AT, sampleContent } from '../helpers/alert-content.js';

/** Issue 17 channels, reminders and routing, pure parts: detection, escaping, marking, Retry-After. */

const AT = ALERT_AT;
const DELIVERY = 'dlv_0123456789abcdef0123';
const content = (over: Partial<AlertContent> = {}): AlertContent => sampleContent('website_down', over);

/** A URL of each type that carries what the type needs. */
const URLS: Record<WebhookType, string> = {
  slack: 'https://hooks.slack.com/services/T/B/X',
  discord: 'https://discord.com/api/webhooks/1/x',
  teams: 'https://acme.webhook.office.com/webhookb2/x',
  pumble: 'https://api.pumble.com/workspaces/x/incomingWebhooks/postMessage/y',
  pagerduty: 'https://events.pagerduty.com/v2/enqueue?routing_key=r',
  opsgenie: 'https://api.opsgenie.com/v2/alerts?apiKey=k',
  pushover: 'https://api.pushover.net/1/messages.json?token=t&user=u',
  generic: 'https://example.com/hook',
  ntfy: 'https://ntfy.sh/vigil-alerts',
  gotify: 'https://gotify.example.com/message?token=AbC',
  telegram: 'https://api.telegram.org/bot123:ABC/sendMessage?chat_id=42',
  matrix: 'https://matrix.example.org/_matrix/client/v3/rooms/!r:example.org/send/m.room.message?access_token=syt',
  mattermost: 'https://chat.example.com/hooks/xg7k2p9qw3e4r5t6y7u8i9o0pa',
  rocketchat: 'https://rocket.example.com/hooks/aBcDeFgHiJkLmNoPq/abcdefghijklmnopqrstuvwx',
  googlechat: 'https://chat.googleapis.com/v1/spaces/AAA/messages?key=k&token=t',
};

describe('type detection (issue 17)', () => {
  test("each vendor's own URL is recognised where it is distinctive", () => {
    for (const type of ['ntfy', 'gotify', 'telegram', 'matrix', 'mattermost', 'rocketchat', 'googlechat'] as const) {
      assert.equal(detectWebhookType(new URL(URLS[type])), type, URLS[type]);
    }
  });

  test('self-hosted ntfy and ordinary URLs stay generic unless named', () => {
    for (const url of ['https://ntfy.example.com/topic', 'https://example.com/hooks/abc', 'https://example.com/message', 'https://example.com/api/alert?token=x']) {
      assert.equal(detectWebhookType(new URL(url)), 'generic', url);
    }
  });
});

describe('formats', () => {
  test('telegram: HTML parse mode with every piece of text escaped', () => {
    const req = webhookRequest({ url: URLS.telegram, webhookType: 'telegram', secret: null }, content({ check: { ...content().check, name: 'A <b> & "c"' } }), DELIVERY);
    const body = JSON.parse(req.body);
    assert.equal(req.url, 'https://api.telegram.org/bot123:ABC/sendMessage');
    assert.equal(body.parse_mode, 'HTML');
    assert.equal(body.chat_id, 42);
    assert.ok(body.text.startsWith('<b>A &lt;b&gt; &amp; &quot;c&quot; is down</b>'), body.text);
    assert.throws(() => webhookRequest({ url: 'https://api.telegram.org/bot1:x/sendMessage', webhookType: 'telegram', secret: null }, content(), DELIVERY), MisconfiguredWebhook);
  });

  test('ntfy: a non-ASCII title travels RFC 2047-encoded; priority follows severity unless the URL sets it', () => {
    const req = webhookRequest({ url: URLS.ntfy, webhookType: 'ntfy', secret: null }, content({ check: { ...content().check, name: 'Café' } }), DELIVERY);
    assert.equal(req.headers.Title, `=?UTF-8?B?${Buffer.from('Café is down').toString('base64')}?=`);
    assert.equal(req.headers.Priority, '5');
    const low = webhookRequest({ url: `${URLS.ntfy}?priority=2`, webhookType: 'ntfy', secret: null }, content(), DELIVERY);
    assert.equal(low.headers.Priority, '2');
    assert.equal(low.url, URLS.ntfy);
    assert.throws(() => webhookRequest({ url: 'https://ntfy.sh/', webhookType: 'ntfy', secret: null }, content(), DELIVERY), /needs a topic/);
  });

  test('matrix: a room is required; the homeserver may sit under a path', () => {
    const req = webhookRequest({ url: 'https://example.org/matrix/_matrix/client/r0/rooms/!r:example.org?access_token=t', webhookType: 'matrix', secret: null }, content(), DELIVERY);
    assert.equal(req.method, 'PUT');
    assert.equal(req.url, `https://example.org/matrix/_matrix/client/v3/rooms/!r%3Aexample.org/send/m.room.message/${DELIVERY}`);
    assert.throws(() => webhookRequest({ url: 'https://example.org/_matrix/client/v3/sync?access_token=t', webhookType: 'matrix', secret: null }, content(), DELIVERY), /needs a room/);
  });

  test('a reminder is marked as one in every format, and in email', () => {
    const reminder = content({ previousStatus: 'down', reminder: { downSince: AT - 3_600_000 } });
    for (const type of WEBHOOK_TYPES) {
      const req = webhookRequest({ url: URLS[type], webhookType: type, secret: null }, reminder, DELIVERY);
      assert.equal(req.headers['X-Vigil-Reminder'], 'true', type);
      const wire = `${JSON.stringify(req.headers)}${req.body}`;
      assert.ok(type === 'generic' ? JSON.parse(req.body).reminder === true : /Reminder/.test(wire) || /UmVtaW5kZXI/.test(wire), `${type}: ${wire.slice(0, 200)}`);
      const first = webhookRequest({ url: URLS[type], webhookType: type, secret: null }, content(), DELIVERY);
      assert.ok(!/Reminder/.test(`${JSON.stringify(first.headers)}${first.body}`), `${type}: a first alert is no reminder`);
    }
    for (const format of ['html', 'text'] as const) {
      const mail = alertMail('ops@example.com', reminder, format);
      assert.equal(mail.subject, '[Vigil ALERT] Reminder: Shop API is still down');
      assert.match(mail.text, /It has been down since 2026-06-01 11:00 UTC/);
    }
  });
});

describe('Retry-After and routing', () => {
  test('Retry-After as seconds or an HTTP date; anything else ignored', () => {
    const now = Date.UTC(2026, 5, 1, 12);
    assert.equal(retryAfterMs('120', now), 120_000);
    assert.equal(retryAfterMs(new Date(now + 90_000).toUTCString(), now), 90_000);
    assert.equal(retryAfterMs(new Date(now - 90_000).toUTCString(), now), 0);
    assert.equal(retryAfterMs('soon', now), null);
    assert.equal(retryAfterMs(undefined, now), null);
  });

  test('a route matches a listed check, a check in a listed folder or with a listed tag; an empty route matches all', () => {
    const check = { id: 'chk_1', folder: 'prod', tags: ['Env:Production', 'team:web'] };
    assert.equal(routeMatches({ checkIds: [], folders: [], tags: [] }, check), true);
    assert.equal(routeMatches({ checkIds: ['chk_1'], folders: [], tags: [] }, check), true);
    assert.equal(routeMatches({ checkIds: [], folders: ['prod'], tags: [] }, check), true);
    assert.equal(routeMatches({ checkIds: ['chk_2'], folders: ['staging'], tags: [] }, check), false);
    assert.equal(routeMatches({ checkIds: [], folders: ['prod'], tags: [] }, { id: 'chk_3', folder: null, tags: [] }), false);
    assert.equal(routeMatches({ checkIds: [], folders: [], tags: ['env:production'] }, check), true, 'case-insensitive');
    assert.equal(routeMatches({ checkIds: [], folders: [], tags: ['env'] }, check), true, 'a key matches any value');
    assert.equal(routeMatches({ checkIds: [], folders: [], tags: ['env:staging', 'team:db'] }, check), false);
    assert.equal(routeMatches({ checkIds: [], folders: [], tags: ['en'] }, check), false, 'a key matches whole keys only');
  });
});
