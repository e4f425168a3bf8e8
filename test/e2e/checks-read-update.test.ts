import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { assertError, assertStatus, createCheck, externalWrite, ISO_PATTERN, newAccount, NO_PROBES, setMonitorStatus, type Actor } from './util.js';

/** List, get, update, delete, toggle and maintenance (spec 2.1, 2.2, 4.1, 4.2, 4.4–4.6; decisions §4, §5). */

let server: TestServer;
const clock = new ManualClock(Date.UTC(2026, 2, 1, 12, 0, 0));

before(async () => {
  server = await startServer({}, clock, NO_PROBES);
});
after(async () => {
  await server.stop();
});
// Every test starts a minute later: timestamps move, and per-key rate windows start afresh.
beforeEach(() => clock.advance(60_000));

const checkPath = (id: string) => `/v1/public/checks/${id}`;
const getCheck = async (id: string, key?: string) => {
  const res = await server.request('GET', checkPath(id), { key });
  assertStatus(res, 200);
  return res.body.data;
};
const seqOf = async (id: string) => (await server.app.store.checks.byId(id))!.seq;

describe('list: fields, order, isolation', () => {
  let actor: Actor;
  const ids: string[] = [];
  before(async () => {
    actor = await newAccount(server, { tier: 'pro' });
    for (const name of ['first', 'second', 'third']) {
      ids.push(await createCheck(server, { url: `https://${name}.list.example.com`, name }, actor.key));
    }
  });

  test('returns {data, meta} in creation (dashboard) order with every field of spec 2.1', async () => {
    const res = await server.request('GET', '/v1/public/checks', { key: actor.key });
    assertStatus(res, 200);
    assert.deepEqual(res.body.data.map((c: { id: string }) => c.id), ids);
    assert.deepEqual(res.body.data.map((c: { name: string }) => c.name), ['first', 'second', 'third']);
    for (const c of res.body.data) {
      for (const field of ['id', 'name', 'url', 'type', 'method', 'status', 'interval', 'region', 'expectedStatus', 'lastChecked', 'lastResponseTime', 'uptime', 'ssl', 'createdAt']) {
        assert.ok(field in c, `list item has ${field}`);
      }
      assert.deepEqual(Object.keys(c.ssl).sort(), ['expiresAt', 'issuer', 'valid']);
      assert.match(c.createdAt, ISO_PATTERN);
    }
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'meta']);
    assert.equal(res.body.meta.page, 1);
    assert.equal(res.body.meta.limit, 25, 'limit defaults to 25');
    assert.equal(res.body.meta.cursor, null, 'single page: no cursor');
  });

  test("another account's checks are never listed", async () => {
    const res = await server.request('GET', '/v1/public/checks?limit=100');
    assertStatus(res, 200);
    const listed = new Set(res.body.data.map((c: { id: string }) => c.id));
    for (const id of ids) assert.ok(!listed.has(id));
  });

  test('get: every field of spec 2.2', async () => {
    const c = await getCheck(ids[0]!, actor.key);
    for (const field of [
      'id', 'name', 'url', 'type', 'method', 'status', 'interval', 'region', 'expectedStatus', 'lastChecked', 'lastResponseTime',
      'uptime', 'createdAt', 'headers', 'body', 'responseValidation', 'consecutiveFailures', 'consecutiveFailureThreshold',
      'lastStatusCode', 'ssl', 'domain', 'updatedAt',
    ]) {
      assert.ok(field in c, `detail has ${field}`);
    }
  });

  test("history of another account's check is 403; of an unknown id 404", async () => {
    assertStatus(await server.request('GET', `${checkPath(ids[0]!)}/history`, { key: actor.key }), 200);
    assertError(await server.request('GET', `${checkPath(ids[0]!)}/history`), 403);
    assertError(await server.request('GET', `${checkPath('chk_00000000000000000000')}/history`, { key: actor.key }), 404);
  });

  test("get of another account's check is 403; an unknown id is 404", async () => {
    assertError(await server.request('GET', checkPath(ids[0]!)), 403);
    assertError(await server.request('GET', checkPath('chk_00000000000000000000'), { key: actor.key }), 404);
    assertError(await server.request('GET', checkPath('no-such-check'), { key: actor.key }), 404);
  });
});

