import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testContent } from '../../src/alerts/alert-content.js';
import { alertMail } from '../../src/alerts/email-format.js';
import { vendorRequest } from '../../src/alerts/formats/index.js';
import { MisconfiguredWebhook } from '../../src/alerts/formats/vendor-request.js';
import { genericPayload } from '../../src/alerts/formats/generic.js';
import { webhookRequest } from '../../src/alerts/delivery/webhook-request.js';
import { signBody, verifySignature } from '../../src/alerts/signing.js';
import { resolveConfig, loadConfig } from '../../src/config.js';
import { ALERT_AT, sampleContent } from '../helpers/alert-content.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const AT = ALERT_AT;
const content = sampleContent;

describe('generic payload (decisions §8)', () => {
  test('has exactly the documented keys', () => {
    const p = genericPayload(content('website_down'));
    assert.deepEqual(Object.keys(p), ['event', 'test', 'timestamp', 'check', 'previousStatus', 'details']);
    assert.deepEqual(Object.keys(p.check), ['id', 'name', 'url', 'type', 'status']);
    assert.deepEqual(Object.keys(p.details), ['statusCode', 'responseTime', 'error', 'region', 'regions']);
    assert.equal(p.timestamp, '2026-06-01T12:00:00.000Z');
    assert.equal(p.test, false);
    assert.equal(p.previousStatus, 'up');
  });

  test('the test sample is a website_down with test: true', () => {
    const config = resolveConfig(loadConfig({ warn: () => {} }), 8080);
    const p = genericPayload(testContent(AT, config));
    assert.equal(p.event, 'website_down');
    assert.equal(p.test, true);
  });
});

describe('vendor formats', () => {
  test('slack: text fallback, coloured attachment with blocks; mrkdwn control characters escaped', () => {
    const r = vendorRequest('slack', 'https://hooks.slack.com/services/T/B/X', content('website_down', { check: { ...content('website_down').check, name: 'A <b> & c' } }), 'dlv_00000000000000000000');
    const body = r.body as Json;
    assert.equal(r.url, 'https://hooks.slack.com/services/T/B/X');
    assert.match(body.text, /is down/);
    assert.equal(body.attachments[0].color, '#E5484D');
    const section = body.attachments[0].blocks[0];
    assert.equal(section.type, 'section');
    assert.match(section.text.text, /A &lt;b&gt; &amp; c is down/);
  });

  test('discord: one embed coloured by severity, no mentions parsed', () => {
    const body = vendorRequest('discord', 'https://discord.com/api/webhooks/1/x', content('website_up'), 'dlv_00000000000000000000').body as Json;
    assert.deepEqual(body.allowed_mentions, { parse: [] });
    assert.equal(body.embeds.length, 1);
    assert.equal(body.embeds[0].color, 0x30a46c);
    assert.match(body.embeds[0].title, /Shop API is up again/);
    assert.equal(body.embeds[0].url, 'https://shop.example.com/health');
    assert.ok(body.embeds[0].fields.some((f: Json) => f.name === 'Response time' && f.value === '87 ms'));
  });

  test('teams: an Adaptive Card message', () => {
    const body = vendorRequest('teams', 'https://acme.webhook.office.com/webhookb2/x', content('ssl_warning'), 'dlv_00000000000000000000').body as Json;
    assert.equal(body.type, 'message');
    const card = body.attachments[0];
    assert.equal(card.contentType, 'application/vnd.microsoft.card.adaptive');
    assert.equal(card.content.type, 'AdaptiveCard');
    assert.equal(card.content.body[0].color, 'Warning');
    assert.equal(card.content.body[2].type, 'FactSet');
  });

  test('pumble: a text message', () => {
    const body = vendorRequest('pumble', 'https://api.pumble.com/workspaces/x', content('website_down'), 'dlv_00000000000000000000').body as Json;
    assert.deepEqual(Object.keys(body), ['text']);
    assert.match(body.text, /Shop API is down/);
  });

  test('pagerduty: trigger and resolve share one dedup key per check; the key leaves the URL', () => {
    const url = 'https://events.pagerduty.com/v2/enqueue?routing_key=R0UT1NG';
    const down = vendorRequest('pagerduty', url, content('website_down'), 'dlv_00000000000000000000');
    const up = vendorRequest('pagerduty', url, content('website_up'), 'dlv_00000000000000000000');
    assert.equal(down.url, 'https://events.pagerduty.com/v2/enqueue');
    const d = down.body as Json;
    const u = up.body as Json;
    assert.equal(d.routing_key, 'R0UT1NG');
    assert.equal(d.event_action, 'trigger');
    assert.equal(d.payload.severity, 'critical');
    assert.equal(d.payload.source, 'https://shop.example.com/health');
    assert.equal(d.payload.timestamp, '2026-06-01T12:00:00.000Z');
    assert.equal(u.event_action, 'resolve');
    assert.equal(d.dedup_key, 'vigil-chk_0123456789abcdef0123');
    assert.equal(u.dedup_key, d.dedup_key);
    const ssl = vendorRequest('pagerduty', url, content('ssl_warning'), 'dlv_00000000000000000000').body as Json;
    assert.equal(ssl.dedup_key, 'vigil-chk_0123456789abcdef0123-ssl');
    assert.equal(ssl.payload.severity, 'warning');
  });

  test('opsgenie: create with alias and GenieKey, close by alias', () => {
    const url = 'https://api.eu.opsgenie.com/v2/alerts?apiKey=K3Y';
    const create = vendorRequest('opsgenie', url, content('website_down'), 'dlv_00000000000000000000');
    assert.equal(create.url, 'https://api.eu.opsgenie.com/v2/alerts');
    assert.deepEqual(create.headers, { Authorization: 'GenieKey K3Y' });
    const b = create.body as Json;
    assert.equal(b.alias, 'vigil-chk_0123456789abcdef0123');
    assert.equal(b.priority, 'P1');
    assert.ok(b.message.length <= 130);
    const close = vendorRequest('opsgenie', url, content('website_up'), 'dlv_00000000000000000000');
    assert.equal(close.url, 'https://api.eu.opsgenie.com/v2/alerts/vigil-chk_0123456789abcdef0123/close?identifierType=alias');
    assert.equal((close.body as Json).source, 'Vigil');
  });

  test('pushover: token and user from the query string, high priority when down', () => {
    const r = vendorRequest('pushover', 'https://api.pushover.net/1/messages.json?token=APP&user=USR&sound=siren', content('website_down'), 'dlv_00000000000000000000');
    assert.equal(r.url, 'https://api.pushover.net/1/messages.json');
    const b = r.body as Json;
    assert.equal(b.token, 'APP');
    assert.equal(b.user, 'USR');
    assert.equal(b.priority, 1);
    assert.equal(b.sound, 'siren');
    assert.equal(b.timestamp, AT / 1000);
    assert.equal(b.url, 'https://shop.example.com/health');
  });

  test('a missing credential is a misconfiguration (no retry will help)', () => {
    assert.throws(() => vendorRequest('pagerduty', 'https://events.pagerduty.com/v2/enqueue', content('website_down'), 'dlv_00000000000000000000'), MisconfiguredWebhook);
    assert.throws(() => vendorRequest('opsgenie', 'https://api.opsgenie.com/v2/alerts', content('website_down'), 'dlv_00000000000000000000'), MisconfiguredWebhook);
    assert.throws(() => vendorRequest('pushover', 'https://api.pushover.net/1/messages.json?token=x', content('website_down'), 'dlv_00000000000000000000'), /user=/);
  });

  test('domain events read well', () => {
    const c = content('domain_expiring', { domain: { name: 'shop.example', registrar: 'Reg Inc.', expiresAt: '2026-06-21T00:00:00.000Z', updatedAt: null } });
    const body = vendorRequest('pumble', 'https://api.pumble.com/x', c, 'dlv_00000000000000000000').body as Json;
    assert.match(body.text, /Domain shop\.example expires soon/);
    assert.match(body.text, /expires in 19 days, on 2026-06-21/);
    assert.match(body.text, /Registrar:\* Reg Inc\./);
  });
});

