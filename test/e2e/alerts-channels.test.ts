import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AlertEvent } from '../../src/domain/events.js';
import { receiverWorld } from '../helpers/alerts-e2e.js';
import type { Received } from '../helpers/fixtures/alerts-receiver.js';
import { assertStatus, newAccount, type Actor } from './util.js';

/**
 * Issue 17 channels against a local receiver that checks each vendor's documented request
 * shape: method, path, credential placement, headers and body. Each webhook is sent its test
 * message through the API and one real alert through the queue; the secrets in their URLs never
 * appear in a response or a log line.
 */

const HOOKS = '/v1/public/alerts/webhooks';
const ALERTS = ['alerts:read', 'alerts:write', 'checks:read', 'checks:write'];
const SECRET = 'S3cr3tT0k3n';

const world = receiverWorld();

interface Channel {
  type: string;
  /** The URL a user pastes, on the local receiver; `detected`: the type follows from it alone. */
  path: string;
  /** How the requests it causes begin. */
  prefix: string;
  detected: boolean;
  /** Checks one request against the vendor's documented shape. */
  verify(r: Received, deliveryId: string): void;
  /** Where the vendor renders HTML: the check's name arrives escaped. */
  escaped?(r: Received): void;
}

const ESCAPED = 'Shop &lt;b&gt;&amp;&lt;/b&gt;';

