import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.js';
import { assertError, assertStatus, createCheck, ISO_PATTERN, newAccount, NO_PROBES, rawRequest, type Actor } from './util.js';

/** POST /v1/public/checks (spec 4.3, decisions §4, §7). */

let server: TestServer;
const CREATE = '/v1/public/checks';

before(async () => {
  // Free accounts get a small check cap so the 409 on maxChecks is cheap to reach.
  server = await startServer({ plans: { free: { maxChecks: 3 } } }, undefined, NO_PROBES);
});
after(async () => {
  await server.stop();
});

async function countChecks(key?: string): Promise<number> {
  const res = await server.request('GET', '/v1/public/checks?limit=100&includeTotal=true', { key });
  assertStatus(res, 200);
  return res.body.meta.total as number;
}

async function usageChecks(key?: string): Promise<number> {
  const res = await server.request('GET', '/v1/public/account', { key });
  assertStatus(res, 200);
  return res.body.data.usage.checks as number;
}

describe('create: defaults and field mapping', () => {
  test('201 {data: {id}} and the check reads back with the documented defaults', async () => {
    const res = await server.request('POST', CREATE, { body: { url: 'https://defaults.example.com/health' } });
    assertStatus(res, 201);
    assert.deepEqual(Object.keys(res.body), ['data']);
    assert.deepEqual(Object.keys(res.body.data), ['id']);
    const id = res.body.data.id as string;

    const got = await server.request('GET', `/v1/public/checks/${id}`);
    assertStatus(got, 200);
    const c = got.body.data;
    assert.equal(c.id, id);
    assert.equal(c.url, 'https://defaults.example.com/health');
    assert.equal(c.name, 'https://defaults.example.com/health', 'name defaults to the URL');
    assert.equal(c.type, 'website', 'type defaults to website');
    assert.equal(c.method, 'GET', 'httpMethod defaults to GET');
    assert.equal(c.interval, 5, 'checkFrequency defaults to 5 minutes, reported in minutes');
    assert.equal(c.expectedStatus, 200, 'expectedStatusCodes defaults to [200]');
    assert.equal(c.status, 'pending', 'a new check is pending until its first result');
    assert.equal(c.region, 'vps-eu-1');
    assert.deepEqual(c.headers, {});
    assert.equal(c.body, null);
    assert.equal(c.responseValidation, null);
    assert.equal(c.consecutiveFailures, 0);
    assert.equal(c.consecutiveFailureThreshold, 2, 'downConfirmationAttempts defaults to 2');
    assert.equal(c.lastChecked, null);
    assert.equal(c.lastResponseTime, null);
    assert.equal(c.lastStatusCode, null);
    assert.match(c.createdAt, ISO_PATTERN);
    assert.match(c.updatedAt, ISO_PATTERN);
    assert.equal(typeof c.uptime, 'number');
    for (const k of ['valid', 'issuer', 'subject', 'validFrom', 'validTo', 'serialNumber', 'fingerprint']) {
      assert.ok(k in c.ssl, `ssl.${k} present`);
    }
    for (const k of ['name', 'registrar', 'expiresAt', 'updatedAt']) assert.ok(k in c.domain, `domain.${k} present`);
  });

  test('input names map to output names (httpMethod, expectedStatusCodes, checkFrequency, requestHeaders, requestBody)', async () => {
    const id = await createCheck(server, {
      url: 'https://mapping.example.com/api',
      name: 'Mapping API',
      type: 'rest_endpoint',
      httpMethod: 'POST',
      expectedStatusCodes: [201, 204],
      checkFrequency: 10,
      requestHeaders: { 'X-Trace': 'abc', Accept: 'application/json' },
      requestBody: '{"ping":true}',
      responseValidation: { containsText: ['ok'], jsonPath: '$.status', expectedValue: 'ok' },
      cacheControlNoCache: true,
      immediateRecheckEnabled: false,
      responseTimeLimit: 1500,
      downConfirmationAttempts: 3,
      timezone: 'Europe/Berlin',
    });
    const c = (await server.request('GET', `/v1/public/checks/${id}`)).body.data;
    assert.equal(c.name, 'Mapping API');
    assert.equal(c.type, 'rest_endpoint');
    assert.equal(c.method, 'POST');
    assert.equal(c.expectedStatus, 201, 'expectedStatus is the first expected code');
    assert.deepEqual(c.expectedStatusCodes, [201, 204]);
    assert.equal(c.interval, 10);
    assert.deepEqual(c.headers, { 'X-Trace': 'abc', Accept: 'application/json' });
    assert.equal(c.body, '{"ping":true}');
    assert.deepEqual(c.responseValidation, { containsText: ['ok'], jsonPath: '$.status', expectedValue: 'ok' });
    assert.equal(c.consecutiveFailureThreshold, 3);
    assert.equal(c.cacheControlNoCache, true);
    assert.equal(c.immediateRecheckEnabled, false);
    assert.equal(c.responseTimeLimit, 1500);
    assert.equal(c.timezone, 'Europe/Berlin');

    const listed = (await server.request('GET', '/v1/public/checks?limit=100')).body.data.find((x: { id: string }) => x.id === id);
    assert.ok(listed, 'the new check is listed');
    assert.equal(listed.method, 'POST');
    assert.equal(listed.interval, 10);
    assert.equal(listed.expectedStatus, 201);
  });

  test('pingPackets is stored for ping checks', async () => {
    const id = await createCheck(server, { url: 'ping-packets.example.com', type: 'ping', pingPackets: 5 });
    const c = (await server.request('GET', `/v1/public/checks/${id}`)).body.data;
    assert.equal(c.type, 'ping');
    assert.equal(c.pingPackets, 5);
  });
});

