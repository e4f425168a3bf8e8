import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/fixtures/probe-task.js';
import { rawRequest } from './util.js';

/**
 * The status page with nothing faked: the wheel on real time probes a real local target, and
 * when the target goes down the cached page is purged by the status change itself, so the
 * very next request after the API reports the outage shows it. Polls are bounded (20 s).
 */
let healthy = true;
let target: Server;
let srv: TestServer;
let checkId: string;

before(async () => {
  target = createServer((_req, res) => {
    res.writeHead(healthy ? 200 : 503);
    res.end(healthy ? 'ok' : 'down');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  srv = await startServer({ plans: { pro: { minCheckIntervalMinutes: 0.05 } }, rateLimits: { perKeyPerMinute: 1_000_000 } });
  const check = await srv.request('POST', '/v1/public/checks', {
    body: { url: `http://127.0.0.1:${(target.address() as AddressInfo).port}/`, name: 'API', checkFrequency: 0.05, downConfirmationAttempts: 1 },
  });
  assert.equal(check.status, 201);
  checkId = check.body.data.id;
  const page = await srv.request('POST', '/v1/public/status-pages', { body: { slug: 'live', title: 'Live', checkIds: [checkId] } });
  assert.equal(page.status, 201);
});

after(async () => {
  await srv.stop();
  target.close();
});

const page = () => rawRequest(srv, 'GET', '/status/live', {});
const apiStatus = async () => (await srv.request('GET', `/v1/public/checks/${checkId}`)).body.data.status as string;
const shows = (status: string) => (res: { text: string }) => res.text.includes(`data-status="${status}"`);
/** Bounded polls: 20 s, far past the 3 s probe interval. */
const until = (condition: () => Promise<boolean>, what: string) => waitFor(condition, what, 20_000);

test('a target that goes down shows on the cached page as soon as the status changes', async () => {
  await until(async () => shows('up')(await page()), 'the page to show the check up');
  const up = await page();
  // The page is cached now: the same ETag again is a 304.
  const cached = await rawRequest(srv, 'GET', '/status/live', { 'if-none-match': up.headers.get('etag')! });
  assert.equal(cached.status, 304);

  healthy = false;
  await until(async () => (await apiStatus()) === 'down', 'the API to report the check down');
  const after = await page();
  assert.ok(shows('down')(after), 'the first page request after the change shows the outage');
  assert.match(after.text, /data-overall="major_outage"/);
  const badge = await rawRequest(srv, 'GET', `/badge/${checkId}/status.json`, {});
  assert.equal(badge.body.message, 'down');
  const feed = await rawRequest(srv, 'GET', '/status/live.atom', {});
  assert.match(feed.text, /<entry><id>[^<]+<\/id><title>API is down<\/title>/, 'the feed\'s newest entry is the outage');

  healthy = true;
  await until(async () => (await apiStatus()) === 'up', 'the API to report the check up again');
  const recovered = await page();
  assert.ok(shows('up')(recovered));
  assert.match(recovered.text, /resolved (after|in under a minute)/, 'the outage is listed as a resolved incident');
});

test('/readyz is ready while the engine ticks and the store takes writes', async () => {
  const res = await rawRequest(srv, 'GET', '/readyz', {});
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { status: 'ready', checks: { store: 'ok', engine: 'ok' } });
});
