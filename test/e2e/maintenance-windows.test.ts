import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { TestServer } from '../helpers/server.js';
import type { Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { assertError, assertStatus, newAccount, newKey, type Actor } from './util.js';
import { createFastCheck, createWebhook, receivedAt, startProbedWorld, wheelRound, type ProbedWorld, type SwitchableTarget } from '../helpers/alerts-e2e.js';

/**
 * Scheduled maintenance windows (issue 27 item 2) through the API and the tool server, against
 * real probes of a local HTTP target: a window in force suppresses an outage's alert and
 * freezes the status; once it ends, the next change alerts. Time is a ManualClock; the
 * scheduler is asked to look after each change (it would on its own timer).
 */

const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
const MINUTE = 60_000;
const ALL = ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'];
const WINDOWS = '/v1/public/maintenance-windows';
const iso = (ms: number) => new Date(ms).toISOString();

let srv: TestServer;
let receiver: Receiver;
let target: SwitchableTarget;
let origin = '';

let world: ProbedWorld;

before(async () => {
  world = await startProbedWorld(clock);
  ({ srv, receiver, target } = world);
  origin = target.origin;
});
after(() => world.close());

const account = async (): Promise<Actor> => (await newAccount(srv, { tier: 'pro', scopes: ALL }));
const round = () => wheelRound(srv, clock, 3_000);
const settle = () => srv.app.windows.reconcile();
const getCheck = async (a: Actor, id: string) => (await srv.request('GET', `/v1/public/checks/${id}`, { key: a.key })).body.data;
const statusOf = async (a: Actor, id: string) =>
  ((await srv.request('GET', '/v1/public/checks/status', { key: a.key })).body.data as { id: string; maintenanceMode: boolean; status: string }[]).find((s) => s.id === id)!;
const events = async (a: Actor, id: string) =>
  ((await srv.request('GET', `/v1/public/checks/${id}/history?limit=100`, { key: a.key })).body.data as { type: string; status: string; details: { event?: string } | null }[])
    .filter((e) => e.type === 'event')
    .map((e) => e.details?.event);
const createWindow = async (a: Actor, body: Record<string, unknown>) => {
  const res = await srv.request('POST', WINDOWS, { key: a.key, body });
  assertStatus(res, 201);
  await settle();
  return res.body.data;
};

describe('a window in force', () => {
  test('suppresses an outage alert and freezes the status; after it ends, the next change alerts', async () => {
    const a = await account();
    const path = '/window/shop';
    const id = await createFastCheck(srv, a.key, origin + path, { tags: ['team:shop'] });
    await createWebhook(srv, a.key, { url: receiver.url('/mw/shop') });
    await wheelRound(srv, clock, 0);
    assert.equal((await getCheck(a, id)).status, 'up');

    const now = clock.now();
    const w = await createWindow(a, { title: 'Database upgrade', tags: ['team:shop'], startsAt: iso(now - MINUTE), endsAt: iso(now + 60 * MINUTE) });
    assert.deepEqual([w.active, w.nextStartsAt, w.nextEndsAt], [true, iso(now - MINUTE), iso(now + 60 * MINUTE)]);
    assert.equal((await getCheck(a, id)).maintenanceMode, true, 'the record says maintenance');
    assert.equal((await statusOf(a, id)).maintenanceMode, true, 'so does the status endpoint');

    target.broken.add(path);
    await round();
    await round();
    assert.equal((await getCheck(a, id)).status, 'up', 'the status is frozen');
    assert.equal(receivedAt(receiver, '/mw/shop').length, 0, 'no alert while the window is in force');

    const ended = await srv.request('PATCH', `${WINDOWS}/${w.id}`, { key: a.key, body: { endsAt: iso(clock.now()) } });
    assertStatus(ended, 200);
    assert.equal(ended.body.data.active, false);
    await settle();
    assert.equal((await getCheck(a, id)).maintenanceMode, false);
    await round();
    await receiver.waitFor(() => receivedAt(receiver, '/mw/shop').length === 1);
    assert.equal(receivedAt(receiver, '/mw/shop')[0]!.json.event, 'website_down', 'the next change after the window alerts');
    assert.deepEqual((await events(a, id)).slice(0, 2), ['window_end', 'window_start'], 'history records the start and the end (newest first)');
    target.broken.delete(path);
  });

  test('a window that starts and ends on the clock (the scheduler looks at each boundary)', async () => {
    const a = await account();
    const id = await createFastCheck(srv, a.key, `${origin}/window/later`, { folder: 'db' });
    const start = clock.now() + 10 * MINUTE;
    const w = await createWindow(a, { title: 'Later', folders: ['db'], startsAt: iso(start), endsAt: iso(start + 5 * MINUTE) });
    assert.deepEqual([w.active, w.nextStartsAt], [false, iso(start)]);
    assert.equal((await getCheck(a, id)).maintenanceMode, false);
    clock.advance(10 * MINUTE);
    await settle();
    assert.equal((await getCheck(a, id)).maintenanceMode, true);
    assert.equal((await srv.request('GET', `${WINDOWS}/${w.id}`, { key: a.key })).body.data.active, true);
    clock.advance(5 * MINUTE);
    await settle();
    assert.equal((await getCheck(a, id)).maintenanceMode, false);
    assert.deepEqual((await srv.request('GET', `${WINDOWS}/${w.id}`, { key: a.key })).body.data.nextStartsAt, null, 'a one-off window has nothing left');
  });

  test('manual maintenance ending while a window is in force keeps the check in maintenance; deleting the window ends it', async () => {
    const a = await account();
    const id = await createFastCheck(srv, a.key, `${origin}/window/manual`);
    const w = await createWindow(a, { title: 'All', allChecks: true, schedule: '* * * * *', durationMinutes: 10, timezone: 'Europe/Berlin' });
    assert.equal(w.active, true);
    assertStatus(await srv.request('POST', `/v1/public/checks/${id}/maintenance`, { key: a.key, body: { enabled: true } }), 200);
    const off = await srv.request('POST', `/v1/public/checks/${id}/maintenance`, { key: a.key, body: { enabled: false } });
    assert.equal(off.body.data.maintenanceMode, true, 'the window still holds it');
    assert.equal((await getCheck(a, id)).maintenanceMode, true);
    assert.deepEqual((await srv.request('DELETE', `${WINDOWS}/${w.id}`, { key: a.key })).body.data, { id: w.id, deleted: true });
    await settle();
    assert.equal((await getCheck(a, id)).maintenanceMode, false);
    assertError(await srv.request('GET', `${WINDOWS}/${w.id}`, { key: a.key }), 404);
  });
});

describe('the windows API', () => {
  test('recurring windows answer their next occurrence in their time zone; bad input is a 400 that says why', async () => {
    const a = await account();
    const id = await createFastCheck(srv, a.key, `${origin}/window/api`);
    const w = await createWindow(a, { title: 'Sunday night', checkIds: [id], schedule: '0 2 * * 0', durationMinutes: 60, timezone: 'Europe/Berlin' });
    // 1 June 2026 is a Monday; the next Sunday 02:00 in Berlin (UTC+2) is 7 June 00:00 UTC.
    assert.deepEqual([w.active, w.nextStartsAt, w.nextEndsAt, w.timezone], [false, '2026-06-07T00:00:00.000Z', '2026-06-07T01:00:00.000Z', 'Europe/Berlin']);
    const listed = await srv.request('GET', WINDOWS, { key: a.key });
    assert.deepEqual([listed.body.data.map((x: { id: string }) => x.id), listed.body.meta.total], [[w.id], 1]);

    const bad = (body: Record<string, unknown>) => srv.request('POST', WINDOWS, { key: a.key, body: { title: 'x', checkIds: [id], ...body } });
    assertError(await bad({ startsAt: iso(clock.now()) }), 400, /startsAt and endsAt, or a recurring schedule/);
    assertError(await bad({ startsAt: iso(clock.now()), endsAt: iso(clock.now() - 1) }), 400, /endsAt must be after startsAt/);
    assertError(await bad({ schedule: '0 0 2 * * 0', durationMinutes: 5 }), 400, /5 fields/);
    assertError(await bad({ schedule: '0 2 * * 0' }), 400, /durationMinutes/);
    assertError(await bad({ schedule: '0 2 * * 0', durationMinutes: 5, timezone: 'Mars/Olympus' }), 400, /time zone/);
    assertError(await bad({ schedule: '0 2 * * 0', durationMinutes: 10_081 }), 400, /durationMinutes/);
    assertError(await bad({ startsAt: 'soon', endsAt: iso(clock.now()) }), 400, /startsAt/);
    assertError(await srv.request('POST', WINDOWS, { key: a.key, body: { title: 'x', startsAt: iso(clock.now()), endsAt: iso(clock.now() + MINUTE) } }), 400, /Say which checks/);
    const other = await account();
    assertError(await srv.request('POST', WINDOWS, { key: other.key, body: { title: 'x', checkIds: [id], allChecks: false, startsAt: iso(clock.now()), endsAt: iso(clock.now() + 1) } }), 400, /not a check of this account/);
    assertError(await srv.request('GET', `${WINDOWS}/${w.id}`, { key: other.key }), 403);
  });

  test('a key restricted to checks or folders sees and manages only windows wholly within its reach', async () => {
    const a = await account();
    const mine = await createFastCheck(srv, a.key, `${origin}/window/ops`, { folder: 'ops' });
    const theirs = await createFastCheck(srv, a.key, `${origin}/window/web`, { folder: 'web' });
    const inside = await createWindow(a, { title: 'ops', folders: ['ops'], startsAt: iso(clock.now() + MINUTE), endsAt: iso(clock.now() + 2 * MINUTE) });
    const outside = await createWindow(a, { title: 'both', checkIds: [mine, theirs], startsAt: iso(clock.now() + MINUTE), endsAt: iso(clock.now() + 2 * MINUTE) });
    const tagged = await createWindow(a, { title: 'tags', tags: ['x'], startsAt: iso(clock.now() + MINUTE), endsAt: iso(clock.now() + 2 * MINUTE) });
    const restricted = await newKey(srv, a.accountId, { scopes: ALL, folders: ['ops'] });
    const listed = await srv.request('GET', WINDOWS, { key: restricted.key });
    assert.deepEqual(listed.body.data.map((x: { id: string }) => x.id), [inside.id]);
    for (const w of [outside, tagged]) assertError(await srv.request('GET', `${WINDOWS}/${w.id}`, { key: restricted.key }), 403);
    assertError(await srv.request('DELETE', `${WINDOWS}/${outside.id}`, { key: restricted.key }), 403);
    const body = { title: 'r', startsAt: iso(clock.now() + MINUTE), endsAt: iso(clock.now() + 2 * MINUTE) };
    assertError(await srv.request('POST', WINDOWS, { key: restricted.key, body: { ...body, allChecks: true } }), 403);
    assertError(await srv.request('POST', WINDOWS, { key: restricted.key, body: { ...body, checkIds: [theirs] } }), 403);
    assertStatus(await srv.request('POST', WINDOWS, { key: restricted.key, body: { ...body, checkIds: [mine] } }), 201);
    const readOnly = await newKey(srv, a.accountId, { scopes: ['checks:read'] });
    assertStatus(await srv.request('GET', WINDOWS, { key: readOnly.key }), 200);
    assertError(await srv.request('POST', WINDOWS, { key: readOnly.key, body: { ...body, checkIds: [mine] } }), 403);
  });

  test('status pages show the windows of their checks in force now or starting within 7 days', async () => {
    const a = await account();
    const id = await createFastCheck(srv, a.key, `${origin}/window/page`, { name: 'Page check' });
    await createFastCheck(srv, a.key, `${origin}/window/not-on-page`, { folder: 'hidden' });
    assertStatus(await srv.request('POST', '/v1/public/status-pages', { key: a.key, body: { slug: 'windows-page', title: 'W', checkIds: [id] } }), 201);
    const DAY = 24 * 60 * MINUTE;
    const now = clock.now();
    await createWindow(a, { title: 'Now', checkIds: [id], startsAt: iso(now - MINUTE), endsAt: iso(now + 30 * MINUTE) });
    await createWindow(a, { title: 'Soon', description: 'Disk swap', allChecks: true, startsAt: iso(now + 2 * DAY), endsAt: iso(now + 2 * DAY + 60 * MINUTE) });
    await createWindow(a, { title: 'Far', checkIds: [id], startsAt: iso(now + 10 * DAY), endsAt: iso(now + 10 * DAY + MINUTE) });
    await createWindow(a, { title: 'Elsewhere', folders: ['hidden'], startsAt: iso(now - MINUTE), endsAt: iso(now + MINUTE) });
    const res = await fetch(`${srv.url}/status/windows-page.json`);
    assert.equal(res.status, 200);
    const json = (await res.json()) as { maintenanceWindows: { title: string; active: boolean; checkIds: string[] }[]; checks: { status: string }[] };
    assert.deepEqual(
      json.maintenanceWindows.map((w) => [w.title, w.active, w.checkIds]),
      [['Now', true, [id]], ['Soon', false, [id]]],
    );
    assert.equal(json.checks[0].status, 'maintenance');
    const html = await (await fetch(`${srv.url}/status/windows-page`)).text();
    assert.match(html, /Scheduled maintenance/);
    assert.match(html, /Disk swap/);
    assert.doesNotMatch(html, /Elsewhere|Far/);
  });

  test('the tool server: every window operation is a tool', async () => {
    const a = await account();
    const id = await createFastCheck(srv, a.key, `${origin}/window/mcp`);
    const client = new Client({ name: 'vigil-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp/v1`), { requestInit: { headers: { 'x-api-key': a.key } } }));
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const res = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text?: string }[]; structuredContent?: { data: { id: string; active: boolean; title: string } } };
        assert.notEqual(res.isError, true, `${name}: ${res.content[0]?.text}`);
        return res.structuredContent!.data;
      };
      const created = await call('create_maintenance_window', { title: 'via MCP', checkIds: [id], startsAt: iso(clock.now() - MINUTE), endsAt: iso(clock.now() + MINUTE) });
      assert.equal(created.active, true);
      assert.equal((await call('get_maintenance_window', { id: created.id })).title, 'via MCP');
      assert.equal((await call('update_maintenance_window', { id: created.id, title: 'renamed' })).title, 'renamed');
      assert.ok(((await call('list_maintenance_windows', {})) as unknown as { id: string }[]).some((w) => w.id === created.id));
      await call('delete_maintenance_window', { id: created.id });
    } finally {
      await client.close();
    }
  });
});