describe('list: status filter', () => {
  let actor: Actor;
  let up: string, down: string, pending: string, paused: string;
  before(async () => {
    actor = await newAccount(server, { tier: 'pro' });
    up = await createCheck(server, { url: 'https://up.filter.example.com' }, actor.key);
    down = await createCheck(server, { url: 'https://down.filter.example.com' }, actor.key);
    pending = await createCheck(server, { url: 'https://pending.filter.example.com' }, actor.key);
    paused = await createCheck(server, { url: 'https://paused.filter.example.com' }, actor.key);
    await setMonitorStatus(server, up, 'up');
    await setMonitorStatus(server, down, 'down');
    await setMonitorStatus(server, paused, 'up');
    assertStatus(await server.request('POST', `${checkPath(paused)}/toggle`, { key: actor.key, body: { disabled: true } }), 200);
  });

  const listIds = async (query: string) => {
    const res = await server.request('GET', `/v1/public/checks${query}`, { key: actor.key });
    assertStatus(res, 200);
    return res.body.data.map((c: { id: string }) => c.id) as string[];
  };

  test('status values reported in the list', async () => {
    const res = await server.request('GET', '/v1/public/checks', { key: actor.key });
    const byId = Object.fromEntries(res.body.data.map((c: { id: string; status: string }) => [c.id, c.status]));
    assert.deepEqual(byId, { [up]: 'up', [down]: 'down', [pending]: 'pending', [paused]: 'paused' });
  });

  test('status=up, status=down, status=paused each return exactly their checks', async () => {
    assert.deepEqual(await listIds('?status=up'), [up], 'a paused check whose last result was up is not "up"');
    assert.deepEqual(await listIds('?status=down'), [down]);
    assert.deepEqual(await listIds('?status=paused'), [paused]);
    assert.deepEqual(await listIds(''), [up, down, pending, paused]);
  });

  test('includeTotal counts the filtered set', async () => {
    const res = await server.request('GET', '/v1/public/checks?status=paused&includeTotal=true', { key: actor.key });
    assert.equal(res.body.meta.total, 1);
  });

  test('any other status value is 400', async () => {
    for (const bad of ['pending', 'online', 'UP', 'error', '']) {
      assertError(await server.request('GET', `/v1/public/checks?status=${bad}`, { key: actor.key }), 400);
    }
  });
});

describe('list: pagination (spec 4.1, decisions §5)', () => {
  let actor: Actor;
  const ids: string[] = [];
  before(async () => {
    actor = await newAccount(server, { tier: 'pro' });
    for (let i = 0; i < 27; i++) ids.push(await createCheck(server, { url: `https://p${i}.page.example.com` }, actor.key));
  });
  const list = (query: string) => server.request('GET', `/v1/public/checks${query}`, { key: actor.key });
  const idsOf = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((c) => c.id);

  test('default limit is 25 with a cursor to the rest', async () => {
    const res = await list('');
    assertStatus(res, 200);
    assert.deepEqual(idsOf(res), ids.slice(0, 25));
    assert.equal(typeof res.body.meta.cursor, 'string');
    const next = await list(`?cursor=${encodeURIComponent(res.body.meta.cursor)}`);
    assert.deepEqual(idsOf(next), ids.slice(25));
    assert.equal(next.body.meta.cursor, null);
  });

  test('offset pages: page 2 and page 3 with limit 10; the last page has cursor null', async () => {
    const p2 = await list('?limit=10&page=2');
    assertStatus(p2, 200);
    assert.deepEqual(idsOf(p2), ids.slice(10, 20));
    assert.equal(p2.body.meta.page, 2);
    assert.equal(p2.body.meta.limit, 10);
    assert.notEqual(p2.body.meta.cursor, null);
    const p3 = await list('?limit=10&page=3');
    assert.deepEqual(idsOf(p3), ids.slice(20));
    assert.equal(p3.body.meta.cursor, null);
  });

  test('a page past the end is empty, not an error', async () => {
    const res = await list('?limit=10&page=9');
    assertStatus(res, 200);
    assert.deepEqual(res.body.data, []);
    assert.equal(res.body.meta.cursor, null);
  });

  test('following cursors visits every check exactly once, in order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor === null ? '?limit=4' : `?limit=4&cursor=${encodeURIComponent(cursor)}`;
      const res = await list(q);
      assertStatus(res, 200);
      seen.push(...idsOf(res));
      pages++;
      assert.equal(res.body.meta.page, pages, 'meta.page counts the cursor pages');
      cursor = res.body.meta.cursor;
    } while (cursor !== null && pages < 20);
    assert.deepEqual(seen, ids);
    assert.equal(pages, 7);
  });

  test('a cursor still works after an earlier check was deleted', async () => {
    const extra = await createCheck(server, { url: 'https://p-extra.page.example.com' }, actor.key);
    const first = await list('?limit=5');
    const cursor = first.body.meta.cursor as string;
    // Removing a check already served must not shift the next page (the offset trap).
    assertStatus(await server.request('DELETE', checkPath(ids[0]!), { key: actor.key }), 200);
    const next = await list(`?limit=5&cursor=${encodeURIComponent(cursor)}`);
    assert.deepEqual(idsOf(next), ids.slice(5, 10));
    // Restore the fixture for the other tests: ids[0] is gone, so drop it from the expectations.
    ids.shift();
    assertStatus(await server.request('DELETE', checkPath(extra), { key: actor.key }), 200);
  });

  test('cursor wins over page', async () => {
    const first = await list('?limit=5');
    const cursor = first.body.meta.cursor as string;
    const withPage = await list(`?limit=5&page=4&cursor=${encodeURIComponent(cursor)}`);
    assertStatus(withPage, 200);
    assert.deepEqual(idsOf(withPage), ids.slice(5, 10));
    assert.equal(withPage.body.meta.page, 2);
  });

  test('meta.total only with includeTotal=true', async () => {
    const without = await list('?limit=5');
    assert.ok(!('total' in without.body.meta), 'no total by default');
    const falsy = await list('?limit=5&includeTotal=false');
    assert.ok(!('total' in falsy.body.meta), 'no total with includeTotal=false');
    const withTotal = await list('?limit=5&includeTotal=true');
    assert.equal(withTotal.body.meta.total, ids.length);
    const onCursorPage = await list(`?limit=5&includeTotal=true&cursor=${encodeURIComponent(withTotal.body.meta.cursor)}`);
    assert.equal(onCursorPage.body.meta.total, ids.length);
  });

  test('an absurdly large page is a client error or an empty page, never a 500 or page 1 again', async () => {
    for (const page of ['100000000000000000000', '1e300']) {
      const res = await list(`?limit=5&page=${page}`);
      assert.ok(res.status === 400 || (res.status === 200 && res.body.data.length === 0), `page=${page}: ${res.status} ${res.text.slice(0, 200)}`);
    }
  });

  test('limit 1 and 100 are accepted', async () => {
    const one = await list('?limit=1');
    assertStatus(one, 200);
    assert.equal(one.body.data.length, 1);
    assertStatus(await list('?limit=100'), 200);
  });

  for (const bad of ['limit=0', 'limit=101', 'limit=-1', 'limit=abc', 'limit=2.5', 'page=0', 'page=-3', 'page=abc', 'page=1.5', 'includeTotal=maybe']) {
    test(`400 for ${bad}`, async () => {
      assertError(await list(`?${bad}`), 400);
    });
  }

  const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
  for (const [what, cursor] of [
    ['garbage', 'not-a-cursor'],
    ['base64 of non-JSON', b64('hello world')],
    ['negative key', b64({ k: -1, p: 2 })],
    ['page 0', b64({ k: 3, p: 0 })],
    ['string key', b64({ k: 'x', p: 2 })],
    ['empty object', b64({})],
    ['too long', 'a'.repeat(500)],
  ] as const) {
    test(`malformed cursor (${what}) is 400, even with a valid page`, async () => {
      assertError(await list(`?page=1&cursor=${encodeURIComponent(cursor)}`), 400);
    });
  }
});

