import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { waitFor } from '../helpers/fixtures/probe-task.js';

const MIN = 60_000;

async function ping(srv: TestServer, pingUrl: string, suffix = '', init: RequestInit = {}) {
  const path = new URL(pingUrl).pathname + suffix;
  const res = await fetch(srv.url + path, init);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('heartbeat ingest', () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
  let srv: TestServer;
  const tick = async () => {
    srv.app.engine.tick();
    await srv.app.heartbeats.idle();
  };

  before(async () => {
    srv = await startServer({}, clock, { dispatcher: new ScriptedDispatcher(), autoTick: false });
  });
  after(() => srv.stop());

  /** Each test has its own heartbeat (5 min, 30 s grace), so any one runs alone or in any order; `up` pings it once. */
  async function heartbeat(opts: { up?: boolean } = {}) {
    const created = await srv.request('POST', '/v1/public/checks', { body: { type: 'heartbeat', checkFrequency: 5, gracePeriod: 30 } });
    assert.equal(created.status, 201);
    const id = created.body.data.id as string;
    const get = async () => (await srv.request('GET', `/v1/public/checks/${id}`)).body.data;
    const history = async () => (await srv.request('GET', `/v1/public/checks/${id}/history?limit=100`)).body.data;
    const pingUrl = (await get()).url as string;
    if (opts.up) assert.equal((await ping(srv, pingUrl)).status, 200);
    return { id, pingUrl, get, history };
  }

  test('a heartbeat needs no url and gets a 64-hex ping URL on heartbeatUrl', async () => {
    const { pingUrl, get } = await heartbeat();
    assert.match(pingUrl, new RegExp(`^${srv.app.config.heartbeatUrl}/heartbeat/[0-9a-f]{64}$`));
    const check = await get();
    assert.equal(check.status, 'pending');
    assert.equal(check.type, 'heartbeat');
  });

  test('pending: no deadline and no alert before the first ping', async () => {
    const { id, get } = await heartbeat();
    assert.equal(srv.app.engine.wheel.has('deadline', id), false);
    clock.advance(60 * MIN);
    await tick();
    assert.equal((await get()).status, 'pending');
  });

  test('a ping with metadata goes up, truncates long texts and is in history', async () => {
    const { pingUrl, get, history } = await heartbeat();
    const res = await ping(srv, pingUrl, '', {
      method: 'POST',
      body: JSON.stringify({ status: 's'.repeat(250), duration: 1234, message: 'm'.repeat(1500) }),
    });
    assert.deepEqual(res, { status: 200, body: { ok: true } });
    assert.equal((await get()).status, 'up');
    const [entry] = await history();
    assert.equal(entry.type, 'ping');
    assert.equal(entry.status, 'up');
    assert.equal(entry.details.status.length, 200);
    assert.equal(entry.details.message.length, 1000);
    assert.equal(entry.details.duration, 1234);
    // Characters are counted as code points: an emoji is never cut in half.
    await ping(srv, pingUrl, '', { method: 'POST', body: JSON.stringify({ status: `a${'🚀'.repeat(250)}` }) });
    const [emoji] = await history();
    assert.equal(emoji.details.status, `a${'🚀'.repeat(199)}`);
  });

  test('the record shows the last ping live (lastProbe); a job-start ping is not a result', async () => {
    const { pingUrl, get } = await heartbeat();
    assert.equal((await get()).lastProbe, null, 'nothing seen yet');
    assert.equal((await ping(srv, pingUrl, '')).status, 200);
    const at = new Date(clock.now()).toISOString();
    clock.advance(MIN);
    assert.equal((await ping(srv, pingUrl, '/start')).status, 200);
    assert.deepEqual((await get()).lastProbe, { at, status: 'up', responseTime: null, region: srv.app.config.region });
  });

  test('a HEAD request to the ping URL is a ping too', async () => {
    const { pingUrl, history } = await heartbeat();
    const before = (await history()).length;
    const res = await fetch(new URL(pingUrl).pathname.replace(/^/, srv.url), { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), '');
    assert.equal((await history()).length, before + 1);
  });

  test('invalid JSON is ignored but the ping is recorded; GET works too', async () => {
    const { pingUrl, history } = await heartbeat();
    const before = (await history()).length;
    assert.equal((await ping(srv, pingUrl, '', { method: 'POST', body: '{not json' })).status, 200);
    assert.equal((await ping(srv, pingUrl)).status, 200);
    assert.equal((await history()).length, before + 2);
  });

  test('unknown, malformed and wrong-length tokens are 404 {ok:false, error:"not_found"}', async () => {
    const { pingUrl } = await heartbeat();
    for (const token of ['0'.repeat(64), 'nothex', 'a'.repeat(63), `${new URL(pingUrl).pathname.split('/').pop()}0`]) {
      const res = await fetch(`${srv.url}/heartbeat/${token}`);
      assert.equal(res.status, 404);
      assert.deepEqual(await res.json(), { ok: false, error: 'not_found' });
    }
    assert.equal((await ping(srv, pingUrl, '/256')).status, 404, 'exit codes stop at 255');
    assert.equal((await ping(srv, pingUrl, '/bogus')).status, 404);
  });

  test('pings leave the wheel entry in place: the early entry re-arms to the deadline of the last ping, then misses', async () => {
    const { id, pingUrl, get } = await heartbeat({ up: true });
    const first = srv.app.engine.wheel.dueAt('deadline', id)!;
    assert.equal(first, clock.now() + 5 * MIN + 30_000);
    clock.advance(3 * MIN);
    assert.equal((await ping(srv, pingUrl)).status, 200);
    const last = clock.now();
    assert.equal(srv.app.engine.wheel.dueAt('deadline', id), first, 'a ping does not move the entry');
    clock.set(first + 100);
    await tick();
    assert.equal((await get()).status, 'up', 'the first deadline no longer counts');
    assert.equal(srv.app.engine.wheel.dueAt('deadline', id), last + 5 * MIN + 30_000, 're-armed from the last ping');
    clock.set(last + 5 * MIN + 31_000);
    await tick();
    assert.equal((await get()).status, 'down');
    assert.equal(srv.app.engine.wheel.has('deadline', id), false, 'down: nothing armed until the next ping');
  });

  test('a ping that changes no status purges no rendered page or badge; one that does purges them', async () => {
    const { id, pingUrl } = await heartbeat({ up: true });
    const purged: string[] = [];
    const cache = srv.app.pageCache;
    const purgeCheck = cache.purgeCheck.bind(cache);
    cache.purgeCheck = (checkId) => {
      if (checkId === id) purged.push(checkId);
      purgeCheck(checkId);
    };
    try {
      assert.equal((await ping(srv, pingUrl)).status, 200);
      assert.equal((await ping(srv, pingUrl)).status, 200);
      assert.equal((await ping(srv, pingUrl, '/fail')).status, 200);
      await waitFor(async () => purged.length > 0, 'the status change to purge', 5_000);
      assert.equal(purged.length, 1, 'only the ping that took it down');
    } finally {
      cache.purgeCheck = purgeCheck;
    }
  });

  test('a missed deadline (interval + grace) marks it down; the next ping brings it up', async () => {
    const { pingUrl, get, history } = await heartbeat({ up: true });
    clock.advance(5 * MIN + 29_000);
    await tick();
    assert.equal((await get()).status, 'up', 'still inside the grace period');
    clock.advance(2_000);
    await tick();
    const check = await get();
    assert.equal(check.status, 'down');
    assert.equal(check.lastError, 'No ping within 5 min');
    const [missed] = await history();
    assert.deepEqual([missed.type, missed.status, missed.details], ['event', 'down', { event: 'missed', error: 'No ping within 5 min' }]);
    clock.advance(60_000);
    await tick();
    assert.equal((await history())[0].id, missed.id, 'one event for the change, not one per tick');
    await ping(srv, pingUrl);
    assert.equal((await get()).status, 'up');
  });

  test('/start then a ping records the run duration; /fail and non-zero exit codes go down at once', async () => {
    const { pingUrl, get, history } = await heartbeat({ up: true });
    await ping(srv, pingUrl, '/start');
    clock.advance(4_000);
    await ping(srv, pingUrl, '/0');
    const [done, started] = await history();
    assert.equal(started.status, 'start');
    assert.equal(done.details.duration, 4000);
    assert.equal(done.details.exitCode, 0);
    await ping(srv, pingUrl, '/fail');
    assert.equal((await get()).status, 'down');
    await ping(srv, pingUrl);
    await ping(srv, pingUrl, '/3', { method: 'POST', body: JSON.stringify({ message: 'disk full' }) });
    const check = await get();
    assert.equal(check.status, 'down');
    assert.equal(check.lastError, 'disk full');
    await ping(srv, pingUrl);
  });

  test('pings to a paused check are recorded but change nothing', async () => {
    const { id, pingUrl, get, history } = await heartbeat({ up: true });
    await srv.request('POST', `/v1/public/checks/${id}/toggle`, { body: { disabled: true } });
    const before = (await history()).length;
    assert.equal((await ping(srv, pingUrl, '/fail')).status, 200);
    assert.equal((await history()).length, before + 1);
    assert.equal((await get()).status, 'paused');
    clock.advance(60 * MIN);
    await tick();
    await srv.request('POST', `/v1/public/checks/${id}/toggle`, { body: { disabled: false } });
    assert.equal((await get()).status, 'up', 'the failed ping while paused changed nothing');
  });

  test('regenerate-token: new URL at once, the old token 404 from the next request', async () => {
    const { id, pingUrl, get } = await heartbeat({ up: true });
    const res = await srv.request('POST', `/v1/public/checks/${id}/regenerate-token`);
    assert.equal(res.status, 200);
    const fresh = res.body.data.pingUrl as string;
    assert.notEqual(fresh, pingUrl);
    assert.equal((await ping(srv, pingUrl)).status, 404);
    assert.equal((await ping(srv, fresh)).status, 200);
    assert.equal((await get()).url, fresh);
  });

  test('regenerate-token on a probe check is 400, on an unknown check 404', async () => {
    const probe = await srv.request('POST', '/v1/public/checks', { body: { url: 'https://example.com/hb-other' } });
    assert.equal((await srv.request('POST', `/v1/public/checks/${probe.body.data.id}/regenerate-token`)).status, 400);
    assert.equal((await srv.request('POST', '/v1/public/checks/chk_nope/regenerate-token')).status, 404);
  });

  test('deleting the check invalidates its token', async () => {
    const { id, pingUrl } = await heartbeat({ up: true });
    await srv.request('DELETE', `/v1/public/checks/${id}`);
    assert.equal((await ping(srv, pingUrl)).status, 404);
  });
});

