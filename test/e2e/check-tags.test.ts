import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { TestServer } from '../helpers/server.js';
import type { Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { assertError, assertStatus, newAccount, rawRequest, type Actor } from './util.js';
import { createFastCheck, createWebhook, receivedAt, startProbedWorld, wheelRound, type ProbedWorld, type SwitchableTarget } from '../helpers/alerts-e2e.js';

/**
 * Check tags (issue 27 item 1) through the API and the tool server against a real server on
 * loopback: stored as given, filtered case-insensitively (every tag; a key matches any value),
 * routing alerts of a real local target, listing checks on a status page, and on /metrics.
 */

const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
const ALL = ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'];
const CHECKS = '/v1/public/checks';

let srv: TestServer;
let receiver: Receiver;
let target: SwitchableTarget;

let world: ProbedWorld;

before(async () => {
  world = await startProbedWorld(clock);
  ({ srv, receiver, target } = world);
});
after(() => world.close());

const account = async (): Promise<Actor> => (await newAccount(srv, { tier: 'pro', scopes: ALL }));
const create = async (a: Actor, body: Record<string, unknown>) => {
  const res = await srv.request('POST', CHECKS, { key: a.key, body });
  assertStatus(res, 201);
  return res.body.data.id as string;
};
const listed = async (a: Actor, query: string) => {
  const res = await srv.request('GET', `${CHECKS}?${query}`, { key: a.key });
  assertStatus(res, 200);
  return (res.body.data as { id: string }[]).map((c) => c.id);
};

describe('tags on checks', () => {
  let a: Actor;
  let shop: string;
  let api: string;
  let db: string;

  before(async () => {
    a = await account();
    shop = await create(a, { url: 'https://shop.example.com/', tags: ['env:Production', 'team:web', 'TEAM:Web'] });
    api = await create(a, { url: 'https://api.example.com/', tags: ['env:production', 'team:platform', 'critical'] });
    db = await create(a, { url: 'https://db.example.com/', tags: ['env:staging'] });
    await create(a, { url: 'https://untagged.example.com/' });
  });

  test('stored as given (duplicates by case dropped), on get and list', async () => {
    const got = (await srv.request('GET', `${CHECKS}/${shop}`, { key: a.key })).body.data;
    assert.deepEqual(got.tags, ['env:Production', 'team:web']);
    const item = (await srv.request('GET', CHECKS, { key: a.key })).body.data.find((c: { id: string }) => c.id === api);
    assert.deepEqual(item.tags, ['env:production', 'team:platform', 'critical']);
  });

  test('tag= filters: every tag must match, case-insensitively; a key matches any value', async () => {
    assert.deepEqual(await listed(a, 'tag=env:PRODUCTION'), [shop, api]);
    assert.deepEqual(await listed(a, 'tag=env:production&tag=team:web'), [shop]);
    assert.deepEqual(await listed(a, 'tag=env'), [shop, api, db]);
    assert.deepEqual(await listed(a, 'tag=team&tag=critical'), [api]);
    assert.deepEqual(await listed(a, 'tag=en'), [], 'a key matches whole keys');
    const res = await srv.request('GET', `${CHECKS}?tag=env&includeTotal=true&limit=1`, { key: a.key });
    assert.deepEqual([res.body.data.length, res.body.meta.total], [1, 3]);
    const next = await srv.request('GET', `${CHECKS}?tag=env&limit=1&cursor=${encodeURIComponent(res.body.meta.cursor)}`, { key: a.key });
    assert.deepEqual(next.body.data.map((c: { id: string }) => c.id), [api], 'the cursor keeps the filter');
  });

  test('PATCH replaces the list; the filter follows at once', async () => {
    assertStatus(await srv.request('PATCH', `${CHECKS}/${db}`, { key: a.key, body: { tags: ['env:production'] } }), 200);
    assert.deepEqual(await listed(a, 'tag=env:production'), [shop, api, db]);
    assertStatus(await srv.request('PATCH', `${CHECKS}/${db}`, { key: a.key, body: { tags: ['env:staging'] } }), 200);
    assert.deepEqual(await listed(a, 'tag=env:production'), [shop, api]);
  });

  test('bad tags are 400s that say why', async () => {
    const bad = (tags: unknown) => srv.request('POST', CHECKS, { key: a.key, body: { url: 'https://bad.example.com/', tags } });
    assertError(await bad(['a,b']), 400, /comma/);
    assertError(await bad([' env']), 400, /whitespace/);
    assertError(await bad(['env: prod']), 400, /whitespace/);
    assertError(await bad(['env:']), 400, /1 to 64/);
    assertError(await bad([`${'k'.repeat(65)}:v`]), 400, /1 to 64/);
    assertError(await bad(Array.from({ length: 21 }, (_, i) => `t${i}`)), 400, /tags/);
    assertError(await srv.request('GET', `${CHECKS}?${Array.from({ length: 21 }, (_, i) => `tag=t${i}`).join('&')}`, { key: a.key }), 400, /tag/);
  });

  test('the tool server: list_checks takes tag as a list; create_check and get_check carry tags', async () => {
    const client = new Client({ name: 'vigil-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp/v1`), { requestInit: { headers: { 'x-api-key': a.key } } }));
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const res = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text?: string }[]; structuredContent?: { data: unknown } };
        assert.notEqual(res.isError, true, res.content[0]?.text);
        return res.structuredContent!.data;
      };
      const ids = (await call('list_checks', { tag: ['team:web', 'env'] })) as { id: string }[];
      assert.deepEqual(ids.map((c) => c.id), [shop]);
      const created = (await call('create_check', { url: 'https://mcp.example.com/', tags: ['via:mcp'], idempotencyKey: 'tags-mcp-1' })) as { id: string };
      assert.deepEqual(((await call('get_check', { id: created.id })) as { tags: string[] }).tags, ['via:mcp']);
    } finally {
      await client.close();
    }
  });

  test('a status page with tags shows the tagged checks after its listed ones; /metrics has them on vigil_check_info', async () => {
    const page = await srv.request('POST', '/v1/public/status-pages', { key: a.key, body: { slug: 'tagged', title: 'Tagged', checkIds: [db], tags: ['env:production'] } });
    assertStatus(page, 201);
    assert.deepEqual(page.body.data.tags, ['env:production']);
    const json = await rawRequest(srv, 'GET', '/status/tagged.json', {});
    assert.deepEqual(JSON.parse(json.text).checks.map((c: { id: string }) => c.id), [db, shop, api]);
    assertError(await srv.request('PATCH', `/v1/public/status-pages/${page.body.data.id}`, { key: a.key, body: { tags: ['a,b'] } }), 400, /comma/);

    const metrics = await rawRequest(srv, 'GET', '/metrics', { authorization: `Bearer ${a.key}` });
    assert.equal(metrics.status, 200);
    assert.match(metrics.text, new RegExp(`vigil_check_info\\{check_id="${shop}",[^}]*tags="env:Production,team:web"\\} 1`));
    assert.doesNotMatch(metrics.text, /vigil_check_up\{[^}]*tags=/, 'no tags on the other series');
  });
});