describe('signed requests', () => {
  test('X-Vigil-Signature is sha256=<hex HMAC-SHA256(secret, raw body)>, with event and delivery headers', () => {
    const req = webhookRequest({ url: 'https://r.example/hook', webhookType: 'generic', secret: 's3cret' }, content('website_down'), 'dlv_1');
    assert.equal(req.headers['X-Vigil-Event'], 'website_down');
    assert.equal(req.headers['X-Vigil-Delivery'], 'dlv_1');
    assert.equal(req.headers['X-Vigil-Signature'], signBody('s3cret', req.body));
    assert.match(req.headers['X-Vigil-Signature']!, /^sha256=[0-9a-f]{64}$/);
    assert.ok(verifySignature('s3cret', req.body, req.headers['X-Vigil-Signature']));
    assert.ok(!verifySignature('other', req.body, req.headers['X-Vigil-Signature']));
    assert.ok(!verifySignature('s3cret', `${req.body} `, req.headers['X-Vigil-Signature']));
  });

  test('a known vector', () => {
    // echo -n '{"a":1}' | openssl dgst -sha256 -hmac key
    assert.equal(signBody('key', '{"a":1}'), 'sha256=88a67f24bbcdaed0e6c997404bb79a743baf44c6bab2f4c27328e3009d22e342');
  });

  test('no secret, no signature header', () => {
    const req = webhookRequest({ url: 'https://r.example/hook', webhookType: 'generic', secret: null }, content('website_up'), 'dlv_2');
    assert.equal(req.headers['X-Vigil-Signature'], undefined);
  });
});

describe('alert emails', () => {
  test('html carries a text twin; text format is text only; names cannot break the subject line', () => {
    const c = content('website_down', { check: { ...content('website_down').check, name: 'Shop\r\nBcc: x@y <script>' } });
    const html = alertMail('ops@example.com', c, 'html');
    assert.equal(html.subject, '[Vigil ALERT] Shop Bcc: x@y <script> is down');
    assert.ok(html.html!.includes('&lt;script&gt;'));
    assert.ok(!html.html!.includes('<script>'));
    assert.match(html.text, /Error: +Expected status 200, got 503/);
    const text = alertMail('ops@example.com', content('website_up'), 'text');
    assert.equal(text.html, undefined);
    assert.equal(text.subject, '[Vigil RESOLVED] Shop API is up again');
  });
});
