import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/fixtures/probe-task.js';
import { assertError, assertStatus, createCheck, newAccount, newKey, rawRequest, type Actor } from './util.js';

/**
 * Incidents of a status page (issue 29) through the API and the public page: the timeline, who
 * may write, what the HTML, JSON, Atom and JSON Feed show, and automatic incidents opened and
 * resolved by a real local target going down and up again (bounded polls, no sleeps).
 */
let healthy = true;
let target: Server;
let server: TestServer;
let owner: Actor;
let shop: string;
let blog: string;
let pageId: string;
const PAGES = '/v1/public/status-pages';

before(async () => {
  target = createServer((_req, res) => {
    res.writeHead(healthy ? 200 : 503);
    res.end(healthy ? 'ok' : 'down');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  server = await startServer({ plans: { pro: { minCheckIntervalMinutes: 0.05 } }, rateLimits: { perKeyPerMinute: 1_000_000 } });
  owner = newAccount(server, { tier: 'pro' });
  // Probed hourly, on loopback: only the automatic incidents' check moves.
  const local = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  shop = await createCheck(server, { url: `${local}/shop`, name: 'Shop', checkFrequency: 60 }, owner.key);
  blog = await createCheck(server, { url: `${local}/blog`, name: 'Blog', checkFrequency: 60 }, owner.key);
  const page = await server.request('POST', PAGES, { key: owner.key, body: { slug: 'acme-incidents', title: 'Acme', checkIds: [shop, blog] } });
  assertStatus(page, 201);
  pageId = page.body.data.id;
});

after(async () => {
  await server.stop();
  target.close();
});

const incidents = (suffix = '', id = pageId) => `${PAGES}/${id}/incidents${suffix}`;
const open = (body: Record<string, unknown>, key = owner.key) => server.request('POST', incidents(), { key, body });
const get = (path: string) => rawRequest(server, 'GET', path, {});

describe('the incidents API', () => {
  test('open, update, edit, resolve and delete; the timeline keeps every update', async () => {
    const created = await open({ title: 'Checkout errors', impact: 'major', message: 'We are looking into\nelevated errors.', checkIds: [shop, shop] });
    assertStatus(created, 201);
    const inc = created.body.data;
    assert.match(inc.id, /^inc_/);
    assert.equal(inc.statusPageId, pageId);
    assert.equal(inc.status, 'investigating', 'the default status');
    assert.deepEqual(inc.checkIds, [shop], 'duplicates dropped');
    assert.equal(inc.automatic, false);
    assert.equal(inc.resolvedAt, null);
    assert.deepEqual(inc.updates.map((u: { status: string; message: string }) => [u.status, u.message]), [['investigating', 'We are looking into\nelevated errors.']]);

    const identified = await server.request('POST', incidents(`/${inc.id}/updates`), { key: owner.key, body: { status: 'identified', message: 'A bad deploy.' } });
    assertStatus(identified, 201);
    assert.equal(identified.body.data.status, 'identified');
    const patched = await server.request('PATCH', incidents(`/${inc.id}`), { key: owner.key, body: { title: 'Checkout down', impact: 'critical', checkIds: [shop, blog] } });
    assertStatus(patched, 200);
    assert.equal(patched.body.data.title, 'Checkout down');
    assert.equal(patched.body.data.status, 'identified', 'an edit leaves the status alone');
    assert.equal(patched.body.data.updates.length, 2, 'an edit adds no update');

    const resolved = await server.request('POST', incidents(`/${inc.id}/updates`), { key: owner.key, body: { status: 'resolved', message: 'Rolled back.' } });
    assertStatus(resolved, 201);
    assert.equal(resolved.body.data.status, 'resolved');
    assert.ok(resolved.body.data.resolvedAt);
    assertError(
      await server.request('POST', incidents(`/${inc.id}/updates`), { key: owner.key, body: { status: 'monitoring', message: 'again?' } }),
      409, /resolved/,
    );
    const note = await server.request('POST', incidents(`/${inc.id}/updates`), { key: owner.key, body: { status: 'resolved', message: 'Postmortem to follow.' } });
    assertStatus(note, 201);
    assert.equal(note.body.data.resolvedAt, resolved.body.data.resolvedAt, 'a note on a resolved incident keeps its resolution time');

    const one = await server.request('GET', incidents(`/${inc.id}`), { key: owner.key });
    assert.deepEqual(one.body.data, note.body.data);
    const list = await server.request('GET', `${incidents()}?limit=100`, { key: owner.key });
    assert.ok(list.body.data.some((i: { id: string }) => i.id === inc.id));
    assert.equal(list.body.meta.total, list.body.data.length);

    assertStatus(await server.request('DELETE', incidents(`/${inc.id}`), { key: owner.key }), 200);
    assertError(await server.request('GET', incidents(`/${inc.id}`), { key: owner.key }), 404);
  });

  test('bad input is a 400 naming the field, and changes nothing', async () => {
    const before = (await server.request('GET', `${incidents()}?limit=100`, { key: owner.key })).body.meta.total;
    const other = newAccount(server);
    const foreign = await createCheck(server, { url: `http://127.0.0.1:${(target.address() as AddressInfo).port}/other`, checkFrequency: 60 }, other.key);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ message: 'm' }, /^title is required/],
      [{ title: 'x'.repeat(201), message: 'm' }, /^title must be at most 200/],
      [{ title: 'Two\nlines', message: 'm' }, /^title must not contain control characters/],
      [{ title: 't' }, /^message is required/],
      [{ title: 't', message: 'x'.repeat(5001) }, /^message must be at most 5000/],
      [{ title: 't', message: 'bell\u0007' }, /^message must not contain control characters/],
      [{ title: 't', message: 'm', impact: 'huge' }, /^impact must be one of/],
      [{ title: 't', message: 'm', status: 'fixed' }, /^status must be one of/],
      [{ title: 't', message: 'm', checkIds: [foreign] }, /checkIds: chk_\w+ is not a check of this status page/],
    ];
    for (const [body, message] of cases) assertError(await open(body), 400, message);
    assert.equal((await server.request('GET', `${incidents()}?limit=100`, { key: owner.key })).body.meta.total, before);
  });

  test('scopes, restricted keys and other accounts follow the page\'s rules', async () => {
    const created = await open({ title: 'Scoped', message: 'm' });
    assertStatus(created, 201);
    const id = created.body.data.id;
    const reader = newKey(server, owner.accountId, { scopes: ['checks:read'] });
    assertStatus(await server.request('GET', incidents(), { key: reader.key }), 200);
    assertStatus(await server.request('GET', incidents(`/${id}`), { key: reader.key }), 200);
    assertError(await open({ title: 't', message: 'm' }, reader.key), 403, /checks:write/);
    assertError(await server.request('POST', incidents(`/${id}/updates`), { key: reader.key, body: { status: 'resolved', message: 'm' } }), 403);
    assertError(await server.request('DELETE', incidents(`/${id}`), { key: reader.key }), 403);
    const restricted = newKey(server, owner.accountId, { scopes: ['checks:read', 'checks:write'], checkIds: [shop] });
    assertError(await server.request('GET', incidents(), { key: restricted.key }), 403);
    assertError(await open({ title: 't', message: 'm' }, restricted.key), 403);
    const stranger = newAccount(server, { tier: 'pro' });
    assertError(await server.request('GET', incidents(`/${id}`), { key: stranger.key }), 403);
    assertError(await open({ title: 't', message: 'm' }, stranger.key), 403);
    assertError(await server.request('GET', incidents(`/inc_${'0'.repeat(20)}`), { key: owner.key }), 404);
    assertError(await server.request('GET', incidents('', `spg_${'0'.repeat(20)}`), { key: owner.key }), 404);
    assertStatus(await server.request('DELETE', incidents(`/${id}`), { key: owner.key }), 200);
  });
});

