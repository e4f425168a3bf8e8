import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import { startServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { engineWorld } from '../helpers/engine-world.js';
import { newAccount, newKey } from './util.js';

/** From a new check: probed up, then two failures (the second an immediate recheck) take it down. */
async function upThenDown(w: Awaited<ReturnType<typeof engineWorld>>): Promise<void> {
  await w.tick();
  w.target.healthy = false;
  await w.next();
  await w.tick();
  assert.equal((await w.get()).status, 'down');
}

describe('engine: scheduling, state and the status endpoint', () => {
  test('a new check is probed at once, then at its interval', async (t) => {
    const { dispatcher, clock, srv, tick, get } = await engineWorld(t);
    await tick();
    assert.equal(dispatcher.calls.length, 1);
    assert.equal(dispatcher.calls[0]!.url, 'http://127.0.0.1:1/');
    assert.equal(dispatcher.calls[0]!.timeoutMs, 3000, 'timeout is the smaller of 30 s and the interval');
    const check = await get();
    assert.equal(check.status, 'up');
    assert.equal(check.lastStatusCode, 200, 'timing fields are synced on a status change');
    await tick();
    assert.equal(dispatcher.calls.length, 1, 'nothing more until the interval passes');
    clock.advance(3000);
    await tick();
    assert.equal(dispatcher.calls.length, 2);
    const live = await get();
    assert.deepEqual(live.lastProbe, { at: new Date(clock.now()).toISOString(), status: 'up', responseTime: 42, region: srv.app.config.region });
    assert.ok(Date.parse(live.lastChecked) < clock.now(), 'the record is not written for a result that changes nothing; lastProbe is live');
  });

  test('failures below the threshold are re-probed at once, then the check goes down', async (t) => {
    const { target, clock, tick, next, get, statusOf } = await engineWorld(t);
    await tick();
    assert.equal((await get()).status, 'up');
    const etag = (await statusOf()).headers.get('etag')!;
    target.healthy = false;
    await next();
    let check = await get();
    assert.equal(check.status, 'up', 'one failure of two needed');
    assert.equal(check.consecutiveFailures, 1);
    let status = await statusOf();
    assert.equal(status.body.data[0].status, 'degraded', 'failures started below the threshold');
    assert.notEqual(status.headers.get('etag'), etag);
    await tick(); // the immediate recheck was scheduled at "now"
    check = await get();
    assert.equal(check.status, 'down');
    assert.equal(check.consecutiveFailures, 2);
    assert.equal(check.lastError, 'Expected status 200, got 500');
    status = await statusOf();
    assert.deepEqual(
      { status: status.body.data[0].status, lastError: status.body.data[0].lastError, total: status.body.meta.total },
      { status: 'offline', lastError: 'Expected status 200, got 500', total: 1 },
    );
    assert.equal(status.body.data[0].lastStatusChange, clock.now());
    assert.deepEqual(status.body.data[0].regions, { primary: 'vps-eu-1', peer: null, regionsTotal: 1, regionsDown: 1, confirmedDown: false });
  });

  test('the ETag holds while nothing changes and a match is 304 with no body', async (t) => {
    const w = await engineWorld(t);
    await upThenDown(w);
    const first = await w.statusOf();
    const etag = first.headers.get('etag')!;
    await w.next(); // still failing: nothing listed changes
    const again = await w.statusOf(etag);
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    assert.equal(again.headers.get('etag'), etag);
    assert.equal((await w.statusOf(`"other", W/${etag}`)).status, 304, 'lists and weak tags match');
  });

  test('recovery goes up and history agrees with the status endpoint', async (t) => {
    const w = await engineWorld(t);
    const { srv, id } = w;
    await w.tick(); // up
    await w.next(); // up
    w.target.healthy = false;
    await w.next(); // down, one of two
    await w.tick(); // down: the immediate recheck
    await w.next(); // down
    w.target.healthy = true;
    await w.next(); // up
    assert.equal((await w.get()).status, 'up');
    assert.equal((await w.statusOf()).body.data[0].status, 'online');
    const history = await srv.request('GET', `/v1/public/checks/${id}/history?limit=100`);
    const statuses = history.body.data.map((e: { status: string }) => e.status);
    assert.deepEqual(statuses, ['up', 'down', 'down', 'down', 'up', 'up'], 'newest first, one row per probe');
    const down = history.body.data[1];
    assert.equal(down.responseTime, null, 'failed probes carry null responseTime');
    assert.equal(down.timing, null);
    assert.deepEqual(history.body.data[0].timing, { dns: 1, connect: 2, tls: 0, ttfb: 30, total: 42 });
    const filtered = await srv.request('GET', `/v1/public/checks/${id}/history?status=down&q=EXPECTED&includeTotal=true`);
    assert.equal(filtered.body.meta.total, 3, 'q is a case-insensitive substring of the error');
  });

  test('pause stops probing, resume probes at once; a behaviour PATCH runs at once, a rename does not', async (t) => {
    const { srv, id, dispatcher, clock, tick, statusOf } = await engineWorld(t);
    await tick();
    await srv.request('POST', `/v1/public/checks/${id}/toggle`, { body: { disabled: true, reason: 'deploy' } });
    assert.equal(srv.app.engine.wheel.has('probe', id), false);
    const calls = dispatcher.calls.length;
    clock.advance(60_000);
    await tick();
    assert.equal(dispatcher.calls.length, calls);
    assert.equal((await statusOf()).body.data[0].status, 'unknown', 'paused maps to unknown');
    await srv.request('POST', `/v1/public/checks/${id}/toggle`, { body: { disabled: false } });
    await tick();
    assert.equal(dispatcher.calls.length, calls + 1, 'resume runs at once');
    await srv.request('PATCH', `/v1/public/checks/${id}`, { body: { name: 'renamed' } });
    await tick();
    assert.equal(dispatcher.calls.length, calls + 1);
    await srv.request('PATCH', `/v1/public/checks/${id}`, { body: { requestHeaders: { 'x-probe': '1' } } });
    await tick();
    assert.equal(dispatcher.calls.length, calls + 2);
    assert.deepEqual(dispatcher.calls.at(-1)!.headers, { 'x-probe': '1' });
  });

  test('a maintenance window that runs out ends with a maintenance_end event at its until', async (t) => {
    const { srv, id, clock, tick, get } = await engineWorld(t);
    await tick();
    const until = clock.now() + 10_000;
    const on = await srv.request('POST', `/v1/public/checks/${id}/maintenance`, { body: { enabled: true, until: new Date(until).toISOString() } });
    assert.equal(on.status, 200);
    clock.advance(15_000);
    await tick();
    const check = await get();
    assert.equal(check.maintenanceMode, false);
    const events = (await srv.request('GET', `/v1/public/checks/${id}/history?limit=10`)).body.data.filter((h: { type: string }) => h.type === 'event');
    assert.deepEqual(events.slice(0, 2).map((e: { status: string; createdAt: string }) => [e.status, e.createdAt]), [
      ['maintenance_end', new Date(until).toISOString()],
      ['maintenance', new Date(until - 10_000).toISOString()],
    ]);
    clock.advance(3000);
    await tick();
    const again = (await srv.request('GET', `/v1/public/checks/${id}/history?limit=10`)).body.data.filter((h: { status: string }) => h.status === 'maintenance_end');
    assert.equal(again.length, 1, 'ended once');
    const off = await srv.request('POST', `/v1/public/checks/${id}/maintenance`, { body: { enabled: false } });
    assert.equal(off.status, 200);
    const after = (await srv.request('GET', `/v1/public/checks/${id}/history?limit=10`)).body.data.filter((h: { status: string }) => h.status === 'maintenance_end');
    assert.equal(after.length, 1, 'switching off a window that already ended records nothing more');
  });

  test('maintenance freezes status and delete unschedules', async (t) => {
    const { srv, id, target, tick, next, get, statusOf } = await engineWorld(t);
    await tick();
    assert.equal((await get()).status, 'up');
    await srv.request('POST', `/v1/public/checks/${id}/maintenance`, { body: { enabled: true } });
    target.healthy = false;
    await next();
    await tick();
    const check = await get();
    assert.equal(check.status, 'up', 'status does not change during maintenance');
    assert.equal(check.maintenanceMode, true);
    assert.equal((await statusOf()).body.data[0].maintenanceMode, true);
    await srv.request('DELETE', `/v1/public/checks/${id}`);
    assert.equal(srv.app.engine.wheel.has('probe', id), false);
    assert.equal(srv.app.liveChecks.get(id), undefined);
  });
});

describe('engine: restart', () => {
  test('every enabled check is rescheduled from the database at its stable phase', async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
    const first = await startServer({}, clock, { dispatcher: new ScriptedDispatcher(), autoTick: false });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await first.request('POST', '/v1/public/checks', { body: { url: `https://s${i}.example.com/` } });
      ids.push(res.body.data.id);
    }
    await first.request('POST', `/v1/public/checks/${ids[2]}/toggle`, { body: { disabled: true } });
    await first.stop(true);
    const second = await startServer({}, clock, { dispatcher: new ScriptedDispatcher(), autoTick: false, dataDir: first.dataDir });
    try {
      const wheel = second.app.engine.wheel;
      assert.equal(wheel.has('probe', ids[0]!), true);
      assert.equal(wheel.has('probe', ids[1]!), true);
      assert.equal(wheel.has('probe', ids[2]!), false, 'paused checks stay paused');
      const due = [ids[0]!, ids[1]!].map((id) => wheel.dueAt('probe', id)!);
      for (const d of due) assert.ok(d >= clock.now() && d < clock.now() + 5 * 60_000, 'within one interval, not all at once');
    } finally {
      await second.stop();
    }
  });
});

