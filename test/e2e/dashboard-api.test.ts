import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { ManualClock } from '../../src/domain/clock.js';
import { startServer, send, type TestServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { assertError, newAccount, newKey } from './util.js';

/** Requests with a session cookie instead of a key; mutations send the server's own Origin unless told otherwise. */
function withCookie(srv: TestServer, cookie: string) {
  return (method: string, path: string, opts: { body?: unknown; origin?: string | null } = {}) => {
    const headers: Record<string, string> = { cookie };
    const origin = opts.origin === undefined ? srv.app.config.publicUrl : opts.origin;
    if (origin !== null && method !== 'GET') headers['origin'] = origin;
    return send(srv.url, '', method, path, { key: null, body: opts.body, headers });
  };
}

async function signIn(srv: TestServer, body: Record<string, string>) {
  const res = await send(srv.url, '', 'POST', '/v1/public/sessions', { key: null, body });
  const cookie = /^(vigil_session=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';
  return { res, cookie };
}

type LiveEvent = { event: string; data: unknown };

/**
 * Reads server-sent events until `until` says stop or the stream ends (at most 10 s, so a missing
 * event fails the test rather than hanging it). `subscribed` resolves at the stream's `hello`,
 * written once the server has registered the listener: changes made after it are pushed.
 */
function readEvents(url: string, cookie: string, until: (events: LiveEvent[]) => boolean) {
  let heard: () => void = () => {};
  const subscribed = new Promise<void>((resolve) => (heard = resolve));
  const finished = new Promise<LiveEvent[]>((resolve, reject) => {
    const events: LiveEvent[] = [];
    const limit = setTimeout(() => req.destroy(), 10_000);
    const req = httpRequest(`${url}/v1/public/live`, { headers: { cookie } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`live answered ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (event) events.push({ event, data: data ? JSON.parse(data) : null });
          if (event === 'hello') heard();
          if (until(events)) {
            clearTimeout(limit);
            req.destroy();
            resolve(events);
          }
        }
      });
      res.on('end', () => resolve(events));
    });
    req.on('error', (err) => (err.message === 'socket hang up' ? resolve(events) : reject(err)));
    req.end();
  });
  // A stream that ends before its hello lets the waiter go on; the events then say what happened.
  void finished.then(heard, heard);
  return { subscribed, events: finished };
}

describe('dashboard API: sessions, login links, summaries, series, live stream, assets', { timeout: 60_000 }, () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 30));
  let healthy = true;
  const dispatcher = new ScriptedDispatcher(() => (healthy ? { ok: true } : { ok: false }), () => clock.now());
  let srv: TestServer;

  before(async () => {
    srv = await startServer({ plans: { pro: { minCheckIntervalMinutes: 0.05 } } }, clock, { dispatcher, autoTick: false });
  });
  after(() => srv.stop());

  const tick = async () => {
    srv.app.engine.tick();
    await srv.app.engine.idle();
  };

  test('an API key opens a session: HttpOnly, SameSite=Strict cookie with the key’s scopes', async () => {
    const { res, cookie } = await signIn(srv, { apiKey: srv.adminKey });
    assert.equal(res.status, 201);
    const setCookie = res.headers.get('set-cookie')!;
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Strict/);
    assert.doesNotMatch(setCookie, /Secure/, 'http public URL: no Secure flag');
    assert.equal(res.body.data.via, 'api_key');
    assert.deepEqual(res.body.data.scopes, ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write']);
    const me = await withCookie(srv, cookie)('GET', '/v1/public/account');
    assert.equal(me.status, 200);
    assert.equal(me.body.data.tier, 'pro', me.text);
    assert.equal(me.body.data.scopes.length, 5);
  });

  test('sign-in refuses a bad key, both fields, or neither, with a 400 and no cookie', async () => {
    for (const body of [{ apiKey: 'vigil_live_nope' }, {}, { apiKey: srv.adminKey, loginToken: 'vl_x' }]) {
      const { res } = await signIn(srv, body as Record<string, string>);
      assertError(res, 400);
      assert.equal(res.headers.get('set-cookie'), null);
    }
  });

  test('a change made with the cookie needs the server’s Origin; a read does not', async () => {
    const { cookie } = await signIn(srv, { apiKey: srv.adminKey });
    const call = withCookie(srv, cookie);
    const body = { url: 'http://127.0.0.1:9/origin', checkFrequency: 5 };
    assertError(await call('POST', '/v1/public/checks', { body, origin: null }), 403, /Origin/);
    assertError(await call('POST', '/v1/public/checks', { body, origin: 'https://evil.example' }), 403, /Origin/);
    const created = await send(srv.url, '', 'POST', '/v1/public/checks', {
      key: null, body, headers: { cookie, origin: srv.app.config.publicUrl, 'idempotency-key': 'origin-ok' },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal((await call('GET', `/v1/public/checks/${created.body.data.id}`)).status, 200);
    assert.equal((await call('DELETE', `/v1/public/checks/${created.body.data.id}`)).status, 200);
  });

  test('a restricted key’s session sees only its checks, in the list, the summaries and the live stream', async () => {
    const owner = await newAccount(srv, { tier: 'pro' });
    const mine = await send(srv.url, owner.key, 'POST', '/v1/public/checks', { body: { url: 'http://127.0.0.1:9/mine', checkFrequency: 5 } });
    const other = await send(srv.url, owner.key, 'POST', '/v1/public/checks', { body: { url: 'http://127.0.0.1:9/other', checkFrequency: 5 } });
    const restricted = await newKey(srv, owner.accountId, { scopes: ['checks:read'], checkIds: [mine.body.data.id] });
    const { res, cookie } = await signIn(srv, { apiKey: restricted.key });
    assert.deepEqual(res.body.data.access, { checkIds: [mine.body.data.id], folders: [] });
    const call = withCookie(srv, cookie);
    const summary = await call('GET', '/v1/public/checks/summary');
    assert.deepEqual(summary.body.data.map((r: { id: string }) => r.id), [mine.body.data.id]);
    assertError(await call('GET', `/v1/public/checks/${other.body.data.id}`), 403);
    assertError(await call('POST', '/v1/public/checks', { body: { url: 'http://127.0.0.1:9/x' } }), 403, /scope/);
    // Live: a change to the other check is not pushed; one to its own check is.
    const { subscribed, events } = readEvents(srv.url, cookie, (e) => e.some((x) => x.event === 'check'));
    await subscribed;
    await send(srv.url, owner.key, 'PATCH', `/v1/public/checks/${other.body.data.id}`, { body: { name: 'other renamed' } });
    await send(srv.url, owner.key, 'PATCH', `/v1/public/checks/${mine.body.data.id}`, { body: { name: 'mine renamed' } });
    const got = (await events).filter((e) => e.event === 'check');
    assert.deepEqual(got.map((e) => (e.data as { name: string }).name), ['mine renamed']);
  });

  test('a folder-restricted key’s stream hears of deletions in its folders only', async () => {
    const owner = await newAccount(srv, { tier: 'pro' });
    const create = async (folder: string) =>
      (await send(srv.url, owner.key, 'POST', '/v1/public/checks', { body: { url: `http://127.0.0.1:9/${folder}`, checkFrequency: 5, folder } })).body.data.id as string;
    const inside = await create('web');
    const outside = await create('billing');
    const restricted = await newKey(srv, owner.accountId, { scopes: ['checks:read'], folders: ['web'] });
    const { cookie } = await signIn(srv, { apiKey: restricted.key });
    const { subscribed, events } = readEvents(srv.url, cookie, (e) => e.some((x) => x.event === 'removed'));
    await subscribed;
    assert.equal((await send(srv.url, owner.key, 'DELETE', `/v1/public/checks/${outside}`)).status, 200);
    assert.equal((await send(srv.url, owner.key, 'DELETE', `/v1/public/checks/${inside}`)).status, 200);
    const removed = (await events).filter((e) => e.event === 'removed').map((e) => (e.data as { id: string }).id);
    assert.deepEqual(removed, [inside], 'the deletion outside its folders is not told');
  });

  test('a session ends when its key is revoked, disabled or expires', async () => {
    const owner = await newAccount(srv, { tier: 'pro' });
    const revoked = await newKey(srv, owner.accountId);
    const disabled = await newKey(srv, owner.accountId);
    const expiring = await newKey(srv, owner.accountId, { expiresAt: new Date(clock.now() + 60_000).toISOString() });
    const sessions = await Promise.all([revoked, disabled, expiring].map((k) => signIn(srv, { apiKey: k.key })));
    for (const s of sessions) assert.equal((await withCookie(srv, s.cookie)('GET', '/v1/public/checks/summary')).status, 200);
    await srv.app.services.accounts.accounts.revokeKey(revoked.id);
    await srv.app.services.accounts.accounts.setKeyDisabled(disabled.id, true);
    clock.advance(61_000);
    const [r, d, e] = await Promise.all(sessions.map((s) => withCookie(srv, s.cookie)('GET', '/v1/public/checks/summary')));
    assertError(r!, 401, /revoked/);
    assertError(d!, 401, /disabled/);
    assertError(e!, 401, /expired/);
    const { res } = await signIn(srv, { apiKey: revoked.key });
    assertError(res, 400, /revoked/);
  });

  test('sign out ends the session and clears the cookie', async () => {
    const { cookie } = await signIn(srv, { apiKey: srv.adminKey });
    const call = withCookie(srv, cookie);
    const out = await call('DELETE', '/v1/public/sessions/current');
    assert.equal(out.status, 204);
    assert.match(out.headers.get('set-cookie')!, /Max-Age=0/);
    assertError(await call('GET', '/v1/public/sessions/current'), 401, /sign in again/);
  });

  test('a login link signs in once, within 15 minutes, with every scope of its account', async () => {
    const owner = await newAccount(srv, { tier: 'pro' });
    const link = await srv.app.services.people.sessions.createLoginLink(owner.accountId);
    assert.ok(link.url.startsWith(`${srv.app.config.dashboardUrl}#login=vl_`), link.url);
    const token = link.url.split('#login=')[1]!;
    const { res, cookie } = await signIn(srv, { loginToken: token });
    assert.equal(res.status, 201, res.text);
    // The account's owner signs in (issue 28): a member session with the owner's every scope.
    assert.equal(res.body.data.via, 'member');
    assert.equal(res.body.data.user.role, 'owner');
    assert.equal(res.body.data.account.id, owner.accountId);
    assert.equal(res.body.data.access, null);
    assert.equal((await withCookie(srv, cookie)('GET', '/v1/public/alerts/webhooks')).status, 200);
    assertError((await signIn(srv, { loginToken: token })).res, 400, /already used/);

    const late = (await srv.app.services.people.sessions.createLoginLink(owner.accountId)).url.split('#login=')[1]!;
    clock.advance(15 * 60_000 + 1);
    assertError((await signIn(srv, { loginToken: late })).res, 400, /15 minutes/);
    // The admin account by default; an unknown account is a 404 like the CLI's other commands.
    assert.equal((await srv.app.services.people.sessions.createLoginLink(undefined)).email, 'admin@localhost');
    await assert.rejects(async () => srv.app.services.people.sessions.createLoginLink('nobody@example.com'), /nobody@example.com/);
  });

  test('summaries carry status, last response time, 24 h uptime and an hourly sparkline from rollups; series has the phases', async () => {
    const created = await srv.request('POST', '/v1/public/checks', { body: { url: 'http://127.0.0.1:9/probed', checkFrequency: 0.05, name: 'probed', downConfirmationAttempts: 1, immediateRecheckEnabled: false } });
    const id = created.body.data.id;
    await tick();
    healthy = false;
    clock.advance(3_000);
    await tick();
    healthy = true;
    clock.advance(3_000);
    await tick();
    const summary = await srv.request('GET', '/v1/public/checks/summary');
    const row = summary.body.data.find((r: { id: string }) => r.id === id);
    assert.equal(row.name, 'probed');
    assert.equal(row.lastResponseTime, 42);
    assert.ok(row.uptime24h > 0 && row.uptime24h < 100, `uptime ${row.uptime24h}`);
    assert.equal(row.sparkline.length, 24);
    assert.equal(row.sparkline[23], 42);
    assert.equal(summary.body.meta.total, summary.body.data.length);

    const series = await srv.request('GET', `/v1/public/checks/${id}/series?range=1h`);
    assert.equal(series.status, 200, series.text);
    const d = series.body.data;
    assert.equal(d.step, 60_000);
    assert.equal(d.at.length, 60);
    for (const col of ['responseTime', 'dns', 'connect', 'tls', 'ttfb', 'uptime', 'total']) assert.equal(d[col].length, 60, col);
    const last = d.responseTime.findLastIndex((v: number | null) => v !== null);
    assert.equal(d.responseTime[last], 42);
    assert.equal(d.ttfb[last], 30);
    assertError(await srv.request('GET', `/v1/public/checks/${id}/series?range=2h`), 400, /range/);
    const days = await srv.request('GET', `/v1/public/checks/${id}/series?range=90d`);
    assert.equal(days.body.data.at.length, 90);
    assert.equal(days.body.data.incidents.length, 1, 'the failed probe took it down once');
    assert.equal(days.body.data.incidents[0].durationMs, 3_000);
    assert.equal(days.body.data.incidents[0].error, 'Expected status 200, got 500');
  });

  test('the live stream pushes a check’s new row when its status changes, with no request from the client', async () => {
    const created = await srv.request('POST', '/v1/public/checks', { body: { url: 'http://127.0.0.1:9/live', checkFrequency: 0.05, downConfirmationAttempts: 1, immediateRecheckEnabled: false } });
    const id = created.body.data.id;
    await tick();
    const { cookie } = await signIn(srv, { apiKey: srv.adminKey });
    const isDown = (x: { event: string; data: unknown }) => x.event === 'check' && (x.data as { id: string }).id === id && (x.data as { status: string }).status === 'down';
    const { subscribed, events } = readEvents(srv.url, cookie, (e) => e.some(isDown));
    await subscribed;
    healthy = false;
    clock.advance(3_000);
    await tick();
    const got = await events;
    assert.equal(got[0]!.event, 'hello');
    const down = got.find(isDown)!.data as { id: string; status: string; lastError: string };
    assert.equal(down.lastError, 'Expected status 200, got 500');
    healthy = true;
  });

  test('the dashboard page and its hashed bundles are served precompressed; bundles are immutable', async () => {
    const page = await fetch(`${srv.url}/dashboard`, { headers: { 'accept-encoding': 'br' } });
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-encoding'), 'br');
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    assert.match(page.headers.get('content-security-policy')!, /script-src 'self'(;|$)/);
    const html = await page.text();
    const js = /assets\/(main-[\w]+\.js)/.exec(html)?.[1];
    assert.ok(js, html);
    for (const [accept, coding] of [['gzip', 'gzip'], ['br, gzip', 'br'], ['identity', null]] as const) {
      const res = await fetch(`${srv.url}/dashboard/assets/${js}`, { headers: { 'accept-encoding': accept } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-encoding'), coding);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.match(res.headers.get('content-type')!, /javascript/);
      assert.ok((await res.text()).length > 1000);
    }
    assert.equal((await fetch(`${srv.url}/dashboard/assets/nope.js`)).status, 404);
  });

  test('sessions, summaries, series and live are in the OpenAPI document', async () => {
    const doc = (await srv.request('GET', '/v1/openapi.json', { key: null })).body;
    for (const path of ['/v1/public/sessions', '/v1/public/sessions/current', '/v1/public/checks/summary', '/v1/public/checks/{id}/series', '/v1/public/live']) {
      assert.ok(doc.paths[path], path);
    }
    assert.equal(doc.paths['/dashboard'], undefined);
  });
});
