import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/domain/errors.js';
import { detectWebhookType } from '../../src/alerts/webhook-type.js';
import { cutUrl, parseWebhookUrl, webhookUrlKey } from '../../src/alerts/webhook-url.js';
import { normalizeEvents } from '../../src/alerts/alert-events.js';
import { normalizeRecipients } from '../../src/alerts/email-settings-service.js';
import { WebhookClient, WebhookUnreachable } from '../../src/alerts/delivery/webhook-client.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const type = (url: string) => detectWebhookType(new URL(url));
const status400 = (fn: () => unknown, message: RegExp) =>
  assert.throws(fn, (err: unknown) => err instanceof ApiError && err.status === 400 && message.test(err.message));

describe('webhook type detection (decisions §8)', () => {
  test('recognises slack, discord, teams and pumble; anything else is generic', () => {
    assert.equal(type('https://hooks.slack.com/services/T0/B0/XYZ'), 'slack');
    assert.equal(type('https://discord.com/api/webhooks/123/abc'), 'discord');
    assert.equal(type('https://discordapp.com/api/webhooks/123/abc'), 'discord');
    assert.equal(type('https://ptb.discord.com/api/webhooks/123/abc'), 'discord');
    assert.equal(type('https://contoso.webhook.office.com/webhookb2/abc'), 'teams');
    assert.equal(type('https://api.pumble.com/workspaces/1/incomingWebhooks/postMessage/x'), 'pumble');
    assert.equal(type('https://discord.com/channels/1'), 'generic', 'discord, but not a webhook path');
    assert.equal(type('https://hooks.slack.com.evil.example/x'), 'generic');
    assert.equal(type('https://webhook.office.com.evil.example/x'), 'generic');
    assert.equal(type('https://events.pagerduty.com/v2/enqueue?routing_key=x'), 'generic', 'the API names pagerduty explicitly');
  });
});

describe('webhook URLs', () => {
  test('cut to scheme and host (the port is part of the host; credentials and path are not)', () => {
    assert.equal(cutUrl('https://hooks.slack.com/services/T0/B0/SECRET'), 'https://hooks.slack.com');
    assert.equal(cutUrl('https://user:pw@example.com:8443/p?token=x#f'), 'https://example.com:8443');
    assert.equal(cutUrl('not a url'), '(invalid URL)');
  });

  test('https only, with a host', () => {
    status400(() => parseWebhookUrl('http://hooks.slack.com/x'), /https/);
    status400(() => parseWebhookUrl('ftp://x.example/'), /https/);
    status400(() => parseWebhookUrl('hooks.slack.com/x'), /valid URL/);
    status400(() => parseWebhookUrl('   '), /required/);
    assert.equal(parseWebhookUrl(' https://X.Example.COM/Path ').href, 'https://x.example.com/Path');
  });

  test('duplicate key: host case and default port do not matter, path and query do', () => {
    const key = (u: string) => webhookUrlKey(parseWebhookUrl(u));
    assert.equal(key('https://Example.com:443/hook?a=1'), key('https://example.com/hook?a=1#x'));
    assert.notEqual(key('https://example.com/hook?a=1'), key('https://example.com/hook?a=2'));
    assert.notEqual(key('https://example.com/Hook'), key('https://example.com/hook'));
  });
});

describe('events and recipients', () => {
  test('unknown events are dropped, duplicates removed; none valid is a 400', () => {
    assert.deepEqual(normalizeEvents(['website_down', 'bogus', 'ssl_error', 'website_down']), ['website_down', 'ssl_error']);
    status400(() => normalizeEvents(['bogus']), /no valid value/);
    status400(() => normalizeEvents([]), /no valid value/);
  });

  test('recipients: trimmed, deduplicated case-insensitively, 1 to 10, no header tricks', () => {
    assert.deepEqual(normalizeRecipients([' a@example.com', 'A@Example.com', 'b@example.com']), ['a@example.com', 'b@example.com']);
    status400(() => normalizeRecipients([]), /at least one/);
    status400(() => normalizeRecipients(Array.from({ length: 11 }, (_, i) => `u${i}@example.com`)), /at most 10/);
    assert.equal(normalizeRecipients([...Array.from({ length: 10 }, (_, i) => `u${i}@example.com`), 'U0@example.com']).length, 10);
    for (const bad of [
      'plain', 'a@b@c', 'a b@example.com', 'a@example.com, b@example.com', 'x@example.com\r\nBcc: y@example.com', '<a@example.com>',
      'ops@example.com\u0000', 'ops@example.com\u007f', 'a@example..com', 'a..b@example.com', '.a@example.com', 'a.@example.com',
      'a@-example.com', 'a@example-.com', 'a@exam_ple.com', `${'l'.repeat(65)}@example.com`, `a@${'d'.repeat(250)}.com`, '@example.com', 'a@',
    ]) {
      status400(() => normalizeRecipients([bad]), /invalid email address/);
    }
    // A self-hosted monitor may mail inside its own network, and addresses may be international.
    for (const good of ['root@localhost', 'ops@intranet', 'first.last+alerts@sub.example.co.uk', 'jörg@bücher.example', `${'l'.repeat(64)}@example.com`]) {
      assert.deepEqual(normalizeRecipients([good]), [good]);
    }
  });
});

describe('delivery-time address policy (decisions §3)', () => {
  test('with blockPrivateAddresses, a delivery never connects to a private or loopback address', async () => {
    let connections = 0;
    const server = createServer((_q, r) => r.end()).on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    const client = new WebhookClient({ timeoutMs: 2000, blockPrivateAddresses: true, connectionsPerOrigin: 1 });
    try {
      for (const url of [`https://127.0.0.1:${port}/x`, `https://localhost:${port}/x`]) {
        await assert.rejects(
          client.post({ url, method: 'POST', headers: {}, body: '{}' }),
          (err: unknown) => err instanceof WebhookUnreachable && /private address/.test(err.message),
        );
      }
      assert.equal(connections, 0);
    } finally {
      await client.close();
      server.close();
    }
  });
});

describe('why a delivery got no answer', () => {
  test('a request aborted or timed out by its signal says so, not a bare error code', async () => {
    const server = createServer(() => {}); // never answers
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
    const client = new WebhookClient({ timeoutMs: 10_000, blockPrivateAddresses: false, connectionsPerOrigin: 1 });
    try {
      const aborted = new AbortController();
      const pending = client.post({ url, method: 'POST', headers: {}, body: '{}' }, aborted.signal);
      setTimeout(() => aborted.abort(), 50);
      await assert.rejects(pending, (err: unknown) => err instanceof WebhookUnreachable && err.message === 'aborted');
      await assert.rejects(
        client.post({ url, method: 'POST', headers: {}, body: '{}' }, AbortSignal.timeout(50)),
        (err: unknown) => err instanceof WebhookUnreachable && err.message === 'timed out',
      );
    } finally {
      await client.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
