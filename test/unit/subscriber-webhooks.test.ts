import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { echoesChallenge, SubscriberVerifier } from '../../src/alerts/subscriber-webhooks.js';
import { refusalMessage, subscriberRule } from '../../src/domain/outbound-policy.js';

const C = 'a'.repeat(64);

test('a receiver proves it wants the notices only with a 2xx answer that is the challenge, as text or JSON', () => {
  assert.equal(echoesChallenge(200, C, C), true);
  assert.equal(echoesChallenge(204, ` ${C}\r\n`, C), true, 'whitespace around it ignored');
  assert.equal(echoesChallenge(200, JSON.stringify({ challenge: C }), C), true);
  assert.equal(echoesChallenge(200, JSON.stringify({ challenge: C, ok: true }), C), true);
  assert.equal(echoesChallenge(500, C, C), false, 'not 2xx');
  assert.equal(echoesChallenge(301, C, C), false);
  assert.equal(echoesChallenge(200, '', C), false);
  assert.equal(echoesChallenge(200, '{"ok":true}', C), false);
  assert.equal(echoesChallenge(200, `${C}${C}`, C), false);
  assert.equal(echoesChallenge(200, JSON.stringify({ challenge: `${C}x` }), C), false);
  assert.equal(echoesChallenge(200, JSON.stringify([C]), C), false);
  assert.equal(echoesChallenge(200, JSON.stringify(C), C), false, 'a JSON string is not the plain challenge');
  // The challenge must be the object's own property, not one inherited.
  assert.equal(echoesChallenge(200, '{"__proto__":{"challenge":"' + C + '"}}', C), false);
});

test('subscriber webhooks refuse private targets unless the operator allows them, and always under probes.blockPrivateAddresses', () => {
  const config = (block: boolean, allow: boolean) => ({ probes: { blockPrivateAddresses: block }, statusPages: { subscriberWebhooks: { allowPrivateTargets: allow } } });
  assert.equal(subscriberRule(config(false, false)), 'subscriber');
  assert.match(refusalMessage('subscriber'), /allowPrivateTargets/);
  assert.equal(subscriberRule(config(false, true)), null);
  assert.equal(subscriberRule(config(true, true)), 'operator');
});

/** A plain-http receiver on loopback that counts what reaches it. */
async function loopbackReceiver(): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits++;
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => res.end((JSON.parse(body) as { challenge: string }).challenge));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    hits: () => hits,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

test('the verification refuses a private target at connect time (a name resolving to loopback too); allowed, an echo verifies', async () => {
  const receiver = await loopbackReceiver();
  const strict = new SubscriberVerifier({ timeoutMs: 5_000, rule: 'subscriber', dnsServers: [] });
  const open = new SubscriberVerifier({ timeoutMs: 5_000, rule: null, dnsServers: [] });
  try {
    const refused = await strict.verify({ url: receiver.url, secret: 'a-secret-of-enough-length' });
    assert.equal(refused.kind, 'failed');
    assert.match(refused.kind === 'failed' ? refused.reason : '', /private address/);
    const byName = await strict.verify({ url: receiver.url.replace('127.0.0.1', 'localhost'), secret: 'a-secret-of-enough-length' });
    assert.equal(byName.kind, 'failed', 'the name is resolved and the address checked as it connects');
    assert.equal(receiver.hits(), 0, 'nothing reached the receiver');
    assert.deepEqual(await open.verify({ url: receiver.url, secret: 'a-secret-of-enough-length' }), { kind: 'verified' });
    assert.equal(receiver.hits(), 1);
  } finally {
    await Promise.all([strict.close(), open.close(), receiver.close()]);
  }
});