describe('create: Idempotency-Key', () => {
  const body = JSON.stringify({ url: 'https://idem-raw.example.com' });
  const headers = (extra: Record<string, string> = {}) => ({
    'x-api-key': server.adminKey,
    'content-type': 'application/json',
    ...extra,
  });

  test('missing Idempotency-Key is 400 and creates nothing', async () => {
    const before = await countChecks();
    const res = await rawRequest(server, 'POST', CREATE, headers(), body);
    assertError(res, 400, /Idempotency-Key/);
    assert.equal(await countChecks(), before);
  });

  test('an empty Idempotency-Key counts as missing (400)', async () => {
    const res = await rawRequest(server, 'POST', CREATE, headers({ 'idempotency-key': '' }), body);
    assertError(res, 400);
  });

  test('257 characters is 400; 256 characters is accepted', async () => {
    const tooLong = await rawRequest(server, 'POST', CREATE, headers({ 'idempotency-key': 'k'.repeat(257) }), body);
    assertError(tooLong, 400, /Idempotency-Key/);
    const max = await rawRequest(server, 'POST', CREATE, headers({ 'idempotency-key': 'k'.repeat(256) }), body);
    assertStatus(max, 201);
  });

  test('a replay returns the original status and body with Idempotent-Replayed: true, and creates nothing', async () => {
    const key = `replay-${Date.now()}`;
    const payload = { url: 'https://idem-replay.example.com', name: 'replayed' };
    const first = await server.request('POST', CREATE, { body: payload, headers: { 'Idempotency-Key': key } });
    assertStatus(first, 201);
    assert.equal(first.headers.get('idempotent-replayed'), null, 'the first answer is not a replay');
    const count = await countChecks();

    const second = await server.request('POST', CREATE, { body: payload, headers: { 'Idempotency-Key': key } });
    assert.equal(second.status, 201);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(await countChecks(), count, 'no duplicate check');
  });

  test('the same body with its fields in another order is still a replay', async () => {
    const key = `reorder-${Date.now()}`;
    const first = await server.request('POST', CREATE, {
      rawBody: '{"url":"https://idem-order.example.com","name":"order"}',
      headers: { 'Idempotency-Key': key, 'content-type': 'application/json' },
    });
    assertStatus(first, 201);
    const second = await server.request('POST', CREATE, {
      rawBody: '{"name":"order","url":"https://idem-order.example.com"}',
      headers: { 'Idempotency-Key': key, 'content-type': 'application/json' },
    });
    assert.equal(second.status, 201);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
  });

  test('the same key with a different body is 422 and creates nothing', async () => {
    const key = `conflict-${Date.now()}`;
    assertStatus(await server.request('POST', CREATE, { body: { url: 'https://idem-a.example.com' }, headers: { 'Idempotency-Key': key } }), 201);
    const count = await countChecks();
    const res = await server.request('POST', CREATE, { body: { url: 'https://idem-b.example.com' }, headers: { 'Idempotency-Key': key } });
    assertError(res, 422);
    assert.equal(await countChecks(), count);
  });

  test('the same key on a different path is 422', async () => {
    const key = `path-${Date.now()}`;
    const created = await server.request('POST', CREATE, { body: { url: 'https://idem-path.example.com' }, headers: { 'Idempotency-Key': key } });
    assertStatus(created, 201);
    const res = await server.request('POST', `/v1/public/checks/${created.body.data.id}/toggle`, {
      body: { disabled: true },
      headers: { 'Idempotency-Key': key },
    });
    assertError(res, 422);
    const c = (await server.request('GET', `/v1/public/checks/${created.body.data.id}`)).body.data;
    assert.equal(c.status, 'pending', 'the rejected toggle did not run');
  });

  test('only 2xx answers are remembered: a request that failed can be retried with the same key', async () => {
    const key = `retry-${Date.now()}`;
    const bad = await server.request('POST', CREATE, { body: { url: 'not a url' }, headers: { 'Idempotency-Key': key } });
    assertError(bad, 400);
    const good = await server.request('POST', CREATE, { body: { url: 'https://idem-retry.example.com' }, headers: { 'Idempotency-Key': key } });
    assertStatus(good, 201);
    assert.equal(good.headers.get('idempotent-replayed'), null);
  });

  test('a 409 is not remembered either: the same request succeeds once the conflict is gone', async () => {
    const existing = await createCheck(server, { url: 'https://idem-409.example.com' });
    const key = `after409-${Date.now()}`;
    const payload = { url: 'https://idem-409.example.com' };
    assertError(await server.request('POST', CREATE, { body: payload, headers: { 'Idempotency-Key': key } }), 409);
    assertStatus(await server.request('DELETE', `/v1/public/checks/${existing}`), 200);
    const retry = await server.request('POST', CREATE, { body: payload, headers: { 'Idempotency-Key': key } });
    assertStatus(retry, 201);
    assert.notEqual(retry.body.data.id, existing);
  });

  test('keys are scoped to the account: another account using the same key gets its own check', async () => {
    const other = await newAccount(server, { tier: 'pro', scopes: ['checks:read', 'checks:write'] });
    const key = `shared-${Date.now()}`;
    const payload = { url: 'https://idem-shared.example.com' };
    const mine = await server.request('POST', CREATE, { body: payload, headers: { 'Idempotency-Key': key } });
    assertStatus(mine, 201);
    const theirs = await server.request('POST', CREATE, { body: payload, key: other.key, headers: { 'Idempotency-Key': key } });
    assertStatus(theirs, 201);
    assert.equal(theirs.headers.get('idempotent-replayed'), null);
    assert.notEqual(theirs.body.data.id, mine.body.data.id);
    const seen = await server.request('GET', `/v1/public/checks/${theirs.body.data.id}`, { key: other.key });
    assertStatus(seen, 200);
  });
});