describe('an incident\'s life on the public page and in its feeds', () => {
  test('open first with its timeline, then resolved in the 30-day history; JSON, Atom and JSON Feed carry it', async () => {
    const created = await open({ title: 'Payments <delayed>', impact: 'minor', message: 'Card payments are slow & <b>queued</b>.', checkIds: [blog] });
    assertStatus(created, 201);
    const id = created.body.data.id;
    let html = (await get('/status/acme-incidents')).text;
    const openAt = html.indexOf(`id="incident-${id}"`);
    assert.ok(openAt > 0, 'the open incident is on the page at once');
    assert.ok(openAt < html.indexOf('class="check"'), 'open incidents come before the checks');
    assert.match(html, /Payments &#60;delayed&#62;/);
    assert.match(html, /Card payments are slow &#38; &#60;b&#62;queued&#60;\/b&#62;\./, 'plain text, escaped');
    assert.match(html, /Affects Blog/);

    await server.request('POST', incidents(`/${id}/updates`), { key: owner.key, body: { status: 'monitoring', message: 'A fix is out.' } });
    html = (await get('/status/acme-incidents')).text;
    const section = html.slice(html.indexOf(`id="incident-${id}"`));
    assert.ok(section.indexOf('A fix is out.') < section.indexOf('Card payments are slow'), 'the newest update first');

    await server.request('POST', incidents(`/${id}/updates`), { key: owner.key, body: { status: 'resolved', message: 'All payments went through.' } });
    html = (await get('/status/acme-incidents')).text;
    const history = html.indexOf('Past incidents, last 30 days');
    assert.ok(html.indexOf(`id="incident-${id}"`) > history, 'a resolved incident moves to the history');
    assert.ok(html.indexOf(`id="incident-${id}"`) > html.indexOf('class="check"'));

    const json = (await get('/status/acme-incidents.json')).body;
    const shown = json.incidents.find((i: { id: string }) => i.id === id);
    assert.equal(shown.status, 'resolved');
    assert.deepEqual(shown.checks, [{ id: blog, name: 'Blog' }]);
    assert.deepEqual(shown.updates.map((u: { status: string }) => u.status), ['resolved', 'monitoring', 'investigating']);
    assert.ok(Array.isArray(json.outages), 'the status log\'s outages have their own field');

    const atom = await get('/status/acme-incidents.atom');
    assert.match(atom.headers.get('content-type')!, /application\/atom\+xml/);
    assert.match(atom.text, new RegExp(`<id>urn:vigil:incident:${id}:inu_\\w+</id><title>Payments &#60;delayed&#62;: Resolved</title>`));
    assert.match(atom.text, /<content type="text">A fix is out\.<\/content>/);
    const feed = await get('/status/acme-incidents.feed.json');
    assert.match(feed.headers.get('content-type')!, /application\/feed\+json/);
    assert.equal(feed.body.version, 'https://jsonfeed.org/version/1.1');
    assert.equal(feed.body.feed_url, `${server.app.config.publicUrl}/status/acme-incidents.feed.json`);
    const titles = feed.body.items.map((i: { title: string }) => i.title);
    for (const t of ['Payments <delayed>: Investigating', 'Payments <delayed>: Monitoring', 'Payments <delayed>: Resolved']) assert.ok(titles.includes(t), t);

    assertStatus(await server.request('DELETE', incidents(`/${id}`), { key: owner.key }), 200);
    assert.ok(!(await get('/status/acme-incidents')).text.includes(id), 'a deleted incident leaves the page at once');
    assert.ok(!(await get('/status/acme-incidents.feed.json')).text.includes(id), 'and its feeds');
  });
});

describe('automatic incidents', () => {
  test('a confirmed outage opens one, the recovery resolves it; an operator\'s update takes it over', async () => {
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
    const api = await createCheck(server, { url, name: 'API', checkFrequency: 0.05, downConfirmationAttempts: 1 }, owner.key);
    const page = await server.request('POST', PAGES, { key: owner.key, body: { slug: 'auto-incidents', title: 'Auto', checkIds: [api], autoIncidents: true } });
    assertStatus(page, 201);
    assert.equal(page.body.data.autoIncidents, true);
    const autoId = page.body.data.id;
    const list = async () => (await server.request('GET', `${incidents('', autoId)}?limit=100`, { key: owner.key })).body.data as Array<{ id: string; title: string; status: string; automatic: boolean; updates: unknown[] }>;
    const status = async () => (await server.request('GET', `/v1/public/checks/${api}`, { key: owner.key })).body.data.status as string;
    await waitFor(async () => (await status()) === 'up', 'the check to be up', 20_000);

    healthy = false;
    await waitFor(async () => (await list()).length === 1, 'an automatic incident', 20_000);
    const [auto] = await list();
    assert.equal(auto!.title, 'API is not responding');
    assert.equal(auto!.automatic, true);
    assert.equal(auto!.status, 'investigating');
    assert.match((await get('/status/auto-incidents')).text, /API is not responding/);

    healthy = true;
    await waitFor(async () => (await list())[0]!.status === 'resolved', 'the incident to resolve itself', 20_000);
    assert.equal((await list()).length, 1, 'one incident for one outage');

    healthy = false;
    await waitFor(async () => (await list()).length === 2, 'a second outage opens a new incident', 20_000);
    const second = (await list())[0]!;
    const taken = await server.request('POST', incidents(`/${second.id}/updates`, autoId), { key: owner.key, body: { status: 'identified', message: 'Our database is full.' } });
    assertStatus(taken, 201);
    assert.equal(taken.body.data.automatic, false, 'the operator took it over');
    healthy = true;
    await waitFor(async () => (await status()) === 'up', 'the check up again', 20_000);
    await server.app.recorder.idle();
    const after = (await list()).find((i) => i.id === second.id)!;
    assert.equal(after.status, 'identified', 'an incident taken over stays the operator\'s to resolve');
  });
});