const CHANNELS: Channel[] = [
  {
    type: 'ntfy',
    prefix: '/vigil-alerts',
    path: `/vigil-alerts?token=tk_${SECRET}`,
    detected: false,
    verify(r) {
      assert.equal(r.method, 'POST');
      assert.equal(r.path, '/vigil-alerts', 'published to the topic; the token is not in the request line');
      assert.equal(r.headers.authorization, `Bearer tk_${SECRET}`);
      assert.match(String(r.headers['content-type']), /^text\/plain/);
      assert.match(String(r.headers.title), /\S/);
      assert.match(String(r.headers.priority), /^[1-5]$/);
      assert.match(String(r.headers.tags), /vigil/);
      assert.ok(r.raw.length > 0 && r.json === null, 'the message is the plain-text body');
    },
  },
  {
    type: 'gotify',
    prefix: '/message',
    path: `/message?token=${SECRET}`,
    detected: true,
    verify(r) {
      assert.equal(r.method, 'POST');
      assert.equal(r.path, '/message');
      assert.equal(r.headers['x-gotify-key'], SECRET);
      assert.equal(typeof r.json.title, 'string');
      assert.equal(typeof r.json.message, 'string');
      assert.ok(Number.isInteger(r.json.priority));
    },
  },
  {
    type: 'telegram',
    prefix: '/bot123456',
    path: `/bot123456:${SECRET}/sendMessage?chat_id=-1001234`,
    detected: false,
    verify(r) {
      assert.equal(r.method, 'POST');
      assert.equal(r.path, `/bot123456:${SECRET}/sendMessage`);
      assert.equal(r.json.chat_id, -1001234);
      assert.equal(r.json.parse_mode, 'HTML');
      assert.match(r.json.text, /^<b>.+<\/b>\n/);
      assert.ok(r.json.text.length <= 4096);
    },
    escaped: (r) => assert.ok(r.json.text.includes(ESCAPED) && !r.json.text.includes('Shop <b>'), r.json.text),
  },
  {
    type: 'matrix',
    prefix: '/_matrix/',
    path: `/_matrix/client/v3/rooms/!abc:example.org/send/m.room.message?access_token=syt_${SECRET}`,
    detected: true,
    verify(r, deliveryId) {
      assert.equal(r.method, 'PUT');
      assert.equal(r.path, `/_matrix/client/v3/rooms/!abc%3Aexample.org/send/m.room.message/${deliveryId}`, 'the delivery id is the transaction id');
      assert.equal(r.headers.authorization, `Bearer syt_${SECRET}`);
      assert.equal(r.json.msgtype, 'm.text');
      assert.equal(typeof r.json.body, 'string');
      assert.equal(r.json.format, 'org.matrix.custom.html');
      assert.match(r.json.formatted_body, /^<strong>/);
    },
    escaped: (r) => assert.ok(r.json.formatted_body.includes(ESCAPED) && r.json.body.includes('Shop <b>&</b>'), 'HTML escaped, plain body as is'),
  },
  {
    type: 'mattermost',
    prefix: '/hooks/xg7k',
    path: '/hooks/xg7k2p9qw3e4r5t6y7u8i9o0pa',
    detected: true,
    verify(r) {
      assert.equal(r.method, 'POST');
      assert.equal(r.path, '/hooks/xg7k2p9qw3e4r5t6y7u8i9o0pa');
      assert.equal(r.json.username, 'Vigil');
      assert.equal(typeof r.json.text, 'string');
      const [a] = r.json.attachments;
      assert.match(a.color, /^#[0-9A-F]{6}$/);
      assert.equal(typeof a.title, 'string');
      assert.ok(a.fields.every((f: { title: string; value: string; short: boolean }) => typeof f.title === 'string' && typeof f.value === 'string' && typeof f.short === 'boolean'));
    },
  },
  {
    type: 'rocketchat',
    prefix: '/hooks/aBcD',
    path: `/hooks/aBcDeFgHiJkLmNoPq/${SECRET}abcdefghijklmnop`,
    detected: true,
    verify(r) {
      assert.equal(r.method, 'POST');
      assert.equal(r.json.alias, 'Vigil');
      assert.equal(typeof r.json.text, 'string');
      assert.equal(typeof r.json.attachments[0].title, 'string');
      assert.ok(Array.isArray(r.json.attachments[0].fields));
    },
  },
  {
    type: 'googlechat',
    prefix: '/v1/spaces/',
    path: `/v1/spaces/AAAAxyz/messages?key=k-${SECRET}&token=t-${SECRET}`,
    detected: false,
    verify(r) {
      assert.equal(r.method, 'POST');
      assert.equal(r.path, `/v1/spaces/AAAAxyz/messages?key=k-${SECRET}&token=t-${SECRET}`, 'Google needs key and token in the URL');
      assert.equal(typeof r.json.text, 'string');
      const [card] = r.json.cardsV2;
      assert.equal(typeof card.cardId, 'string');
      assert.equal(typeof card.card.header.title, 'string');
      const widgets = card.card.sections[0].widgets;
      assert.ok(widgets.length > 0 && widgets.every((w: { decoratedText: { topLabel: string; text: string } }) => typeof w.decoratedText.topLabel === 'string' && typeof w.decoratedText.text === 'string'));
    },
    escaped: (r) => assert.ok(r.json.cardsV2[0].card.sections[0].widgets.some((w: { decoratedText: { text: string } }) => w.decoratedText.text === ESCAPED)),
  },
];

const REGIONS = { primary: 'vps-eu-1', peer: null, regionsTotal: 1, regionsDown: 1, confirmedDown: false };

describe('self-hosters\' channels', () => {
  let actor: Actor;
  before(async () => {
    actor = await newAccount(world.server, { tier: 'pro', scopes: ALERTS });
  });

  for (const ch of CHANNELS) {
    test(`${ch.type}: ${ch.detected ? 'detected from its URL' : 'named by webhookType'}; the test message and a real alert in the vendor's shape`, async () => {
      const check = await world.server.request('POST', '/v1/public/checks', { key: actor.key, body: { url: `https://example.com/${ch.type}`, name: 'Shop <b>&</b>' } });
      assertStatus(check, 201);
      const checkId = check.body.data.id as string;
      // Routed to its own check, so each channel hears only its own alert.
      const body = { name: ch.type, url: world.receiver.url(ch.path), checkIds: [checkId], ...(ch.detected ? {} : { webhookType: ch.type }) };
      const created = await world.server.request('POST', HOOKS, { key: actor.key, body });
      assertStatus(created, 201);
      assert.equal(created.body.data.webhookType, ch.type);
      assert.equal(created.body.data.url, world.receiver.origin, 'cut to scheme and host');
      const id = created.body.data.id as string;

      const mine = () => world.receiver.received.filter((r) => r.headers['user-agent']?.startsWith('Vigil/') && r.path.startsWith(ch.prefix));
      const tested = await world.server.request('POST', `${HOOKS}/${id}/test`, { key: actor.key });
      assertStatus(tested, 200);
      const testRequest = mine()[0]!;
      ch.verify(testRequest, String(testRequest.headers['x-vigil-delivery']));

      const event: AlertEvent = {
        type: 'website_down', at: Date.now(), previousStatus: 'up', status: 'down', error: 'Expected status 200, got 500',
        statusCode: 500, responseTime: null, regions: REGIONS, ssl: null,
      };
      world.server.app.alerts.handle({ id: checkId, accountId: actor.accountId }, event);
      await world.receiver.waitFor(() => mine().length === 2);
      await world.server.app.alerts.idle();
      const alert = mine()[1]!;
      ch.verify(alert, String(alert.headers['x-vigil-delivery']));
      assert.ok(alert.raw.includes('Shop') || String(alert.headers.title).includes('Shop'), 'the alert names the check');
      ch.escaped?.(alert);
      assertStatus(await world.server.request('DELETE', `${HOOKS}/${id}`, { key: actor.key }), 200);
    });
  }

  test('no secret from any channel URL in a response or a log line', async () => {
    const list = await world.server.request('GET', HOOKS, { key: actor.key });
    const log = await world.server.request('GET', '/v1/public/alerts/deliveries?limit=100', { key: actor.key });
    assert.equal(log.body.data.length, CHANNELS.length);
    for (const text of [list.text, log.text, ...world.logLines]) assert.ok(!text.includes(SECRET), `secret leaked: ${text.slice(0, 300)}`);
  });
});
