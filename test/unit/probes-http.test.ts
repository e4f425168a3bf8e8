import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { probeHttp } from '../../src/engine/probes/http.js';
import { assertSaneTiming } from '../helpers/fixtures/assert-timing.js';
import { startHttpFixture, type HttpFixture } from '../helpers/fixtures/http-server.js';
import { closedPort } from '../helpers/fixtures/net-servers.js';
import { probeTask, waitFor } from '../helpers/fixtures/probe-task.js';

describe('http probe', () => {
  let server: HttpFixture;
  let other: HttpFixture;
  before(async () => {
    server = await startHttpFixture();
    other = await startHttpFixture();
  });
  after(async () => {
    await server.close();
    await other.close();
  });

  const website = (path: string, overrides = {}) => probeTask('website', `${server.origin}${path}`, overrides);

  it('measures an answered probe on a fresh connection it closes afterwards', async () => {
    const before = server.connections();
    const result = await probeHttp(website('/text'));
    assert.equal(result.ok, true);
    assert.equal(result.error, null);
    assert.equal(result.statusCode, 200);
    assert.equal(result.snippet, 'hello vigil world');
    assert.equal(result.ssl, null);
    assertSaneTiming(result.timing);
    assert.equal(result.timing.tls, 0);
    assert.equal(result.responseTime, result.timing.total);
    assert.ok(Math.abs(result.startedAt - Date.now()) < 60_000);
    await probeHttp(website('/text'));
    assert.equal(server.connections() - before, 2, 'one new connection per probe');
    await waitFor(() => server.openSockets() === 0, 'probe connections to close');
  });

  it('fails on an unexpected status but keeps what the answer said', async () => {
    const result = await probeHttp(website('/status/500'));
    assert.equal(result.ok, false);
    assert.equal(result.error, 'Expected status 200, got 500');
    assert.equal(result.statusCode, 500);
    assert.equal(result.snippet, 'status 500');
    assert.equal(typeof result.responseTime, 'number');
    assertSaneTiming(result.timing);
  });

  it('accepts any of the expected status codes', async () => {
    const result = await probeHttp(website('/status/503', { expectedStatusCodes: [200, 503] }));
    assert.equal(result.ok, true);
    const wrong = await probeHttp(website('/status/404', { expectedStatusCodes: [200, 201, 503] }));
    assert.equal(wrong.error, 'Expected status 200, 201 or 503, got 404');
  });

  it('reports a refused connection with no timing', async () => {
    const result = await probeHttp(probeTask('website', `http://127.0.0.1:${await closedPort()}/`));
    assert.equal(result.ok, false);
    assert.equal(result.error, 'Connection refused');
    assert.equal(result.statusCode, null);
    assert.equal(result.responseTime, null);
    assert.equal(result.timing, null);
  });

  it('times out a target that never answers and closes its connection', async () => {
    const result = await probeHttp(website('/slow', { timeoutMs: 300 }));
    assert.equal(result.ok, false);
    assert.equal(result.error, 'Timed out after 300 ms');
    assert.equal(result.responseTime, null);
    assert.equal(result.timing, null);
    await waitFor(() => server.openSockets() === 0, 'timed-out connection to close');
  });

  it('keeps the status when the body times out', async () => {
    const result = await probeHttp(website('/slow-body', { timeoutMs: 300 }));
    assert.equal(result.ok, false);
    assert.equal(result.error, 'Timed out after 300 ms');
    assert.equal(result.statusCode, 200);
    assert.equal(result.timing, null);
    await waitFor(() => server.openSockets() === 0, 'timed-out connection to close');
  });

  it('requires every containsText string', async () => {
    const both = await probeHttp(website('/text', { responseValidation: { containsText: ['hello', 'world'] } }));
    assert.equal(both.ok, true);
    const one = await probeHttp(website('/text', { responseValidation: { containsText: ['hello', 'missing', 'absent'] } }));
    assert.equal(one.ok, false);
    assert.equal(one.statusCode, 200);
    assert.equal(one.error, 'Response does not contain "missing", "absent"');
  });

  it('checks a JSONPath value, stringified, against expectedValue', async () => {
    const check = (jsonPath: string, expectedValue?: string, path = '/json') =>
      probeHttp(website(path, { responseValidation: { jsonPath, ...(expectedValue === undefined ? {} : { expectedValue }) } }));
    assert.equal((await check('$.status', 'ok')).ok, true);
    assert.equal((await check('$.count', '2')).ok, true, 'numbers compare as their JSON text');
    assert.equal((await check('$.items[*].name', 'beta')).ok, true, 'any match of a wildcard path');
    assert.equal((await check('$.items[0]')).ok, true, 'a path alone must match something');
    assert.equal((await check('$.status', 'down')).error, 'JSONPath $.status is ok, expected down');
    assert.equal((await check('$.nothing')).error, 'JSONPath $.nothing matched nothing');
    assert.equal((await check('$.status', 'ok', '/text')).error, 'Response is not valid JSON');
  });

  it('sends method, headers and a JSON body, and no-cache when asked', async () => {
    const result = await probeHttp(
      probeTask('rest_endpoint', `${server.origin}/echo`, {
        method: 'POST',
        body: '{"ping":true}',
        headers: { 'X-Custom': 'yes' },
        cacheControlNoCache: true,
      }),
    );
    assert.equal(result.ok, true);
    const seen = server.requests.at(-1)!;
    assert.equal(seen.method, 'POST');
    assert.equal(seen.body, '{"ping":true}');
    assert.equal(seen.headers['content-type'], 'application/json');
    assert.equal(seen.headers['x-custom'], 'yes');
    assert.equal(seen.headers['cache-control'], 'no-cache');
  });

  it("keeps the user's content type and sends no body with GET", async () => {
    await probeHttp(probeTask('rest_endpoint', `${server.origin}/echo`, { method: 'PUT', body: 'a=1', headers: { 'Content-Type': 'text/plain' } }));
    assert.equal(server.requests.at(-1)!.headers['content-type'], 'text/plain');
    await probeHttp(probeTask('rest_endpoint', `${server.origin}/echo`, { method: 'GET', body: '{"x":1}' }));
    const get = server.requests.at(-1)!;
    assert.equal(get.body, '');
    assert.equal(get.headers['content-type'], undefined);
    assert.equal(get.headers['cache-control'], undefined);
  });

  it('HEAD reads no body', async () => {
    const result = await probeHttp(website('/text', { method: 'HEAD' }));
    assert.equal(result.ok, true);
    assert.equal(result.snippet, '');
    assert.equal(server.requests.at(-1)!.method, 'HEAD');
  });

  it('website follows redirects, up to ten', async () => {
    const start = server.requests.length;
    const result = await probeHttp(website('/chain/10'));
    assert.equal(result.ok, true);
    assert.equal(result.statusCode, 200);
    assert.equal(result.snippet, 'arrived');
    assert.equal(result.location, null);
    assert.equal(server.requests.length - start, 11);
    assertSaneTiming(result.timing);
  });

  it('website gives up on more than ten redirects', async () => {
    const start = server.requests.length;
    const result = await probeHttp(website('/loop'));
    assert.equal(result.ok, false);
    assert.equal(result.error, 'Too many redirects (more than 10)');
    assert.equal(result.statusCode, 302);
    assert.equal(server.requests.length - start, 11, 'the first request and ten redirects');
    await waitFor(() => server.openSockets() === 0, 'every hop connection to close');
  });

  it('rest_endpoint does not follow redirects', async () => {
    const result = await probeHttp(probeTask('rest_endpoint', `${server.origin}/chain/1`));
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, 302);
    assert.equal(result.error, 'Expected status 200, got 302');
  });

  it('a 303 turns POST into GET, a 307 keeps method and body', async () => {
    await probeHttp(website('/see-other', { method: 'POST', body: '{"a":1}' }));
    const afterSeeOther = server.requests.at(-1)!;
    assert.equal(afterSeeOther.url, '/echo');
    assert.equal(afterSeeOther.method, 'GET');
    assert.equal(afterSeeOther.body, '');
    await probeHttp(website('/temporary', { method: 'POST', body: '{"a":1}' }));
    const afterTemporary = server.requests.at(-1)!;
    assert.equal(afterTemporary.method, 'POST');
    assert.equal(afterTemporary.body, '{"a":1}');
  });

  it('does not carry credentials to another origin', async () => {
    const to = encodeURIComponent(`${other.origin}/echo`);
    const result = await probeHttp(website(`/elsewhere?to=${to}`, { headers: { Authorization: 'Bearer secret', 'X-Trace': 't1' } }));
    assert.equal(result.ok, true);
    const arrived = other.requests.at(-1)!;
    assert.equal(arrived.headers.authorization, undefined);
    assert.equal(arrived.headers['x-trace'], 't1');
  });

  it('reads at most 1 MiB of body, and a 4 KiB snippet', async () => {
    const result = await probeHttp(website('/big', { responseValidation: { containsText: ['needle-at-the-end'] } }));
    assert.equal(result.ok, false, 'text past the cap is not seen');
    assert.equal(result.snippet?.length, 4096);
    await waitFor(() => server.openSockets() === 0, 'the capped download to close its connection');
  });

  describe('redirect checks', () => {
    const redirect = (path: string, overrides = {}) => probeTask('redirect', `${server.origin}${path}`, overrides);

    it('pass on a 3xx, do not follow, and report the resolved Location', async () => {
      const start = server.requests.length;
      const result = await probeHttp(redirect('/moved'));
      assert.equal(result.ok, true);
      assert.equal(result.statusCode, 301);
      assert.equal(result.location, `${server.origin}/text`);
      assert.equal(server.requests.length - start, 1);
      assertSaneTiming(result.timing);
    });

    it('fail on a non-redirect answer', async () => {
      const result = await probeHttp(redirect('/text'));
      assert.equal(result.ok, false);
      assert.equal(result.error, 'Expected a redirect (3xx), got 200');
    });

    it('honour codes other than the default', async () => {
      assert.equal((await probeHttp(redirect('/moved', { expectedStatusCodes: [301, 308] }))).ok, true);
      const wrong = await probeHttp(redirect('/moved', { expectedStatusCodes: [302] }));
      assert.equal(wrong.error, 'Expected status 302, got 301');
    });

    it('compare the Location with expectedValue when given', async () => {
      assert.equal((await probeHttp(redirect('/moved', { responseValidation: { expectedValue: '/text' } }))).ok, true);
      const wrong = await probeHttp(redirect('/moved', { responseValidation: { expectedValue: '/elsewhere' } }));
      assert.equal(wrong.ok, false);
      assert.equal(wrong.error, `Redirects to ${server.origin}/text, expected /elsewhere`);
    });

    it('fail without a Location header', async () => {
      const result = await probeHttp(redirect('/no-location'));
      assert.equal(result.error, 'Redirect 302 without a Location header');
    });
  });

  it('refuses a private target when blockPrivateAddresses is on, before connecting', async () => {
    const before = server.connections();
    const result = await probeHttp(website('/text', { refusePrivate: 'operator' }));
    assert.equal(result.ok, false);
    assert.equal(result.error, 'Target resolves to a private address (blocked by probes.blockPrivateAddresses)');
    assert.equal(server.connections(), before);
  });

  it('turns a malformed URL into a failed result', async () => {
    const result = await probeHttp(probeTask('website', 'not a url'));
    assert.equal(result.ok, false);
    assert.equal(result.error, 'Invalid URL');
  });
});