describe('heartbeat uptime', () => {
  test('pings count towards uptime as in the stats: written with each status change and at least every 10 minutes', async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
    const srv = await startServer({}, clock, { dispatcher: new ScriptedDispatcher(), autoTick: false });
    try {
      const created = await srv.request('POST', '/v1/public/checks', { body: { type: 'heartbeat', checkFrequency: 5 } });
      const id = created.body.data.id as string;
      const get = async () => (await srv.request('GET', `/v1/public/checks/${id}`)).body.data;
      const pingUrl = (await get()).url as string;
      for (const suffix of ['', '', '', '/fail']) {
        clock.advance(1_000);
        await ping(srv, pingUrl, suffix);
      }
      assert.equal((await get()).uptime, 75, 'three up, one down: written with the change to down');
      clock.advance(1_000);
      await ping(srv, pingUrl);
      assert.equal((await get()).uptime, 80);
      clock.advance(1_000);
      await ping(srv, pingUrl); // no change of status: counted, written later
      clock.advance(10 * MIN);
      await ping(srv, pingUrl);
      assert.equal((await get()).uptime, (6 / 7) * 100, 'ten minutes on, the counters reach the record');
      const stats = await srv.request('GET', `/v1/public/checks/${id}/stats?from=2026-06-01T00:00:00Z&to=2026-06-02T00:00:00Z`);
      assert.deepEqual([stats.body.data.uptime.totalChecks, stats.body.data.uptime.successfulChecks], [7, 6]);
    } finally {
      await srv.stop();
    }
  });
});

