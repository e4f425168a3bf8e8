import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Route } from '../../src/api/http-types.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { NO_PROBES } from './util.js';

/**
 * Issue 35 item 3: every route of the table refuses a query parameter it does not take with a
 * 400 in its error shape, naming it and, for a near-miss, the parameter meant; pages and badges
 * refuse only near-misses (a cache-buster on a shared link still works); heartbeats and the
 * sign-in callback take any. Walks the live route table, so a route added later is covered.
 */

let srv: TestServer;
before(async () => {
  srv = await startServer({ rateLimits: { perKeyPerMinute: 1_000_000, statusPerKeyPerMinute: 1_000_000, statusPerAccountPerMinute: 1_000_000 } }, undefined, NO_PROBES);
});
after(() => srv.stop());

const concrete = (path: string) => path.replace(/:([a-zA-Z]+)/g, (_, name: string) => (name === 'file' ? 'status.svg' : `x${name}`));
const declared = (route: Route): string[] => Object.keys((route.query as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});

async function call(route: Route, query: string): Promise<{ status: number; message: string }> {
  const res = await fetch(`${srv.url}${concrete(route.path)}?${query}`, {
    method: route.method,
    headers: { 'x-api-key': srv.adminKey, accept: 'application/json' },
    redirect: 'manual',
    signal: AbortSignal.timeout(5_000),
  });
  const text = await res.text().catch(() => '');
  let message = '';
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string; error_description?: string };
    message = typeof body.error === 'object' ? body.error.message ?? '' : body.error_description ?? body.error ?? '';
  } catch {
    message = text;
  }
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) await res.body?.cancel();
  return { status: res.status, message };
}

/** A near-miss of a declared name: two neighbours swapped. */
const misspelt = (name: string) => `${name.slice(0, 1)}${name.slice(2, 3)}${name.slice(1, 2)}${name.slice(3)}`;

test('every route refuses a query parameter it does not take, in its own error shape, with a did-you-mean for a near-miss', async () => {
  const routes = srv.app.routes;
  assert.ok(routes.length > 90, 'the whole table is walked');
  const refusing = routes.filter((r) => (r.unknownQuery ?? 'refused') === 'refused');
  for (const route of refusing) {
    const name = `${route.method} ${route.path}`;
    const bogus = await call(route, 'bogusParam=1');
    assert.equal(bogus.status, 400, `${name} refuses an unknown parameter`);
    assert.match(bogus.message, /Unknown query parameter "bogusParam"/, name);
    const known = declared(route);
    if (known.length === 0) {
      assert.match(bogus.message, /takes no query parameters/, name);
      continue;
    }
    const typo = misspelt(known[0]!);
    const near = await call(route, `${typo}=1`);
    assert.equal(near.status, 400, `${name} refuses ${typo}`);
    assert.match(near.message, new RegExp(`did you mean [^?]*\\b${known[0]}\\b`), `${name}: ${near.message}`);
  }
  assert.ok(refusing.some((r) => r.path === '/v1/public/checks/:id/stats'));
  assert.ok(refusing.some((r) => r.path === '/metrics') && refusing.some((r) => r.path === '/mcp/v1'));
});

test('the issue\'s own case: /stats?range=1h names ranges instead of answering the default', async () => {
  const res = await srv.request('GET', '/v1/public/checks/chk_none/stats?range=1h');
  assert.equal(res.status, 400);
  assert.match(res.body.error.message, /Unknown query parameter "range"; did you mean ranges\?/);
  const cased = await srv.request('GET', '/v1/public/checks?Limit=5');
  assert.match(cased.body.error.message, /did you mean limit\?/);
  // A body's misspelt field says the same.
  const body = await srv.request('POST', '/v1/public/checks', { body: { url: 'http://127.0.0.1:9/', checkFrequncy: 5 } });
  assert.equal(body.status, 400);
  assert.equal(body.body.error.message, 'checkFrequncy is not a known field; did you mean checkFrequency?');
  // Documented parameters still work.
  assert.equal((await srv.request('GET', '/v1/public/checks?limit=5&includeTotal=true&tag=a&tag=b')).status, 200);
});

test('pages, feeds and badges take a cache-buster or tracking tag but refuse a near-miss of their own parameters; heartbeats and the sign-in callback take any', async () => {
  const lenient = srv.app.routes.filter((r) => r.unknownQuery === 'typos-refused');
  assert.ok(lenient.some((r) => r.path === '/status/:page') && lenient.some((r) => r.path.startsWith('/badge/')) && lenient.some((r) => r.path === '/dashboard'));
  for (const route of lenient) {
    const res = await call(route, 'v=2&utm_source=newsletter&_=1712345678&__proto__=x');
    assert.doesNotMatch(res.message, /Unknown query parameter/, `${route.method} ${route.path}`);
    const known = declared(route);
    if (known.length > 0) {
      const near = await call(route, `${misspelt(known[0]!)}=flat`);
      assert.equal(near.status, 400, `${route.method} ${route.path}`);
      assert.match(near.message, /did you mean/);
    }
  }
  const dashboard = await fetch(`${srv.url}/dashboard?v=abc123`);
  assert.equal(dashboard.status, 200);
  const accepting = srv.app.routes.filter((r) => r.unknownQuery === 'accepted').map((r) => `${r.method} ${r.path}`);
  assert.ok(accepting.includes('GET /heartbeat/:token') && accepting.includes('GET /v1/auth/oidc/callback'), accepting.join());
  const ping = await fetch(`${srv.url}/heartbeat/hb_unknown?status=up&msg=ok&anything=1`);
  assert.equal(ping.status, 404, 'an unknown token, not a refused parameter');
});