describe('list: a cursor and checks created after it', () => {
  test('a check created after the cursor row was deleted still appears on the next page', async () => {
    const actor = await newAccount(server, { tier: 'pro' });
    const a = await createCheck(server, { url: 'https://a.reuse.example.com' }, actor.key);
    const b = await createCheck(server, { url: 'https://b.reuse.example.com' }, actor.key);
    const c = await createCheck(server, { url: 'https://c.reuse.example.com' }, actor.key);
    const first = await server.request('GET', '/v1/public/checks?limit=2', { key: actor.key });
    assert.deepEqual(first.body.data.map((x: { id: string }) => x.id), [a, b]);
    const cursor = first.body.meta.cursor as string;
    assert.ok(cursor);
    // The rows at and after the cursor go away, then a new check arrives: it is newer than
    // everything the client has seen, so the next page must show it.
    assertStatus(await server.request('DELETE', checkPath(b), { key: actor.key }), 200);
    assertStatus(await server.request('DELETE', checkPath(c), { key: actor.key }), 200);
    const d = await createCheck(server, { url: 'https://d.reuse.example.com' }, actor.key);
    const next = await server.request('GET', `/v1/public/checks?limit=2&cursor=${encodeURIComponent(cursor)}`, { key: actor.key });
    assertStatus(next, 200);
    assert.deepEqual(next.body.data.map((x: { id: string }) => x.id), [d], 'the new check is not skipped');
    const all = await server.request('GET', '/v1/public/checks', { key: actor.key });
    assert.deepEqual(all.body.data.map((x: { id: string }) => x.id), [a, d], 'dashboard order is creation order');
  });
});