describe('heartbeat schedules', () => {
  test('cron in a non-UTC zone across a DST change, with grace', async () => {
    // Europe/Berlin leaves CET for CEST on 2026-03-29: 02:30 local does not exist that day.
    const clock = new ManualClock(Date.parse('2026-03-28T01:30:10Z')); // 02:30:10 CET
    const srv = await startServer({}, clock, { dispatcher: new ScriptedDispatcher(), autoTick: false });
    try {
      const created = await srv.request('POST', '/v1/public/checks', {
        body: { type: 'heartbeat', schedule: '30 2 * * *', timezone: 'Europe/Berlin', gracePeriod: 600 },
      });
      assert.equal(created.status, 201);
      const id = created.body.data.id;
      const url = (await srv.request('GET', `/v1/public/checks/${id}`)).body.data.url;
      await ping(srv, url);
      const due = srv.app.engine.wheel.dueAt('deadline', id)!;
      // croner moves the missing 02:30 to 03:00 CEST = 01:00 UTC; plus 10 minutes of grace.
      assert.equal(new Date(due).toISOString(), '2026-03-29T01:10:00.000Z');
      clock.set(due - 1000);
      srv.app.engine.tick();
      await srv.app.heartbeats.idle();
      assert.equal((await srv.request('GET', `/v1/public/checks/${id}`)).body.data.status, 'up');
      clock.set(due + 100);
      srv.app.engine.tick();
      await srv.app.heartbeats.idle();
      assert.equal((await srv.request('GET', `/v1/public/checks/${id}`)).body.data.status, 'down');
    } finally {
      await srv.stop();
    }
  });

  test('invalid cron and schedule on a probe check are 400; heartbeat interval follows the plan', async () => {
    const srv = await startServer({}, undefined, { dispatcher: new ScriptedDispatcher(), autoTick: false });
    try {
      const bad = await srv.request('POST', '/v1/public/checks', { body: { type: 'heartbeat', schedule: '99 * * *' } });
      assert.equal(bad.status, 400);
      assert.match(bad.body.error.message, /schedule is not a valid cron expression/);
      const probe = await srv.request('POST', '/v1/public/checks', { body: { url: 'https://example.com', schedule: '* * * * *' } });
      assert.equal(probe.status, 400);
      const tooFast = await srv.request('POST', '/v1/public/checks', { body: { type: 'heartbeat', checkFrequency: 0.2 } });
      assert.equal(tooFast.status, 400, 'pro allows 15 s, not 12 s');
      assert.equal((await srv.request('POST', '/v1/public/checks', { body: { type: 'heartbeat', checkFrequency: 0.25 } })).status, 201);
    } finally {
      await srv.stop();
    }
  });
});