describe('routing alerts by tag', () => {
  test('a webhook with tags hears only the checks that have one of them; a real local target going down', async () => {
    const a = await account();
    const web = await createFastCheck(srv, a.key, `${target.origin}/web`, { tags: ['team:Web'] });
    const other = await createFastCheck(srv, a.key, `${target.origin}/other`, { tags: ['team:db'] });
    const byTag = await srv.request('POST', '/v1/public/alerts/webhooks', { key: a.key, body: { name: 'web team', url: receiver.url('/tags/web'), tags: ['TEAM:web'] } });
    assertStatus(byTag, 201);
    assert.deepEqual(byTag.body.data.tags, ['TEAM:web']);
    await createWebhook(srv, a.key, { url: receiver.url('/tags/all') });
    await createWebhook(srv, a.key, { url: receiver.url('/tags/key'), tags: ['team'] });
    await wheelRound(srv, clock, 0);
    target.broken.add('/web').add('/other');
    await wheelRound(srv, clock, 3_000);
    await receiver.waitFor(() => receivedAt(receiver, '/tags/').length === 5);
    const heard = (path: string) => receivedAt(receiver, path).map((r) => r.json.check.id).sort();
    assert.deepEqual(heard('/tags/web'), [web]);
    assert.deepEqual(heard('/tags/key'), [web, other].sort());
    assert.deepEqual(heard('/tags/all'), [web, other].sort());
    const restricted = await newAccount(srv, { tier: 'pro', scopes: ALL, folders: ['ops'] });
    assertError(
      await srv.request('POST', '/v1/public/alerts/webhooks', { key: restricted.key, body: { name: 'x', url: receiver.url('/tags/r'), folders: ['ops'], tags: ['env'] } }),
      403,
    );
    const email = await srv.request('PATCH', '/v1/public/alerts/email', { key: a.key, body: { recipients: ['web@example.com'], tags: ['team:web'] } });
    assertStatus(email, 200);
    assert.deepEqual(email.body.data.tags, ['team:web']);
  });
});
