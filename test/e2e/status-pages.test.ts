import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { bindTools } from '../../src/mcp/tool-binding.js';
import { TOOL_SPECS } from '../../src/mcp/tool-table.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { assertError, assertStatus, createCheck, newAccount, newKey, NO_PROBES, rawRequest, setMonitorStatus, type Actor } from './util.js';

/**
 * Status pages (issue 15): the API that manages them, and what anyone may read without
 * signing in (HTML, JSON, Atom, custom domains, badges), cached with ETags. Probes are not run
 * here: statuses are set through the store and the cache is purged the way the app does.
 */
let server: TestServer;
let owner: Actor;
let shop: string;
let blog: string;
let secret: string;
const PAGES = '/v1/public/status-pages';

before(async () => {
  server = await startServer({}, undefined, NO_PROBES);
  owner = newAccount(server, { tier: 'pro' });
  shop = await createCheck(server, { url: 'https://shop.example.com', name: 'Shop <front>' }, owner.key);
  blog = await createCheck(server, { url: 'https://blog.example.com', name: 'Blog' }, owner.key);
  secret = await createCheck(server, { url: 'https://internal.example.com', name: 'Internal admin' }, owner.key);
  setMonitorStatus(server, shop, 'up');
  setMonitorStatus(server, blog, 'down');
});

after(() => server.stop());

const create = (body: Record<string, unknown>, key = owner.key) => server.request('POST', PAGES, { body, key });
const get = (path: string, headers: Record<string, string> = {}) => rawRequest(server, 'GET', path, headers);
/** The app purges on status changes; these tests set statuses by hand, so they purge by hand. */
const purge = (...ids: string[]) => ids.forEach((id) => server.app.pageCache.purgeCheck(id));

describe('the status pages API', () => {
  test('create, read, list, update and delete a page', async () => {
    const res = await create({ slug: 'crud-page', title: 'Acme status', description: 'Our services', checkIds: [shop, blog, shop] });
    assertStatus(res, 201);
    const page = res.body.data;
    assert.match(page.id, /^spg_/);
    assert.deepEqual(page.checkIds, [shop, blog], 'duplicates dropped, order kept');
    assert.equal(page.url, `${server.app.config.publicUrl}/status/crud-page`);
    assert.equal(page.customDomain, null);
    assert.equal(page.description, 'Our services');

    const one = await server.request('GET', `${PAGES}/${page.id}`, { key: owner.key });
    assertStatus(one, 200);
    assert.deepEqual(one.body.data, page);
    const list = await server.request('GET', PAGES, { key: owner.key });
    assert.ok(list.body.data.some((p: { id: string }) => p.id === page.id));
    assert.equal(list.body.meta.total, list.body.data.length);

    const patched = await server.request('PATCH', `${PAGES}/${page.id}`, { body: { title: 'Acme', customDomain: 'Status.Acme.test' }, key: owner.key });
    assertStatus(patched, 200);
    assert.equal(patched.body.data.title, 'Acme');
    assert.equal(patched.body.data.customDomain, 'status.acme.test');
    assert.equal(patched.body.data.description, 'Our services', 'fields left out stay');
    assert.equal(patched.body.data.url, 'https://status.acme.test/');

    assertStatus(await server.request('DELETE', `${PAGES}/${page.id}`, { key: owner.key }), 200);
    assertError(await server.request('GET', `${PAGES}/${page.id}`, { key: owner.key }), 404);
    assert.equal((await get('/status/crud-page')).status, 404, 'the public page is gone');
  });

  test('bad input is a 400 in the standard shape and changes nothing', async () => {
    const other = newAccount(server);
    const foreign = await createCheck(server, { url: 'https://other.example.com' }, other.key);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ slug: 'Bad Slug', title: 't', checkIds: [] }, /^slug must be lower-case letters/],
      [{ slug: 'no-title', checkIds: [] }, /^title is required/],
      [{ slug: 'blank-title', title: '  ', checkIds: [] }, /^title must not be empty/],
      [{ slug: 'x', title: 't', checkIds: [], extra: 1 }, /^extra is not a known field/],
      [{ slug: 'x', title: 't', checkIds: [foreign] }, /is not a check of this account/],
      [{ slug: 'x', title: 't', checkIds: ['chk_nope'] }, /chk_nope is not a check of this account/],
      [{ slug: 'x', title: 't', checkIds: [], customDomain: 'https://status.example.com/' }, /^customDomain must be a host name/],
      [{ slug: 'x', title: 't', checkIds: 'all' }, /^checkIds must be an array/],
    ];
    for (const [body, message] of cases) assertError(await create(body), 400, message);
    assertError(await server.request('POST', PAGES, { rawBody: '{', headers: { 'content-type': 'application/json' }, key: owner.key }), 400);
    assert.equal((await server.request('GET', PAGES, { key: owner.key })).body.data.some((p: { slug: string }) => p.slug === 'x'), false);
  });

  test('slugs and custom domains are unique (409); other accounts and keys are refused', async () => {
    assertStatus(await create({ slug: 'taken', title: 'One', checkIds: [], customDomain: 'status.one.test' }), 201);
    assertError(await create({ slug: 'taken', title: 'Two', checkIds: [] }), 409, 'slug taken');
    assertError(await create({ slug: 'free', title: 'Two', checkIds: [], customDomain: 'STATUS.one.test' }), 409, 'customDomain');
    const page = (await server.request('GET', PAGES, { key: owner.key })).body.data.find((p: { slug: string }) => p.slug === 'taken');

    const stranger = newAccount(server);
    assertError(await server.request('GET', `${PAGES}/${page.id}`, { key: stranger.key }), 403);
    assertError(await server.request('DELETE', `${PAGES}/${page.id}`, { key: stranger.key }), 403);
    assertError(await server.request('GET', `${PAGES}/spg_missing`, { key: owner.key }), 404);
    const reader = newKey(server, owner.accountId, { scopes: ['checks:read'] });
    assertError(await server.request('POST', PAGES, { body: { slug: 'r', title: 'r', checkIds: [] }, key: reader.key }), 403, 'checks:write');
    assertStatus(await server.request('GET', PAGES, { key: reader.key }), 200);
    const restricted = newKey(server, owner.accountId, { scopes: ['checks:read', 'checks:write'], checkIds: [shop] });
    assertError(await server.request('GET', PAGES, { key: restricted.key }), 403, 'unrestricted');
    assertError(await server.request('GET', PAGES, { key: null }), 401);
  });

  test('the API is in the OpenAPI document and the MCP tool table', async () => {
    const doc = (await server.request('GET', '/v1/openapi.json', { key: null })).body;
    assert.ok(doc.paths[PAGES].post.requestBody);
    assert.deepEqual(Object.keys(doc.paths[`${PAGES}/{id}`]).sort(), ['delete', 'get', 'patch']);
    const names = bindTools((server.app as unknown as { running: { pipeline: { deps: { routes: never[] } } } }).running.pipeline.deps.routes, TOOL_SPECS).map((t) => t.spec.name);
    for (const name of ['list_status_pages', 'create_status_page', 'get_status_page', 'update_status_page', 'delete_status_page']) {
      assert.ok(names.includes(name), `${name} is bound to its route`);
    }
  });
});

