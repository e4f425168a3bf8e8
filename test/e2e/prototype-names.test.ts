import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, send, type TestServer } from '../helpers/server.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { NO_PROBES } from './util.js';

/**
 * Issue 34 item 5: a name a client sends is never looked up on a plain object. Every name of
 * Object.prototype (and a few of Function's, which a lookup that lands on a constructor reaches)
 * goes everywhere a client names something: JSON-RPC methods, tool, prompt and resource names,
 * tool arguments, every path parameter and segment of the route table, query parameters, body
 * keys, form fields, check and webhook types, monitoring-file keys and config keys. The answer is
 * the protocol's own "unknown" error, never a 500.
 */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);
const NAMES = [...PROTOTYPE_NAMES, 'prototype', 'call', 'apply', 'bind', 'length', 'name'];

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

let srv: TestServer;
let checkId: string;
let pageId: string;
let pageSlug: string;

before(async () => {
  srv = await startServer({ rateLimits: { perKeyPerMinute: 1_000_000, statusPerKeyPerMinute: 1_000_000, statusPerAccountPerMinute: 1_000_000 } }, undefined, NO_PROBES);
  const check = await srv.request('POST', '/v1/public/checks', { body: { url: 'https://proto.example.com', checkFrequency: 5 } });
  assert.equal(check.status, 201, check.text);
  checkId = check.body.data.id;
  const page = await srv.request('POST', '/v1/public/status-pages', { body: { slug: 'proto-page', title: 'Proto', checkIds: [checkId] } });
  assert.equal(page.status, 201, page.text);
  pageId = page.body.data.id;
  pageSlug = page.body.data.slug;
});
after(() => srv.stop());

/** Fails with every request that answered 5xx, not only the first. */
function assertNoServerErrors(failures: string[]): void {
  assert.deepEqual(failures, [], `${failures.length} answers were 5xx:\n${failures.slice(0, 40).join('\n')}`);
}

function record(failures: string[], what: string, res: { status: number; text: string }): void {
  // /readyz answers 503 by design while the engine is not started (these servers never tick it).
  if (res.status === 503 && what.startsWith('GET /readyz')) return;
  if (res.status >= 500) failures.push(`${what} → ${res.status} ${res.text.slice(0, 200)}`);
}

/**
 * One request with the admin key, its body read unless it is a stream (the live feed stays
 * open); bounded in time, so a request that hangs is a failure rather than a stuck suite.
 */
async function hit(method: string, path: string, body?: string, contentType = 'application/json'): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { 'x-api-key': srv.adminKey, 'idempotency-key': `proto-${++sent}` };
  if (body !== undefined) headers['content-type'] = contentType;
  try {
    const res = await fetch(srv.url + path, { method, headers, body, signal: AbortSignal.timeout(10_000) });
    if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
      await res.body?.cancel();
      return { status: res.status, text: '' };
    }
    return { status: res.status, text: await res.text() };
  } catch (err) {
    return { status: 599, text: `no answer: ${(err as Error).message}` };
  }
}
let sent = 0;

const rpc = (body: unknown) => srv.request('POST', '/mcp/v1', { headers: MCP_HEADERS, body });