describe('create: body validation', () => {
  test('malformed JSON is 400', async () => {
    const res = await server.request('POST', CREATE, { rawBody: '{"url": "https://x.example.com"', headers: { 'content-type': 'application/json' } });
    assertError(res, 400);
  });

  test('a JSON body that is not an object is 400', async () => {
    for (const raw of ['[]', '"https://x.example.com"', '42', 'null']) {
      const res = await server.request('POST', CREATE, { rawBody: raw, headers: { 'content-type': 'application/json' } });
      assertError(res, 400);
    }
  });

  test('unknown body fields are 400 and name the field', async () => {
    const res = await server.request('POST', CREATE, { body: { url: 'https://unknown-field.example.com', colour: 'blue' } });
    assertError(res, 400, 'colour');
  });

  test('a body over 1 MiB is 413', async () => {
    const res = await server.request('POST', CREATE, {
      body: { url: 'https://big.example.com', name: 'x'.repeat(1024 * 1024 + 1) },
    });
    assertError(res, 413);
  });

  test('a body over 1 MiB sent chunked (no Content-Length) is 413 too', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 17; i++) c.enqueue(chunk);
        c.close();
      },
    });
    const res = await fetch(server.url + CREATE, {
      method: 'POST',
      body: stream,
      headers: { 'x-api-key': server.adminKey, 'idempotency-key': `chunked-${Date.now()}`, 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    assert.equal(res.status, 413);
    const body = (await res.json()) as { error: { code: number } };
    assert.equal(body.error.code, 413);
  });

  test('url is required for every type but heartbeat', async () => {
    for (const type of ['website', 'rest_endpoint', 'tcp', 'ping', 'dns', 'domain']) {
      const res = await server.request('POST', CREATE, { body: { type } });
      assertError(res, 400, 'url');
    }
  });

  const invalid: Array<[string, Record<string, unknown>]> = [
    ['unknown type', { type: 'gopher' }],
    ['name over 200 characters', { name: 'n'.repeat(201) }],
    ['empty name', { name: '' }],
    ['blank name', { name: ' \t ' }],
    ['name with a line break', { name: 'Shop\r\nBcc: x@example.com' }],
    ['name with NUL', { name: 'Shop\u0000' }],
    ['checkFrequency not a number', { checkFrequency: 'five' }],
    ['checkFrequency zero', { checkFrequency: 0 }],
    ['checkRegionOverride not vps-eu-1', { checkRegionOverride: 'vps-us-1' }],
    ['httpMethod not allowed', { httpMethod: 'TRACE' }],
    ['httpMethod lower case', { httpMethod: 'get' }],
    ['expectedStatusCodes not an array', { expectedStatusCodes: 200 }],
    ['expectedStatusCodes with a non-status', { expectedStatusCodes: [99] }],
    ['requestHeaders with 21 entries', { requestHeaders: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v'])) }],
    ['requestHeaders value not a string', { requestHeaders: { 'X-A': 1 } }],
    ['requestHeaders invalid name', { requestHeaders: { 'Bad Header': 'v' } }],
    ['requestHeaders value with a line break', { requestHeaders: { 'X-A': 'a\r\nInjected: 1' } }],
    ['requestBody not JSON', { httpMethod: 'POST', requestBody: 'hello=world' }],
    ['requestBody over 64 KB', { httpMethod: 'POST', requestBody: JSON.stringify('x'.repeat(65536)) }],
    ['requestBody not a string', { httpMethod: 'POST', requestBody: { a: 1 } }],
    ['responseValidation unknown key', { responseValidation: { regex: '.*' } }],
    ['responseValidation.containsText not an array', { responseValidation: { containsText: 'ok' } }],
    ['downConfirmationAttempts 0', { downConfirmationAttempts: 0 }],
    ['downConfirmationAttempts 100', { downConfirmationAttempts: 100 }],
    ['downConfirmationAttempts fractional', { downConfirmationAttempts: 1.5 }],
    ['pingPackets 0', { pingPackets: 0 }],
    ['pingPackets 6', { pingPackets: 6 }],
    ['cacheControlNoCache not boolean', { cacheControlNoCache: 'yes' }],
    ['immediateRecheckEnabled not boolean', { immediateRecheckEnabled: 1 }],
    ['responseTimeLimit negative', { responseTimeLimit: -5 }],
    ['timezone unknown', { timezone: 'Mars/Olympus_Mons' }],
  ];
  for (const [what, extra] of invalid) {
    test(`400 for ${what}`, async () => {
      const before = await countChecks();
      const res = await server.request('POST', CREATE, { body: { url: 'https://validation.example.com', ...extra } });
      assertError(res, 400);
      assert.equal(await countChecks(), before, 'nothing created');
    });
  }

  const boundaries: Array<[string, Record<string, unknown>]> = [
    ['name of 200 characters', { name: 'n'.repeat(200) }],
    // "Max 200 characters" counts characters (JSON Schema maxLength: code points), not UTF-16 units.
    ['name of 150 emoji (150 characters, 300 UTF-16 units)', { name: '\u{1F600}'.repeat(150) }],
    ['requestHeaders with 20 entries', { requestHeaders: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`X-H${i}`, 'v'])) }],
    ['requestBody just under 64 KB', { httpMethod: 'POST', requestBody: JSON.stringify({ pad: 'x'.repeat(63_000) }) }],
    ['downConfirmationAttempts 1', { downConfirmationAttempts: 1 }],
    ['downConfirmationAttempts 99', { downConfirmationAttempts: 99 }],
    ['pingPackets 1', { pingPackets: 1 }],
    ['checkRegionOverride vps-eu-1 (pro plan)', { checkRegionOverride: 'vps-eu-1' }],
    ['checkFrequency at the pro minimum 0.5', { checkFrequency: 0.5 }],
  ];
  let n = 0;
  for (const [what, extra] of boundaries) {
    test(`accepted: ${what}`, async () => {
      await createCheck(server, { url: `https://boundary-${++n}.example.com`, ...extra });
    });
  }
});