describe('the public page', () => {
  let pageId: string;
  before(async () => {
    const res = await create({ slug: 'acme', title: 'Acme & Co', description: 'Live status', checkIds: [shop, blog], customDomain: 'status.acme.example' });
    assertStatus(res, 201);
    pageId = res.body.data.id;
  });

  test('is complete HTML without JavaScript: overall state, each check, bars, incidents; only listed checks', async () => {
    const res = await get('/status/acme');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const html = res.text;
    assert.match(html, /<title>Acme &#38; Co<\/title>/);
    assert.match(html, /data-overall="partial_outage"/);
    assert.match(html, /Shop &#60;front&#62;/, 'names are escaped');
    assert.match(html, new RegExp(`id="check-${shop}"[^]*?data-status="up"`));
    assert.match(html, new RegExp(`id="check-${blog}"[^]*?data-status="down"`));
    const bars = [...html.matchAll(/<svg class="bars"[^]*?<\/svg>/g)].map((m) => (m[0].match(/v34|<rect /g) ?? []).length);
    assert.deepEqual(bars, [90, 90], '90 day bars per check');
    assert.match(html, /Past incidents, last 30 days/);
    assert.match(html, /prefers-color-scheme:dark/);
    assert.match(html, /name="viewport"/);
    assert.doesNotMatch(html, /Internal admin/);
    assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+stylesheet|https?:\/\/(?!www\.w3\.org)/, 'no external asset');
  });

  test('JSON and Atom say the same; unknown slugs are 404 pages', async () => {
    const json = await get('/status/acme.json');
    assert.equal(json.status, 200);
    assert.equal(json.body.overall, 'partial_outage');
    assert.deepEqual(json.body.checks.map((c: { id: string }) => c.id), [shop, blog]);
    assert.equal(json.body.checks[0].days.length, 90);
    assert.equal(json.body.checks[0].responseTimeHourly.length, 24);
    const atom = await get('/status/acme.atom');
    assert.equal(atom.status, 200);
    assert.match(atom.headers.get('content-type') ?? '', /^application\/atom\+xml/);
    assert.match(atom.text, /<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/);
    assert.match(atom.text, /<title>Acme &#38; Co<\/title>/);

    const missing = await get('/status/nobody-here');
    assert.equal(missing.status, 404);
    assert.match(missing.text, /Status page not found/);
    assertError(await get('/status/nobody-here.json'), 404);
    assert.equal((await get('/status/..%2F..%2Fetc')).status, 404);
  });

  test('answers carry an ETag and a short max-age with stale-while-revalidate; If-None-Match gives 304', async () => {
    const first = await get('/status/acme');
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^"[\w-]+"$/);
    assert.match(first.headers.get('cache-control') ?? '', /^public, max-age=\d, stale-while-revalidate=\d+$/);
    assert.ok(['br', 'gzip'].includes(first.headers.get('content-encoding') ?? ''), 'compressed for a client that accepts it');
    assert.equal(first.headers.get('vary'), 'Accept-Encoding');
    const plain = await get('/status/acme', { 'accept-encoding': 'identity' });
    assert.equal(plain.headers.get('content-encoding'), null);
    assert.notEqual(plain.headers.get('etag'), etag, 'each encoding has its own ETag');
    assert.equal(plain.text, first.text);
    const again = await get('/status/acme', { 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    const head = await rawRequest(server, 'HEAD', '/status/acme', {});
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('etag'), etag);
  });

  test('a status change purges the page: the next request shows it', async () => {
    const before = await get('/status/acme.json');
    setMonitorStatus(server, blog, 'up');
    purge(blog);
    const afterChange = await get('/status/acme.json', { 'if-none-match': before.headers.get('etag')! });
    assert.equal(afterChange.status, 200);
    assert.equal(afterChange.body.overall, 'operational');
  });

  test('maintenance shows as its own state, with its window', async () => {
    const res = await server.request('POST', `/v1/public/checks/${shop}/maintenance`, { body: { enabled: true }, key: owner.key });
    assertStatus(res, 200);
    const html = (await get('/status/acme')).text;
    assert.match(html, /<h2>Maintenance<\/h2>[^]*Shop &#60;front&#62;[^]*until further notice/);
    assert.match(html, /data-overall="maintenance"/);
    await server.request('POST', `/v1/public/checks/${shop}/maintenance`, { body: { enabled: false }, key: owner.key });
    assert.doesNotMatch((await get('/status/acme')).text, /<h2>Maintenance<\/h2>/);
  });

  test('a request whose Host is the custom domain gets the page at /', async () => {
    const viaHost = (host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`${server.url}/`, { headers: { host } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const page = await viaHost('Status.Acme.Example:443');
    assert.equal(page.status, 200);
    assert.match(page.body, /<h1>Acme &#38; Co<\/h1>/);
    assert.equal((await viaHost('elsewhere.example')).status, 404);
  });

  test('a page lists only its own account’s checks, even if one moves away', async () => {
    await server.request('PATCH', `${PAGES}/${pageId}`, { body: { checkIds: [shop] }, key: owner.key });
    const json = await get('/status/acme.json');
    assert.deepEqual(json.body.checks.map((c: { id: string }) => c.id), [shop], 'a page edit purges at once');
    await server.request('PATCH', `${PAGES}/${pageId}`, { body: { checkIds: [shop, blog] }, key: owner.key });
  });
});

describe('badges', () => {
  test('status, uptime and response time, as SVG and shields.io endpoint JSON', async () => {
    const svg = await get(`/badge/${shop}/status.svg`);
    assert.equal(svg.status, 200);
    assert.match(svg.headers.get('content-type') ?? '', /^image\/svg\+xml/);
    assert.match(svg.text, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.match(svg.text, /<title>status: up<\/title>/);
    assert.ok(svg.headers.get('etag'));
    assert.match(svg.headers.get('cache-control') ?? '', /stale-while-revalidate/);

    const json = await get(`/badge/${shop}/status.json?label=Shop&style=flat-square`);
    assert.deepEqual(json.body, { schemaVersion: 1, label: 'Shop', message: 'up', color: 'brightgreen', style: 'flat-square' });
    const uptime = await get(`/badge/${shop}/uptime/30d.json`);
    assert.equal(uptime.body.label, 'uptime 30d');
    assert.equal(typeof uptime.body.message, 'string');
    const rt = await get(`/badge/${shop}/response-time/7d.svg?style=for-the-badge`);
    assert.equal(rt.status, 200);
    assert.match(rt.text, /height="28"/);
    assert.match(rt.text, /RESPONSE TIME 7D/);
  });

  test('checks on no page, unknown windows and bad styles are refused', async () => {
    assertError(await get(`/badge/${secret}/status.svg`), 404, 'No status page shows');
    assertError(await get('/badge/chk_missing/status.json'), 404);
    assertError(await get(`/badge/${shop}/uptime/2d.svg`), 404);
    assertError(await get(`/badge/${shop}/response-time/90d.json`), 404);
    assertError(await get(`/badge/${shop}/status.png`), 404);
    assertError(await get(`/badge/${shop}/status.svg?style=plastic`), 400, 'style must be one of: flat, flat-square, for-the-badge');
    assertError(await get(`/badge/${shop}/status.svg?label=${'x'.repeat(101)}`), 400, 'label');
  });

  test('listing a check on a page makes its badge appear at once', async () => {
    assertError(await get(`/badge/${secret}/status.json`), 404);
    const res = await create({ slug: 'with-secret', title: 'T', checkIds: [secret] });
    assertStatus(res, 201);
    assert.equal((await get(`/badge/${secret}/status.json`)).status, 200);
    await server.request('DELETE', `${PAGES}/${res.body.data.id}`, { key: owner.key });
    assert.equal((await get(`/badge/${secret}/status.json`)).status, 404);
  });
});

describe('metrics and health', () => {
  test('/metrics needs a key with checks:read and shows only that key’s checks', async () => {
    assertError(await get('/metrics'), 401);
    const res = await get('/metrics', { 'x-api-key': owner.key });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = res.text;
    assert.match(text, new RegExp(`vigil_check_up\\{check_id="${shop}",name="Shop <front>",type="website"\\} 1`));
    assert.match(text, new RegExp(`vigil_probes_total\\{check_id="${shop}",[^}]*result="up"\\} 0`));
    assert.match(text, /# TYPE vigil_check_response_time_seconds gauge/);
    assert.match(text, /# TYPE vigil_check_uptime_ratio gauge/);
    assert.match(text, /# TYPE vigil_check_cert_expiry_timestamp_seconds gauge/);
    for (const name of ['nodejs_eventloop_lag_seconds', 'vigil_wheel_lag_seconds', 'vigil_probe_queue_depth', 'vigil_writer_batch_size_bucket', 'vigil_alert_deliveries_pending', 'process_cpu_seconds_total']) {
      assert.ok(text.includes(name), `${name} is exported`);
    }
    const stranger = newAccount(server);
    const theirs = (await get('/metrics', { 'x-api-key': stranger.key })).text;
    assert.doesNotMatch(theirs, new RegExp(shop));
    const restricted = newKey(server, owner.accountId, { scopes: ['checks:read'], checkIds: [blog] });
    const narrow = (await get('/metrics', { 'x-api-key': restricted.key })).text;
    assert.ok(narrow.includes(blog) && !narrow.includes(shop), 'a restricted key sees only its checks');
    const writer = newKey(server, owner.accountId, { scopes: ['checks:write'] });
    assertError(await get('/metrics', { 'x-api-key': writer.key }), 403);
  });

  test('/metrics takes the key as Authorization: Bearer, as Prometheus scrapers send it', async () => {
    const res = await get('/metrics', { authorization: `Bearer ${owner.key}` });
    assert.equal(res.status, 200);
    assert.ok(res.text.includes(`check_id="${shop}"`));
    assertError(await get('/metrics', { authorization: 'Bearer vigil_live_nope' }), 401);
  });

  test('/healthz answers without sign-in; /readyz says the engine is not ticking here', async () => {
    const health = await get('/healthz');
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { status: 'ok' });
    const ready = await get('/readyz');
    assert.equal(ready.status, 503, 'these tests never start the wheel');
    assert.deepEqual(ready.body, { status: 'not_ready', checks: { store: 'ok', engine: 'not started' } });
  });
});

describe('a maintenance window that runs out', () => {
  test('the cached page is rendered again when it ends, with no event to purge it', async () => {
    let now = Date.parse('2026-11-23T10:00:00Z');
    const own = await startServer({}, { now: () => now }, NO_PROBES);
    try {
      const actor = newAccount(own, { tier: 'pro' });
      const id = await createCheck(own, { url: 'https://maint.example.com', name: 'Maint' }, actor.key);
      setMonitorStatus(own, id, 'up');
      assertStatus(await own.request('POST', PAGES, { body: { slug: 'maint', title: 'M', checkIds: [id] }, key: actor.key }), 201);
      const until = new Date(now + 5_000).toISOString();
      assertStatus(await own.request('POST', `/v1/public/checks/${id}/maintenance`, { body: { enabled: true, until }, key: actor.key }), 200);
      const during = await rawRequest(own, 'GET', '/status/maint.json', {});
      assert.equal(during.body.checks[0].status, 'maintenance');
      assert.equal(during.body.checks[0].maintenanceUntil, until);
      now += 6_000; // well inside the cache's 10 s max age: only the window's end can make it stale
      const afterEnd = await rawRequest(own, 'GET', '/status/maint.json', {});
      assert.equal(afterEnd.body.checks[0].status, 'up');
    } finally {
      await own.stop();
    }
  });
});