describe('names of Object.prototype sent by a client (issue 34 item 5)', () => {
  test('as a JSON-RPC method: -32601 Method not found', async () => {
    for (const name of NAMES) {
      const res = await rpc({ jsonrpc: '2.0', id: 1, method: name, params: {} });
      assert.equal(res.status, 200, `${name}: ${res.status} ${res.text}`);
      assert.equal(res.body.error?.code, -32601, `${name}: ${res.text}`);
    }
  });

  test('as a tool, prompt or resource name, and as tool arguments: the protocol\'s own errors', async () => {
    for (const name of NAMES) {
      const tool = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });
      assert.equal(tool.status, 200, `tool ${name}: ${tool.text}`);
      assert.equal(tool.body.error?.code, -32602, `tool ${name}: ${tool.text}`);
      assert.match(tool.body.error.message, /Unknown tool/);
      const prompt = await rpc({ jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name } });
      assert.equal(prompt.body.error?.code, -32602, `prompt ${name}: ${prompt.text}`);
      const resource = await rpc({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: name } });
      assert.equal(resource.body.error?.code, -32602, `resource ${name}: ${resource.text}`);
      // A tool argument of that name: unknown arguments are the route's own 400, carried as a tool error.
      for (const [tool, args] of [['list_checks', {}], ['get_check', { id: checkId }], ['create_check', { url: 'https://a.example.com', idempotencyKey: `k-${name}` }]] as const) {
        const text = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${tool}","arguments":${JSON.stringify(args).replace(/}$/, `${Object.keys(args).length ? ',' : ''}"${name}":"x"}`)}}}`;
        const res = await srv.request('POST', '/mcp/v1', { headers: { ...MCP_HEADERS, 'content-type': 'application/json' }, rawBody: text });
        assert.equal(res.status, 200, `${tool}(${name}): ${res.text}`);
        assert.ok(res.body.result?.isError === true || res.body.error?.code === -32602 || res.body.result?.isError === undefined, `${tool}(${name}): ${res.text}`);
        if (res.body.result?.isError) assert.doesNotMatch(res.body.result.content[0].text, /internal|unexpected/i, `${tool}(${name}): ${res.text}`);
      }
      // The id of get_check named that: the API's 404.
      const get = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_check', arguments: { id: name } } });
      assert.equal(get.body.result?.structuredContent?.status, 404, `get_check ${name}: ${get.text}`);
    }
  });

  test('as every path parameter and as an extra path segment of every route: no 5xx', async () => {
    const failures: string[] = [];
    const routes = srv.app.routes.filter((r) => r.path !== '/mcp/v1');
    assert.ok(routes.length > 80, `the route table: ${routes.length} routes`);
    for (const name of NAMES) {
      for (const route of routes) {
        const path = route.path.replace(/:[A-Za-z]+/g, encodeURIComponent(name));
        const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : route.bodyKind === 'form' ? `${name}=x` : `{"${name}":"x"}`;
        const contentType = route.bodyKind === 'form' ? 'application/x-www-form-urlencoded' : route.rawBody ? 'text/yaml' : 'application/json';
        record(failures, `${route.method} ${path}`, await hit(route.method, path, body, contentType));
        record(failures, `${route.method} ${route.path}/${name}`, await hit(route.method, `${path}/${encodeURIComponent(name)}`));
      }
      record(failures, `GET /${name}`, await hit('GET', `/${encodeURIComponent(name)}`));
      record(failures, `GET /status/${name}.json`, await hit('GET', `/status/${encodeURIComponent(name)}.json`));
      record(failures, `GET /badge/…/${name}/…`, await hit('GET', `/badge/${checkId}/${encodeURIComponent(name)}/7d.svg`));
      record(failures, `GET /badge/…/uptime/${name}.svg`, await hit('GET', `/badge/${checkId}/uptime/${encodeURIComponent(name)}.svg`));
    }
    assertNoServerErrors(failures);
  });

  test('as a query parameter name and value of every route that reads a query: no 5xx', async () => {
    const failures: string[] = [];
    const params = { id: checkId, page: pageSlug, file: 'status.svg', measure: 'uptime' } as Record<string, string>;
    const routes = srv.app.routes.filter((r) => r.method === 'GET' && r.path !== '/mcp/v1');
    for (const route of routes) {
      const path = route.path.replace(/:([A-Za-z]+)/g, (_, p: string) => (p === 'id' && route.path.startsWith('/v1/public/status-pages') ? pageId : params[p] ?? 'x'));
      for (const name of NAMES) {
        const n = encodeURIComponent(name);
        record(failures, `GET ${path}?${name}=x`, await hit('GET', `${path}?${n}=x&${n}=y`));
        // Every declared parameter given the name as its value (enums, ranges, statuses, styles).
        const declared = Object.keys((route.query as { properties?: object } | undefined)?.properties ?? {});
        if (declared.length) record(failures, `GET ${path}?*=${name}`, await hit('GET', `${path}?${declared.map((d) => `${d}=${n}`).join('&')}`));
      }
    }
    assertNoServerErrors(failures);
  });

  test('as a header name: ignored like any unknown header', async () => {
    // uWebSockets closes the connection on any header name with an underscore (`__proto__` included), before Vigil sees it.
    for (const name of PROTOTYPE_NAMES.filter((n) => !n.includes('_'))) {
      const headers = { 'x-api-key': srv.adminKey, [name]: 'x' };
      const list = await fetch(`${srv.url}/v1/public/checks`, { headers });
      assert.equal(list.status, 200, `${name}: ${await list.text()}`);
      const anonymous = await fetch(`${srv.url}/v1/public/checks`, { headers: { [name]: 'x' } });
      assert.equal(anonymous.status, 401, `${name}: still no credential`);
      const page = await fetch(`${srv.url}/status/${pageSlug}`, { headers: { [name]: 'x' } });
      assert.equal(page.status, 200, name);
    }
  });

  test('as a check type, webhook type, body key and field: the API\'s 400, nothing created', async () => {
    const before = (await srv.request('GET', '/v1/public/checks')).body.data.length;
    const hooks = (await srv.request('GET', '/v1/public/alerts/webhooks')).body.data.length;
    for (const name of PROTOTYPE_NAMES) {
      const check = await srv.request('POST', '/v1/public/checks', { body: { url: 'https://typed.example.com', type: name } });
      assert.equal(check.status, 400, `check type ${name}: ${check.text}`);
      const hook = await srv.request('POST', '/v1/public/alerts/webhooks', { body: { url: 'https://hooks.example.com/x', type: name } });
      assert.equal(hook.status, 400, `webhook type ${name}: ${hook.text}`);
      const patched = await srv.request('PATCH', `/v1/public/checks/${checkId}`, { rawBody: `{"${name}":"x"}`, headers: { 'content-type': 'application/json' } });
      assert.equal(patched.status, 400, `check field ${name}: ${patched.text}`);
      const page = await srv.request('PATCH', `/v1/public/status-pages/${pageId}`, { rawBody: `{"${name}":{"a":1}}`, headers: { 'content-type': 'application/json' } });
      assert.equal(page.status, 400, `page field ${name}: ${page.text}`);
      const stats = await srv.request('GET', `/v1/public/checks/${checkId}/stats?ranges=${encodeURIComponent(name)}`);
      assert.equal(stats.status, 400, `stats range ${name}: ${stats.text}`);
      const token = await send(srv.url, '', 'POST', '/oauth/token', { key: null, rawBody: `grant_type=${encodeURIComponent(name)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      assert.equal(token.status, 400, `grant_type ${name}: ${token.text}`);
      const subscribe = await send(srv.url, '', 'POST', `/status/${pageSlug}/subscribe`, { key: null, rawBody: `${encodeURIComponent(name)}=x&kind=${encodeURIComponent(name)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      assert.ok(subscribe.status < 500, `subscribe ${name}: ${subscribe.status} ${subscribe.text}`);
    }
    // A URL scheme is a name too: `constructor://` is no scheme of any type (URL lower-cases schemes).
    for (const type of ['website', 'rest_endpoint', 'redirect', 'websocket', 'tcp', 'udp', 'smtp', 'pop3', 'imap']) {
      const check = await srv.request('POST', '/v1/public/checks', { body: { url: 'constructor://scheme.example.com:25', type } });
      assert.equal(check.status, 400, `${type} with scheme constructor: ${check.text}`);
      assert.match(check.body.error.message, /url/, check.text);
    }
    assert.equal((await srv.request('GET', '/v1/public/checks')).body.data.length, before, 'no check was created');
    assert.equal((await srv.request('GET', '/v1/public/alerts/webhooks')).body.data.length, hooks, 'no webhook was created');
  });

  test('as keys and fields of a monitoring file: the plan\'s 400 or a plan, never a 500', async () => {
    const failures: string[] = [];
    for (const name of NAMES) {
      const files = [
        `{"version":1,"${name}":{}}`,
        `{"version":1,"checks":{"${name}":{"url":"https://file.example.com"}}}`,
        `{"version":1,"checks":{"a":{"url":"https://file.example.com","${name}":"x"}}}`,
        `{"version":1,"checks":{"a":{"url":"https://file.example.com","type":"${name}"}}}`,
        `{"version":1,"checks":{"a":{"url":"https://file.example.com","dependsOn":["${name}"]}}}`,
        `{"version":1,"webhooks":{"w":{"url":"https://hooks.example.com/x","type":"${name}"}}}`,
        `{"version":1,"statusPages":{"p":{"slug":"fp","title":"F","checks":["${name}"]}}}`,
        `{"version":1,"checks":{"a":{"url":"https://file.example.com","renamedFrom":"${name}"}}}`,
      ];
      for (const file of files) record(failures, file, await hit('POST', '/v1/public/config/plan', file));
    }
    assertNoServerErrors(failures);
    // As a ${VARIABLE} of the file: a variable that is not set (over HTTP none is), never a built-in's text.
    for (const name of PROTOTYPE_NAMES.filter((n) => /^[A-Za-z_]\w*$/.test(n))) {
      const res = await hit('POST', '/v1/public/config/plan', `{"version":1,"checks":{"v":{"url":"https://\${${name}}.example.com"}}}`);
      assert.equal(res.status, 400, `\${${name}}: ${res.text}`);
      assert.match(res.text, new RegExp(name), `\${${name}} is named as not set: ${res.text}`);
      assert.doesNotMatch(res.text, /native code|function/, res.text);
    }
  });

  test('as config keys: a warning about an unknown key, never a crash or a changed default', () => {
    for (const name of NAMES) {
      const warnings: string[] = [];
      const overrides = JSON.parse(`{"${name}":{"a":1},"server":{"${name}":1},"probes":{"${name}":{"threads":9}}}`) as Record<string, unknown>;
      let config;
      try {
        config = loadConfig({ overrides, env: {}, warn: (m) => warnings.push(m) });
      } catch (err) {
        assert.ok(err instanceof ConfigError, `${name}: ${(err as Error).stack}`);
        continue;
      }
      assert.ok(warnings.some((w) => w.includes(`unknown config key ${name}`)), `${name}: ${warnings.join('; ')}`);
      assert.ok(warnings.some((w) => w.includes(`unknown config key server.${name}`)), `${name}: ${warnings.join('; ')}`);
      assert.equal(Object.getPrototypeOf(config), Object.prototype, `${name}: the config's prototype is untouched`);
      assert.equal(Object.getPrototypeOf(config.probes), Object.prototype, `${name}: probes' prototype is untouched`);
      assert.equal(({} as Record<string, unknown>).a, undefined, 'no global prototype was polluted');
    }
  });
});
