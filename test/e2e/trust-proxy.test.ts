import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../src/front/uws-server.js';

/** server.trustProxy: the client's address and scheme come from X-Forwarded-* only when it is set. */

async function whoAmI(trustProxy: boolean, headers: Record<string, string>): Promise<{ address: string; scheme: string }> {
  const server = await serve('127.0.0.1', 0, (req) => ({ status: 200, body: { address: req.remoteAddress, scheme: req.scheme } }), { trustProxy });
  try {
    const res = await fetch(`http://127.0.0.1:${server.port}/who`, { headers });
    assert.equal(res.status, 200);
    return (await res.json()) as { address: string; scheme: string };
  } finally {
    await server.close();
  }
}

const FORWARDED = { 'x-forwarded-for': '198.51.100.9, 203.0.113.7', 'x-forwarded-proto': 'https' };

describe('server.trustProxy', () => {
  test('off (the default): the peer address and http, whatever the headers claim', async () => {
    const seen = await whoAmI(false, FORWARDED);
    assert.match(seen.address, /127\.0\.0\.1|7f00:0*1$/, `the connection's address: ${seen.address}`);
    assert.equal(seen.scheme, 'http');
  });

  test('on: the address the proxy appended to X-Forwarded-For and the scheme of X-Forwarded-Proto', async () => {
    assert.deepEqual(await whoAmI(true, FORWARDED), { address: '203.0.113.7', scheme: 'https' });
  });

  test('on, without forwarded headers: the peer address and http', async () => {
    const seen = await whoAmI(true, {});
    assert.match(seen.address, /127\.0\.0\.1|7f00:0*1$/);
    assert.equal(seen.scheme, 'http');
  });
});