describe('create: URL forms per type (decisions §4)', () => {
  const accepted: Array<[string, string]> = [
    ['website', 'http://forms.example.com/'],
    ['website', 'https://forms.example.com/status?x=1'],
    ['rest_endpoint', 'https://api.forms.example.com/v1/health'],
    ['redirect', 'http://redirect.forms.example.com/old'],
    ['tcp', 'tcp://db.forms.example.com:5432'],
    ['tcp', 'tcp://10.0.0.5:6379'],
    ['udp', 'udp://ntp.forms.example.com:123'],
    ['websocket', 'ws://ws.forms.example.com/socket'],
    ['websocket', 'wss://ws.forms.example.com/socket'],
    ['ping', 'host.forms.example.com'],
    ['ping', '192.0.2.10'],
    ['ping', 'icmp://icmp.forms.example.com'],
    ['dns', 'resolve.forms.example.com'],
    ['dns', 'dns://1.1.1.1/forms.example.com?type=A'],
    ['dns', 'dns://ns.forms.example.com:5353/mx.forms.example.com?type=MX'],
    ['domain', 'forms-domain.example.com'],
    ['smtp', 'smtp://mail.forms.example.com:25'],
    ['smtp', 'smtps://mail.forms.example.com:465'],
    ['pop3', 'pop3://mail.forms.example.com:110'],
    ['pop3', 'pop3s://mail.forms.example.com:995'],
    ['imap', 'imap://mail.forms.example.com:143'],
    ['imap', 'imaps://mail.forms.example.com:993'],
  ];
  for (const [type, url] of accepted) {
    test(`accepted: ${type} ${url}`, async () => {
      const id = await createCheck(server, { type, url });
      const c = (await server.request('GET', `/v1/public/checks/${id}`)).body.data;
      assert.equal(c.type, type);
    });
  }

  const rejected: Array<[string, string]> = [
    ['website', 'ftp://files.rejected.example.com'],
    ['website', 'rejected.example.com'],
    ['website', 'tcp://rejected.example.com:80'],
    ['website', 'https://user:pass@rejected.example.com/'],
    ['rest_endpoint', 'ws://rejected.example.com'],
    ['tcp', 'tcp://rejected.example.com'],
    ['tcp', 'https://rejected.example.com'],
    ['udp', 'udp://rejected.example.com'],
    ['udp', 'tcp://rejected.example.com:53'],
    ['websocket', 'https://rejected.example.com/socket'],
    ['ping', 'https://rejected.example.com'],
    ['ping', 'not a host'],
    ['dns', 'https://rejected.example.com'],
    ['dns', 'dns://1.1.1.1/rejected.example.com?type=BOGUS'],
    ['domain', 'https://rejected.example.com'],
    ['domain', '192.0.2.1'],
    ['domain', 'localhost'],
    ['smtp', 'http://mail.rejected.example.com'],
    ['pop3', 'imap://mail.rejected.example.com:143'],
    ['imap', 'smtp://mail.rejected.example.com:25'],
    // Port 0 can never be connected to.
    ['tcp', 'tcp://zero.rejected.example.com:0'],
    ['udp', 'udp://zero.rejected.example.com:0'],
    ['website', 'https://zero.rejected.example.com:0/'],
  ];
  for (const [type, url] of rejected) {
    test(`400: ${type} ${url}`, async () => {
      const res = await server.request('POST', CREATE, { body: { type, url } });
      assertError(res, 400);
    });
  }
});