describe('update (PATCH)', () => {
  let actor: Actor;
  before(async () => {
    actor = await newAccount(server, { tier: 'pro' });
  });
  const patch = (id: string, body: unknown, key = actor.key) => server.request('PATCH', checkPath(id), { key, body });

  test('changes only the included field and answers {data: {success: true}}', async () => {
    const id = await createCheck(server, {
      url: 'https://only.patch.example.com/x',
      name: 'before',
      httpMethod: 'POST',
      expectedStatusCodes: [202],
      checkFrequency: 3,
      requestHeaders: { 'X-Keep': '1' },
      requestBody: '{"keep":true}',
      responseValidation: { containsText: ['keep'] },
      cacheControlNoCache: true,
      immediateRecheckEnabled: false,
      responseTimeLimit: 900,
      downConfirmationAttempts: 4,
      pingPackets: 2,
      timezone: 'Asia/Tokyo',
    }, actor.key);
    const before = await getCheck(id, actor.key);
    clock.advance(5_000);
    const res = await patch(id, { name: 'after' });
    assertStatus(res, 200);
    assert.deepEqual(res.body, { data: { success: true } });
    const after = await getCheck(id, actor.key);
    assert.equal(after.name, 'after');
    assert.equal(after.updatedAt, new Date(clock.now()).toISOString(), 'updatedAt moves');
    const { name: _n1, updatedAt: _u1, ...restBefore } = before;
    const { name: _n2, updatedAt: _u2, ...restAfter } = after;
    assert.deepEqual(restAfter, restBefore, 'nothing else changed');
  });

  test('a GET record sent back as a PATCH changes nothing, for every type (heartbeat ping URL and fixed types included)', async () => {
    const ids = [
      await createCheck(server, { url: 'https://roundtrip.patch.example.com/x', requestHeaders: { 'X-A': '1' }, folder: 'rt' }, actor.key),
      await createCheck(server, { type: 'heartbeat', checkFrequency: 30, schedule: '0 * * * *' }, actor.key),
      await createCheck(server, { type: 'domain', url: 'roundtrip.example.com' }, actor.key),
      await createCheck(server, { type: 'redirect', url: 'https://rt-redirect.example.com/' }, actor.key),
      await createCheck(server, { type: 'tcp', url: 'tcp://rt.example.com:25' }, actor.key),
    ];
    for (const id of ids) {
      const record = await getCheck(id, actor.key);
      clock.advance(1_000);
      assertStatus(await patch(id, record), 200);
      const { updatedAt: _u1, ...before } = record;
      const { updatedAt: _u2, ...after } = await getCheck(id, actor.key);
      assert.deepEqual(after, before, `${record.type}: nothing changed`);
    }
  });

  test('a read-only field with another value is a 400 naming it (and where to change it); nothing changes', async () => {
    const id = await createCheck(server, { url: 'https://readonly.patch.example.com' }, actor.key);
    const record = await getCheck(id, actor.key);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ id: 'chk_00000000000000000000' }, /^id is read-only/],
      [{ createdAt: '2020-01-01T00:00:00.000Z' }, /^createdAt is read-only/],
      [{ interval: record.interval + 2 }, /^interval is read-only: change it with checkFrequency/],
      [{ method: 'PUT' }, /^method is read-only: change it with httpMethod/],
      [{ headers: { 'X-B': '2' } }, /^headers is read-only: change it with requestHeaders/],
      [{ status: 'paused' }, /^status is read-only: change it with POST \/v1\/public\/checks\/\{id\}\/toggle/],
      [{ maintenanceMode: true }, /^maintenanceMode is read-only: change it with POST/],
      [{ ...record, name: 'renamed', region: 'elsewhere' }, /^region is read-only: change it with checkRegionOverride/],
    ];
    for (const [body, message] of cases) {
      const res = await patch(id, body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
      assertError(res, 400, message);
    }
    assert.deepEqual(await getCheck(id, actor.key), record);
    // Observations move on their own between a GET and the PATCH: whatever their value, they are ignored.
    assertStatus(await patch(id, { ...record, name: 'renamed', lastChecked: '2020-01-01T00:00:00.000Z', uptime: 12.5, ssl: null }), 200);
    assert.equal((await getCheck(id, actor.key)).name, 'renamed');
  });

  test('input names map to output names', async () => {
    const id = await createCheck(server, { url: 'https://map.patch.example.com' }, actor.key);
    assertStatus(await patch(id, { httpMethod: 'PUT' }), 200);
    assert.equal((await getCheck(id, actor.key)).method, 'PUT');

    assertStatus(await patch(id, { expectedStatusCodes: [204, 200] }), 200);
    let c = await getCheck(id, actor.key);
    assert.equal(c.expectedStatus, 204);
    assert.deepEqual(c.expectedStatusCodes, [204, 200]);

    assertStatus(await patch(id, { checkFrequency: 15 }), 200);
    assert.equal((await getCheck(id, actor.key)).interval, 15);

    assertStatus(await patch(id, { requestHeaders: { 'X-One': '1', 'X-Two': '2' } }), 200);
    assertStatus(await patch(id, { requestHeaders: { 'X-Three': '3' } }), 200);
    assert.deepEqual((await getCheck(id, actor.key)).headers, { 'X-Three': '3' }, 'requestHeaders replaces the whole object');

    assertStatus(await patch(id, { requestBody: '[1,2,3]' }), 200);
    assert.equal((await getCheck(id, actor.key)).body, '[1,2,3]');

    assertStatus(await patch(id, { downConfirmationAttempts: 7 }), 200);
    c = await getCheck(id, actor.key);
    assert.equal(c.consecutiveFailureThreshold, 7);
    // Earlier changes survived the later patches.
    assert.equal(c.method, 'PUT');
    assert.equal(c.interval, 15);
    assert.equal(c.expectedStatus, 204);
    assert.equal(c.body, '[1,2,3]');
  });

  test('nullable fields can be cleared with null', async () => {
    const id = await createCheck(server, {
      url: 'https://clear.patch.example.com',
      httpMethod: 'POST',
      requestBody: '{"a":1}',
      responseValidation: { containsText: ['a'] },
    }, actor.key);
    assertStatus(await patch(id, { requestBody: null, responseValidation: null }), 200);
    const c = await getCheck(id, actor.key);
    assert.equal(c.body, null);
    assert.equal(c.responseValidation, null);
  });

  test('changing url and type together to another allowed type', async () => {
    const id = await createCheck(server, { url: 'https://retype.patch.example.com' }, actor.key);
    assertStatus(await patch(id, { type: 'tcp', url: 'tcp://retype.patch.example.com:5432' }), 200);
    let c = await getCheck(id, actor.key);
    assert.equal(c.type, 'tcp');
    assert.equal(c.url, 'tcp://retype.patch.example.com:5432');
    for (const [type, url] of [
      ['smtp', 'smtp://retype.patch.example.com:25'],
      ['pop3', 'pop3s://retype.patch.example.com:995'],
      ['imap', 'imap://retype.patch.example.com:143'],
      ['udp', 'udp://retype.patch.example.com:53'],
      ['dns', 'retype.patch.example.com'],
      ['ping', 'retype.patch.example.com'],
      ['rest_endpoint', 'https://retype.patch.example.com/api'],
      ['website', 'https://retype.patch.example.com/'],
    ] as const) {
      assertStatus(await patch(id, { type, url }), 200);
      c = await getCheck(id, actor.key);
      assert.equal(c.type, type);
    }
  });

  test('type outside the PATCH list is 400 and changes nothing', async () => {
    const id = await createCheck(server, { url: 'https://badtype.patch.example.com' }, actor.key);
    for (const type of ['heartbeat', 'domain', 'redirect', 'websocket', 'gopher']) {
      assertError(await patch(id, { type }), 400);
    }
    assertError(await patch(id, { type: 'domain', url: 'badtype.patch.example.com' }), 400);
    assert.equal((await getCheck(id, actor.key)).type, 'website');
  });

  test('a type whose URL form does not fit the current url is 400', async () => {
    const id = await createCheck(server, { url: 'https://form.patch.example.com' }, actor.key);
    assertError(await patch(id, { type: 'tcp' }), 400);
    assertError(await patch(id, { url: 'tcp://form.patch.example.com:80' }), 400);
    const c = await getCheck(id, actor.key);
    assert.equal(c.type, 'website');
    assert.equal(c.url, 'https://form.patch.example.com');
  });

  test('url on a heartbeat is 400; other fields of a heartbeat can change', async () => {
    const id = await createCheck(server, { type: 'heartbeat', checkFrequency: 30 }, actor.key);
    const before = await getCheck(id, actor.key);
    assertError(await patch(id, { url: 'https://elsewhere.example.com' }), 400);
    assertError(await patch(id, { type: 'website' }), 400);
    assertStatus(await patch(id, { name: 'cron', checkFrequency: 60 }), 200);
    const after = await getCheck(id, actor.key);
    assert.equal(after.url, before.url, 'the ping URL is unchanged');
    assert.equal(after.name, 'cron');
    assert.equal(after.interval, 60);
    assert.equal(after.type, 'heartbeat');
    // A heartbeat's interval is held to minHeartbeatIntervalSeconds (pro: 15 s), not the probe minimum.
    assertError(await patch(id, { checkFrequency: 0.2 }), 400);
    assertStatus(await patch(id, { checkFrequency: 0.25 }), 200);
    assert.equal((await getCheck(id, actor.key)).interval, 0.25);
  });

  test('a URL already used by another check of the account is 409; its own URL in another spelling is fine', async () => {
    await createCheck(server, { url: 'https://taken.patch.example.com/' }, actor.key);
    const id = await createCheck(server, { url: 'https://mine.patch.example.com/' }, actor.key);
    assertError(await patch(id, { url: 'HTTPS://Taken.Patch.example.com:443/' }), 409);
    assert.equal((await getCheck(id, actor.key)).url, 'https://mine.patch.example.com/');
    assertStatus(await patch(id, { url: 'https://MINE.patch.example.com:443/' }), 200);
  });

  test('validation errors are 400 and change nothing', async () => {
    const id = await createCheck(server, { url: 'https://invalid.patch.example.com', name: 'stable' }, actor.key);
    const before = await getCheck(id, actor.key);
    const bad: unknown[] = [
      { colour: 'blue' },
      { name: 'x'.repeat(201) },
      { name: 42 },
      { httpMethod: 'OPTIONS' },
      { checkFrequency: -1 },
      { checkFrequency: 0.25 },
      { checkRegionOverride: 'vps-us-1' },
      { requestHeaders: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-${i}`, 'v'])) },
      { requestBody: 'not json' },
      { requestBody: JSON.stringify('x'.repeat(65536)) },
      { downConfirmationAttempts: 0 },
      { downConfirmationAttempts: 100 },
      { pingPackets: 6 },
      { timezone: 'Nowhere/Special' },
      { url: '' },
      { url: 'notaurl' },
      [],
    ];
    for (const body of bad) assertError(await patch(id, body), 400);
    assertError(await server.request('PATCH', checkPath(id), { key: actor.key, rawBody: '{"name":', headers: { 'content-type': 'application/json' } }), 400);
    const after = await getCheck(id, actor.key);
    assert.deepEqual(after, before);
  });

  test('plan limits apply to PATCH: interval below the minimum is 400, region choice without the plan is 403', async () => {
    const free = await newAccount(server, { tier: 'free' });
    const id = await createCheck(server, { url: 'https://plan.patch.example.com' }, free.key);
    assertError(await patch(id, { checkFrequency: 1 }, free.key), 400);
    assertError(await patch(id, { checkRegionOverride: 'vps-eu-1' }, free.key), 403);
    const c = await getCheck(id, free.key);
    assert.equal(c.interval, 5);
    assert.equal(c.checkRegionOverride ?? null, null);
  });

  test('after a downgrade, fields the plan no longer allows do not block unrelated changes', async () => {
    const acct = await newAccount(server, { tier: 'pro' });
    const id = await createCheck(server, { url: 'https://downgrade.patch.example.com', checkFrequency: 1, checkRegionOverride: 'vps-eu-1' }, acct.key);
    await externalWrite(server, "UPDATE accounts SET tier = 'free' WHERE id = ?", acct.accountId);
    assertStatus(await patch(id, { name: 'renamed after downgrade' }, acct.key), 200);
    assertError(await patch(id, { checkFrequency: 2 }, acct.key), 400);
    assertError(await patch(id, { checkRegionOverride: 'vps-eu-1' }, acct.key), 403);
    const c = await getCheck(id, acct.key);
    assert.equal(c.name, 'renamed after downgrade');
    assert.equal(c.interval, 1);
  });

  test("unknown id is 404; another account's check is 403 and unchanged", async () => {
    assertError(await patch('chk_ffffffffffffffffffff', { name: 'x' }), 404);
    const other = await newAccount(server, { tier: 'pro' });
    const id = await createCheck(server, { url: 'https://foreign.patch.example.com', name: 'theirs' }, other.key);
    assertError(await patch(id, { name: 'mine now' }), 403);
    assert.equal((await getCheck(id, other.key)).name, 'theirs');
  });
});

describe('delete', () => {
  let actor: Actor;
  before(async () => {
    actor = await newAccount(server, { tier: 'pro' });
  });

  test('200 {data: {success: true}}; the check and its history are gone', async () => {
    const id = await createCheck(server, { url: 'https://gone.delete.example.com' }, actor.key);
    assertStatus(await server.request('POST', `${checkPath(id)}/toggle`, { key: actor.key, body: { disabled: true } }), 200);
    const seq = await seqOf(id);
    assert.ok((await server.app.store.history.forCheck(seq, 10)).length > 0);

    const res = await server.request('DELETE', checkPath(id), { key: actor.key });
    assertStatus(res, 200);
    assert.deepEqual(res.body, { data: { success: true } });
    assertError(await server.request('GET', checkPath(id), { key: actor.key }), 404);
    const list = await server.request('GET', '/v1/public/checks?limit=100', { key: actor.key });
    assert.ok(!list.body.data.some((c: { id: string }) => c.id === id));
    assert.equal((await server.app.store.history.forCheck(seq, 10)).length, 0, 'history deleted with the check');
    assertError(await server.request('DELETE', checkPath(id), { key: actor.key }), 404, undefined);
  });

  test('deleting frees the URL for a new check', async () => {
    const id = await createCheck(server, { url: 'https://reuse.delete.example.com' }, actor.key);
    assertStatus(await server.request('DELETE', checkPath(id), { key: actor.key }), 200);
    await createCheck(server, { url: 'https://reuse.delete.example.com' }, actor.key);
  });

  test("another account's check is 403 and survives; an unknown id is 404", async () => {
    const id = await createCheck(server, { url: 'https://kept.delete.example.com' }, actor.key);
    assertError(await server.request('DELETE', checkPath(id)), 403);
    await getCheck(id, actor.key);
    assertError(await server.request('DELETE', checkPath('chk_0123456789abcdef0123')), 404);
  });
});

describe('toggle', () => {
  let actor: Actor;
  before(async () => {
    actor = await newAccount(server, { tier: 'pro' });
  });
  const toggle = (id: string, body: unknown, opts: { key?: string; headers?: Record<string, string> } = {}) =>
    server.request('POST', `${checkPath(id)}/toggle`, { key: opts.key ?? actor.key, body, headers: opts.headers });

  test('disable then enable: responses, status, and a history event with the reason', async () => {
    const id = await createCheck(server, { url: 'https://cycle.toggle.example.com' }, actor.key);
    await setMonitorStatus(server, id, 'up');

    const off = await toggle(id, { disabled: true, reason: 'deploy freeze' });
    assertStatus(off, 200);
    assert.deepEqual(off.body, { data: { success: true, disabled: true, message: 'Check disabled' } });
    let c = await getCheck(id, actor.key);
    assert.equal(c.status, 'paused');
    assert.equal(c.disabled, true);

    const events = (await server.app.store.history.forCheck(await seqOf(id), 10)).filter((h) => h.kind === 'event');
    assert.equal(events.length, 1);
    assert.equal(events[0]!.meta?.reason, 'deploy freeze');
    assert.equal(events[0]!.at, clock.now());

    clock.advance(1_000);
    const on = await toggle(id, { disabled: false });
    assertStatus(on, 200);
    assert.deepEqual(on.body, { data: { success: true, disabled: false, message: 'Check enabled' } });
    c = await getCheck(id, actor.key);
    assert.ok(['up', 'pending'].includes(c.status), `a resumed check is no longer paused: ${c.status}`);
    assert.equal(c.disabled, false);
    const after = (await server.app.store.history.forCheck(await seqOf(id), 10)).filter((h) => h.kind === 'event');
    assert.equal(after.length, 2, 'resuming records an event too');
  });

  test('a check named by its URL follows a new URL; a name the user gave stays', async () => {
    const unnamed = await createCheck(server, { url: 'https://old-name.example.com/' }, actor.key);
    const named = await createCheck(server, { url: 'https://kept-name.example.com/', name: 'Shop' }, actor.key);
    for (const id of [unnamed, named]) {
      assertStatus(await server.request('PATCH', checkPath(id), { key: actor.key, body: { url: `https://moved-${id.slice(-6)}.example.com/` } }), 200);
    }
    assert.equal((await getCheck(unnamed, actor.key)).name, `https://moved-${unnamed.slice(-6)}.example.com/`);
    assert.equal((await getCheck(named, actor.key)).name, 'Shop');
  });

  test('pausing and resuming are status changes on the status endpoint (lastStatusChange moves)', async () => {
    const id = await createCheck(server, { url: 'https://moves.toggle.example.com' }, actor.key);
    await setMonitorStatus(server, id, 'down');
    const repo = server.app.store.checks as unknown as { saveRuntime(id: string, runtime: Record<string, unknown>): Promise<void> };
    await repo.saveRuntime(id, { ...(await server.app.store.checks.byId(id))!, lastError: 'HTTP 503', sync: null, statusChanged: false });
    assert.equal((await getCheck(id, actor.key)).lastError, 'HTTP 503');
    const statusOf = async () => {
      const res = await server.request('GET', '/v1/public/checks/status', { key: actor.key });
      assertStatus(res, 200);
      return (res.body.data as Array<{ id: string; status: string; lastStatusChange: number | null }>).find((c) => c.id === id)!;
    };
    clock.advance(5_000);
    assertStatus(await toggle(id, { disabled: true }), 200);
    assert.deepEqual(await statusOf().then((c) => [c.status, c.lastStatusChange]), ['unknown', clock.now()]);
    assert.equal((await getCheck(id, actor.key)).lastError, null, 'lastError is shown only while down, and paused is not down');
    clock.advance(5_000);
    assertStatus(await toggle(id, { disabled: false }), 200);
    assert.deepEqual(await statusOf().then((c) => [c.status, c.lastStatusChange]), ['offline', clock.now()]);
    clock.advance(5_000);
    assertStatus(await toggle(id, { disabled: false }), 200);
    assert.equal((await statusOf()).lastStatusChange, clock.now() - 5_000, 'enabling an enabled check changes nothing');
  });

  test('without a reason the event still carries a default reason', async () => {
    const id = await createCheck(server, { url: 'https://default.toggle.example.com' }, actor.key);
    assertStatus(await toggle(id, { disabled: true }), 200);
    const [event] = await server.app.store.history.forCheck(await seqOf(id), 10);
    assert.equal(event?.kind, 'event');
    assert.equal(typeof event?.meta?.reason, 'string');
    assert.ok((event!.meta!.reason as string).length > 0);
  });

  test('400 when disabled is missing or not a boolean, or reason is over 500 characters', async () => {
    const id = await createCheck(server, { url: 'https://invalid.toggle.example.com' }, actor.key);
    for (const body of [{}, { reason: 'x' }, { disabled: 'true' }, { disabled: 1 }, { disabled: null }, { disabled: true, reason: 'r'.repeat(501) }, { disabled: true, extra: 1 }]) {
      assertError(await toggle(id, body), 400);
    }
    assertError(await server.request('POST', `${checkPath(id)}/toggle`, { key: actor.key }), 400, 'disabled');
    assert.equal((await getCheck(id, actor.key)).status, 'pending');
    assert.equal((await server.app.store.history.forCheck(await seqOf(id), 10)).length, 0, 'no event recorded');
    assertStatus(await toggle(id, { disabled: true, reason: 'r'.repeat(500) }), 200);
  });

  test("unknown id is 404; another account's check is 403 and stays enabled", async () => {
    assertError(await toggle('chk_aaaaaaaaaaaaaaaaaaaa', { disabled: true }), 404);
    const other = await newAccount(server, { tier: 'pro' });
    const id = await createCheck(server, { url: 'https://foreign.toggle.example.com' }, other.key);
    assertError(await toggle(id, { disabled: true }), 403);
    assert.equal((await getCheck(id, other.key)).status, 'pending');
  });

  test('an Idempotency-Key on toggle is honoured: replay with the header, no second event', async () => {
    const id = await createCheck(server, { url: 'https://idem.toggle.example.com' }, actor.key);
    const headers = { 'Idempotency-Key': `toggle-${id}` };
    const first = await toggle(id, { disabled: true, reason: 'once' }, { headers });
    assertStatus(first, 200);
    assertStatus(await toggle(id, { disabled: false }), 200);
    const replay = await toggle(id, { disabled: true, reason: 'once' }, { headers });
    assert.equal(replay.status, 200);
    assert.deepEqual(replay.body, first.body);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal((await getCheck(id, actor.key)).status, 'pending', 'the replay did not pause the check again');
    assertError(await toggle(id, { disabled: false }, { headers }), 422);
  });
});