describe('status endpoint limits', () => {
  test('6 requests a minute per key, then 429 with Retry-After', async () => {
    const srv = await startServer({}, undefined, { dispatcher: new ScriptedDispatcher(), autoTick: false });
    try {
      for (let i = 0; i < 6; i++) assert.equal((await srv.request('GET', '/v1/public/checks/status')).status, 200);
      const limited = await srv.request('GET', '/v1/public/checks/status');
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      assert.equal(limited.headers.get('ratelimit-remaining'), '0');
      assert.equal((await srv.request('GET', '/v1/public/checks')).status, 200, 'other endpoints keep their own budget');
    } finally {
      await srv.stop();
    }
  });

  test('12 a minute per account across keys; a refused request spends neither budget', async () => {
    const srv = await startServer({}, undefined, { dispatcher: new ScriptedDispatcher(), autoTick: false });
    try {
      const a = await newAccount(srv, { tier: 'pro', scopes: ['checks:read'] });
      const keys = [a.key, (await newKey(srv, a.accountId, { scopes: ['checks:read'] })).key, (await newKey(srv, a.accountId, { scopes: ['checks:read'] })).key];
      const status = async (key: string) => (await srv.request('GET', '/v1/public/checks/status', { key })).status;
      const first: number[] = [];
      for (let i = 0; i < 9; i++) first.push(await status(keys[0]!)); // six served, three refused by the key's own limit
      assert.deepEqual(first, [200, 200, 200, 200, 200, 200, 429, 429, 429]);
      const second: number[] = [];
      for (let i = 0; i < 7; i++) second.push(await status(keys[1]!));
      assert.deepEqual(second, [200, 200, 200, 200, 200, 200, 429], 'the account still had six of its twelve');
      assert.equal(await status(keys[2]!), 429, 'twelve served: the account budget is spent for every key');
    } finally {
      await srv.stop();
    }
  });
});