describe('create: heartbeat checks', () => {
  test('a heartbeat created without url gets {publicUrl}/heartbeat/<64 hex>', async () => {
    const id = await createCheck(server, { type: 'heartbeat', name: 'nightly backup', checkFrequency: 60 });
    const c = (await server.request('GET', `/v1/public/checks/${id}`)).body.data;
    const publicUrl = server.app.config.publicUrl;
    assert.equal(c.type, 'heartbeat');
    assert.ok(c.url.startsWith(`${publicUrl}/heartbeat/`), c.url);
    assert.match(c.url.slice(`${publicUrl}/heartbeat/`.length), /^[0-9a-f]{64}$/);
    assert.equal(c.interval, 60);
    assert.equal(c.status, 'pending', 'a heartbeat is pending until its first ping');

    const listed = (await server.request('GET', '/v1/public/checks?limit=100')).body.data.find((x: { id: string }) => x.id === id);
    assert.equal(listed.url, c.url, 'the list shows the same ping URL');
  });

  test('two heartbeats get distinct ping URLs and never collide as duplicates', async () => {
    const a = await createCheck(server, { type: 'heartbeat' });
    const b = await createCheck(server, { type: 'heartbeat' });
    const ua = (await server.request('GET', `/v1/public/checks/${a}`)).body.data.url;
    const ub = (await server.request('GET', `/v1/public/checks/${b}`)).body.data.url;
    assert.notEqual(ua, ub);
  });

  test('heartbeat interval is held to minHeartbeatIntervalSeconds (pro: 15 s)', async () => {
    assertError(await server.request('POST', CREATE, { body: { type: 'heartbeat', checkFrequency: 0.2 } }), 400);
    // 15 seconds: below the pro minimum for other checks (0.5 min), allowed for heartbeats.
    await createCheck(server, { type: 'heartbeat', checkFrequency: 0.25 });
  });

  test('non-heartbeat interval is held to minCheckIntervalMinutes (pro: 0.5)', async () => {
    assertError(await server.request('POST', CREATE, { body: { url: 'https://too-fast.example.com', checkFrequency: 0.25 } }), 400);
  });
});