describe('maintenance', () => {
  let actor: Actor;
  before(async () => {
    actor = await newAccount(server, { tier: 'pro' });
  });
  const maintenance = (id: string, body: unknown, key = actor.key) =>
    server.request('POST', `${checkPath(id)}/maintenance`, { key, body });

  test('on without until, then off', async () => {
    const id = await createCheck(server, { url: 'https://plain.maint.example.com' }, actor.key);
    await setMonitorStatus(server, id, 'up');
    const on = await maintenance(id, { enabled: true });
    assertStatus(on, 200);
    assert.deepEqual(on.body, { data: { maintenanceMode: true, until: null } });
    let c = await getCheck(id, actor.key);
    assert.equal(c.maintenanceMode, true);
    assert.equal(c.status, 'up', 'maintenance leaves the status unchanged');

    const off = await maintenance(id, { enabled: false });
    assertStatus(off, 200);
    assert.deepEqual(off.body, { data: { maintenanceMode: false, until: null } });
    c = await getCheck(id, actor.key);
    assert.equal(c.maintenanceMode, false);
  });

  test('on until an ISO 8601 time: echoed back, and over once that time has passed', async () => {
    const id = await createCheck(server, { url: 'https://until.maint.example.com' }, actor.key);
    const until = new Date(clock.now() + 60 * 60_000).toISOString();
    const on = await maintenance(id, { enabled: true, until });
    assertStatus(on, 200);
    assert.deepEqual(on.body, { data: { maintenanceMode: true, until } });
    assert.equal((await getCheck(id, actor.key)).maintenanceMode, true);
    clock.advance(2 * 60 * 60_000);
    assert.equal((await getCheck(id, actor.key)).maintenanceMode, false, 'maintenance ended at until');
  });

  test('until in the past or not a date is 400; enabled missing or not boolean is 400', async () => {
    const id = await createCheck(server, { url: 'https://bad.maint.example.com' }, actor.key);
    assertError(await maintenance(id, { enabled: true, until: new Date(clock.now() - 60_000).toISOString() }), 400);
    assertError(await maintenance(id, { enabled: true, until: 'next tuesday' }), 400);
    assertError(await maintenance(id, {}), 400);
    assertError(await maintenance(id, { enabled: 'yes' }), 400);
    assertError(await maintenance(id, { enabled: true, extra: 1 }), 400);
    assert.equal((await getCheck(id, actor.key)).maintenanceMode, false);
  });

  test("unknown id is 404; another account's check is 403", async () => {
    assertError(await maintenance('chk_bbbbbbbbbbbbbbbbbbbb', { enabled: true }), 404);
    const id = await createCheck(server, { url: 'https://foreign.maint.example.com' }, actor.key);
    assertError(await maintenance(id, { enabled: true }, server.adminKey), 403);
    assert.equal((await getCheck(id, actor.key)).maintenanceMode, false);
  });
});