describe('create: duplicate URLs (409 after normalisation)', () => {
  const cases: Array<[string, string, string, string]> = [
    ['website', 'https://dup.example.com/path', 'website', 'HTTPS://DUP.Example.COM/path'],
    ['website', 'https://dup2.example.com/path', 'website', 'https://dup2.example.com:443/path'],
    ['website', 'http://dup3.example.com/x', 'website', 'http://DUP3.example.com:80/x'],
    ['tcp', 'tcp://dup.example.com:22', 'tcp', 'TCP://Dup.Example.com:22'],
    ['ping', 'dup-ping.example.com', 'ping', 'DUP-PING.example.com'],
  ];
  for (const [t1, u1, t2, u2] of cases) {
    test(`${u2} duplicates ${u1}`, async () => {
      await createCheck(server, { type: t1, url: u1 });
      const before = await countChecks();
      const res = await server.request('POST', CREATE, { body: { type: t2, url: u2 } });
      assertError(res, 409);
      assert.equal(await countChecks(), before);
    });
  }

  const distinct: Array<[string, string]> = [
    ['https://distinct.example.com/a', 'https://distinct.example.com/b'],
    ['https://distinct2.example.com/', 'https://distinct2.example.com:8443/'],
    ['https://distinct3.example.com/', 'http://distinct3.example.com/'],
    ['https://distinct4.example.com/Path', 'https://distinct4.example.com/path'],
  ];
  for (const [u1, u2] of distinct) {
    test(`${u2} is not a duplicate of ${u1}`, async () => {
      await createCheck(server, { url: u1 });
      await createCheck(server, { url: u2 });
    });
  }

  test('another account may monitor the same URL', async () => {
    await createCheck(server, { url: 'https://shared-target.example.com' });
    const other = await newAccount(server, { tier: 'pro' });
    await createCheck(server, { url: 'https://shared-target.example.com' }, other.key);
  });
});