describe('Idempotency-Key replay window (24 hours)', () => {
  test('replayed within 24 hours; after that the key is free again', async () => {
    const actor = await newAccount(server, { tier: 'pro' });
    const key = 'window-key';
    const first = await server.request('POST', '/v1/public/checks', {
      key: actor.key,
      body: { url: 'https://window-a.example.com' },
      headers: { 'Idempotency-Key': key },
    });
    assertStatus(first, 201);
    clock.advance(24 * 60 * 60_000 - 2 * 60_000);
    const replay = await server.request('POST', '/v1/public/checks', {
      key: actor.key,
      body: { url: 'https://window-a.example.com' },
      headers: { 'Idempotency-Key': key },
    });
    assert.equal(replay.status, 201);
    assert.deepEqual(replay.body, first.body);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assertError(
      await server.request('POST', '/v1/public/checks', { key: actor.key, body: { url: 'https://window-b.example.com' }, headers: { 'Idempotency-Key': key } }),
      422,
    );

    clock.advance(5 * 60_000);
    const fresh = await server.request('POST', '/v1/public/checks', {
      key: actor.key,
      body: { url: 'https://window-b.example.com' },
      headers: { 'Idempotency-Key': key },
    });
    assertStatus(fresh, 201);
    assert.equal(fresh.headers.get('idempotent-replayed'), null);
    assert.notEqual(fresh.body.data.id, first.body.data.id);
  });
});