describe('create: plan limits', () => {
  let free: Actor;
  let indie: Actor;
  let nano: Actor;
  before(async () => {
    free = await newAccount(server, { tier: 'free' });
    indie = await newAccount(server, { tier: 'indie' });
    nano = await newAccount(server, { tier: 'nano' });
  });

  test('type domain below nano is 403 and creates nothing', async () => {
    for (const actor of [free, indie]) {
      const before = await usageChecks(actor.key);
      const res = await server.request('POST', CREATE, { key: actor.key, body: { type: 'domain', url: 'plan-domain.example.com' } });
      assertError(res, 403);
      assert.equal(await usageChecks(actor.key), before);
    }
  });

  test('type domain on nano is allowed', async () => {
    const id = await createCheck(server, { type: 'domain', url: 'nano-domain.example.com' }, nano.key);
    const c = (await server.request('GET', `/v1/public/checks/${id}`, { key: nano.key })).body.data;
    assert.equal(c.type, 'domain');
  });

  test('checkRegionOverride on a plan without regionChoice is 403 and creates nothing', async () => {
    for (const actor of [free, indie]) {
      const before = await usageChecks(actor.key);
      const res = await server.request('POST', CREATE, {
        key: actor.key,
        body: { url: 'https://region.example.com', checkRegionOverride: 'vps-eu-1' },
      });
      assertError(res, 403);
      assert.equal(await usageChecks(actor.key), before);
    }
  });

  test('checkRegionOverride on nano is stored and reported', async () => {
    const id = await createCheck(server, { url: 'https://nano-region.example.com', checkRegionOverride: 'vps-eu-1' }, nano.key);
    const c = (await server.request('GET', `/v1/public/checks/${id}`, { key: nano.key })).body.data;
    assert.equal(c.region, 'vps-eu-1');
  });

  test('an interval below the plan minimum is 400 (free: 5 minutes)', async () => {
    const res = await server.request('POST', CREATE, { key: free.key, body: { url: 'https://free-fast.example.com', checkFrequency: 4 } });
    assertError(res, 400, 'checkFrequency');
    const hb = await server.request('POST', CREATE, { key: free.key, body: { type: 'heartbeat', checkFrequency: 4 } });
    assertError(hb, 400, 'checkFrequency');
  });

  test('an interval below the plan minimum is 400 (indie: 1 minute)', async () => {
    const res = await server.request('POST', CREATE, { key: indie.key, body: { url: 'https://indie-fast.example.com', checkFrequency: 0.5 } });
    assertError(res, 400);
    await createCheck(server, { url: 'https://indie-ok.example.com', checkFrequency: 1 }, indie.key);
  });

  test('maxChecks reached is 409; deleting one makes room again', async () => {
    const actor = await newAccount(server, { tier: 'free' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await createCheck(server, { url: `https://cap-${i}.example.com` }, actor.key));
    const res = await server.request('POST', CREATE, { key: actor.key, body: { url: 'https://cap-3.example.com' } });
    assertError(res, 409);
    assert.equal(await usageChecks(actor.key), 3);
    // A heartbeat counts against the cap like any check.
    assertError(await server.request('POST', CREATE, { key: actor.key, body: { type: 'heartbeat' } }), 409);

    assertStatus(await server.request('DELETE', `/v1/public/checks/${ids[0]}`, { key: actor.key }), 200);
    await createCheck(server, { url: 'https://cap-3.example.com' }, actor.key);
  });
});

describe('create: ping URLs follow the configured addresses', () => {
  test('heartbeatUrl, when set, is the base of ping URLs; a trailing slash is not doubled', async () => {
    const other = await startServer({ publicUrl: 'https://vigil.example.com/', heartbeatUrl: 'https://hb.example.net/' }, undefined, NO_PROBES);
    try {
      const res = await other.request('POST', CREATE, { body: { type: 'heartbeat' } });
      assertStatus(res, 201);
      const c = (await other.request('GET', `/v1/public/checks/${res.body.data.id}`)).body.data;
      assert.match(c.url, /^https:\/\/hb\.example\.net\/heartbeat\/[0-9a-f]{64}$/);
    } finally {
      await other.stop();
    }
  });

  test('without heartbeatUrl, ping URLs use publicUrl', async () => {
    const other = await startServer({ publicUrl: 'https://vigil.example.com' }, undefined, NO_PROBES);
    try {
      const res = await other.request('POST', CREATE, { body: { type: 'heartbeat' } });
      const c = (await other.request('GET', `/v1/public/checks/${res.body.data.id}`)).body.data;
      assert.match(c.url, /^https:\/\/vigil\.example\.com\/heartbeat\/[0-9a-f]{64}$/);
    } finally {
      await other.stop();
    }
  });
});

describe('responseValidation.jsonPath', () => {
  test('a path that cannot be evaluated is a 400 at create and update; filters and slices are accepted', async () => {
    const a = await newAccount(server, { tier: 'pro', scopes: ['checks:read', 'checks:write'] });
    for (const jsonPath of ['$[[[(', '$.items[?(@.price>)]', '$.items[?(@.x', '$.a[(@.length-)]']) {
      const res = await server.request('POST', CREATE, { key: a.key, body: { url: 'https://jp.example.com/', responseValidation: { jsonPath, expectedValue: 'x' } } });
      assertError(res, 400, /responseValidation\.jsonPath is not a valid JSONPath/);
    }
    let n = 0;
    for (const jsonPath of ['$.status', '$..id', "$.items[?(@.name=='x')].id", '$.items[(@.length-1)]', '$.items[0:2]', '$.items[*].price']) {
      assertStatus(await server.request('POST', CREATE, { key: a.key, body: { url: `https://jp${n++}.example.com/`, responseValidation: { jsonPath } } }), 201);
    }
    const id = (await server.request('GET', '/v1/public/checks', { key: a.key })).body.data[0].id as string;
    assertError(await server.request('PATCH', `${CREATE}/${id}`, { key: a.key, body: { responseValidation: { jsonPath: '$[?(@.a ==' } } }), 400, /not a valid JSONPath/);
    assert.equal((await server.request('GET', `${CREATE}/${id}`, { key: a.key })).body.data.responseValidation.jsonPath, '$.status');
  });
});

describe('probes.blockPrivateAddresses (decisions §3: refused at create, update and probe time)', () => {
  let strict: TestServer;
  before(async () => {
    strict = await startServer({ probes: { blockPrivateAddresses: true } }, undefined, NO_PROBES);
  });
  after(() => strict.stop());

  test('a target on, or resolving to, a private address is a 400 and creates nothing', async () => {
    const a = await newAccount(strict, { tier: 'pro', scopes: ['checks:read', 'checks:write'] });
    const targets = [
      { url: 'http://127.0.0.1:8080/' },
      { url: 'http://localhost/' },
      { url: 'https://10.0.0.1/' },
      { url: 'http://[::1]:9000/' },
      { url: 'http://[::ffff:192.168.1.1]/' },
      { url: 'tcp://127.0.0.1:5432', type: 'tcp' },
      { url: '127.0.0.1', type: 'ping' },
      { url: 'dns://127.0.0.1/example.com', type: 'dns' },
    ];
    for (const body of targets) {
      assertError(await strict.request('POST', CREATE, { key: a.key, body }), 400, /private address/);
    }
    const list = await strict.request('GET', '/v1/public/checks', { key: a.key });
    assert.equal(list.body.data.length, 0);
  });

  test('public targets and heartbeats are created; an update to a private target is refused and changes nothing', async () => {
    const a = await newAccount(strict, { tier: 'pro', scopes: ['checks:read', 'checks:write'] });
    const created = await strict.request('POST', CREATE, { key: a.key, body: { url: 'https://93.184.215.14/' } });
    assertStatus(created, 201);
    assertStatus(await strict.request('POST', CREATE, { key: a.key, body: { type: 'heartbeat' } }), 201);
    const id = created.body.data.id as string;
    assertError(await strict.request('PATCH', `/v1/public/checks/${id}`, { key: a.key, body: { url: 'http://169.254.169.254/latest/meta-data' } }), 400, /private address/);
    assertError(await strict.request('PATCH', `/v1/public/checks/${id}`, { key: a.key, body: { type: 'tcp', url: 'tcp://10.1.1.1:22' } }), 400, /private address/);
    const after = await strict.request('GET', `/v1/public/checks/${id}`, { key: a.key });
    assert.equal(after.body.data.url, 'https://93.184.215.14/');
    assertStatus(await strict.request('PATCH', `/v1/public/checks/${id}`, { key: a.key, body: { name: 'renamed' } }), 200);
  });

  test('an idempotent create retried with the same key replays its answer', async () => {
    const a = await newAccount(strict, { tier: 'pro', scopes: ['checks:read', 'checks:write'] });
    const headers = { 'Idempotency-Key': 'private-target-retry' };
    const first = await strict.request('POST', CREATE, { key: a.key, body: { url: 'https://93.184.215.15/' }, headers });
    assertStatus(first, 201);
    const again = await strict.request('POST', CREATE, { key: a.key, body: { url: 'https://93.184.215.15/' }, headers });
    assertStatus(again, 201);
    assert.equal(again.body.data.id, first.body.data.id);
  });
});
