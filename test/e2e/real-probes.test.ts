import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startServer, type TestServer } from '../helpers/server.js';
import { startHttpFixture } from '../helpers/fixtures/http-server.js';
import { selfSignedCert } from '../helpers/fixtures/tls-cert.js';

/**
 * The whole path with nothing faked: the wheel on real time, probe threads probing a real
 * local HTTP target over fresh connections, the state machine, the batched writer, and the
 * status and history endpoints agreeing. Bounded: polls stop after 20 s.
 */
let healthy = true;
let target: Server;
let srv: TestServer;
let id: string;

before(async () => {
  target = createServer((_req, res) => {
    res.writeHead(healthy ? 200 : 503, { 'content-type': 'text/plain' });
    res.end(healthy ? 'all systems go' : 'maintenance in progress');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  srv = await startServer({
    plans: { pro: { minCheckIntervalMinutes: 0.05 } },
    rateLimits: { statusPerKeyPerMinute: 1000, statusPerAccountPerMinute: 1000 },
  });
  const res = await srv.request('POST', '/v1/public/checks', {
    body: {
      url: `http://127.0.0.1:${(target.address() as AddressInfo).port}/health`,
      checkFrequency: 0.05,
      downConfirmationAttempts: 2,
      responseValidation: { containsText: ['systems go'] },
    },
  });
  assert.equal(res.status, 201);
  id = res.body.data.id;
});

after(async () => {
  await srv.stop();
  target.close();
});

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const check = async () => (await srv.request('GET', `/v1/public/checks/${id}`)).body.data;
const status = async () => (await srv.request('GET', '/v1/public/checks/status')).body.data[0];

test('a 3 s check goes up, then down after downConfirmationAttempts, then up again', async () => {
  const up = await until(check, (c) => c.status === 'up', 'up');
  assert.equal(up.lastStatusCode, 200);
  assert.equal((await status()).status, 'online');

  healthy = false;
  const down = await until(check, (c) => c.status === 'down', 'down');
  assert.equal(down.consecutiveFailures, 2);
  assert.match(down.lastError, /503/);
  const offline = await status();
  assert.equal(offline.status, 'offline');
  assert.equal(offline.lastError, down.lastError);

  healthy = true;
  await until(check, (c) => c.status === 'up', 'up again');
  assert.equal((await status()).status, 'online');

  const history = (await srv.request('GET', `/v1/public/checks/${id}/history?limit=100`)).body.data as Array<Record<string, any>>;
  const statuses = history.map((h) => h.status).reverse();
  const firstDown = statuses.indexOf('down');
  assert.ok(firstDown > 0, 'up before down');
  assert.deepEqual(statuses.slice(firstDown, firstDown + 2), ['down', 'down'], 'two failures confirmed the outage');
  assert.equal(statuses.at(-1), 'up');
  const ok = history.find((h) => h.status === 'up')!;
  for (const phase of ['dns', 'connect', 'tls', 'ttfb', 'total']) assert.equal(typeof ok.timing[phase], 'number', phase);
  assert.ok(ok.timing.total >= ok.timing.ttfb);
  assert.equal(history.find((h) => h.status === 'down')!.statusCode, 503);
});

test('an https target with a self-signed certificate: ssl.valid false with the reason, certificate details filled', async () => {
  const tlsTarget = await startHttpFixture(await selfSignedCert());
  try {
    const res = await srv.request('POST', '/v1/public/checks', { body: { url: `${tlsTarget.origin}/text`, checkFrequency: 0.05 } });
    assert.equal(res.status, 201);
    const tlsId = res.body.data.id as string;
    const c = await until(async () => (await srv.request('GET', `/v1/public/checks/${tlsId}`)).body.data, (v) => v.ssl.valid !== null, 'a certificate');
    assert.equal(c.ssl.valid, false);
    assert.match(c.ssl.error, /self.signed/i);
    assert.match(c.ssl.fingerprint, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    assert.ok(c.ssl.validTo && c.ssl.issuer);
  } finally {
    await tlsTarget.close();
  }
});

test('a tcp check closes politely (FIN, not RST): a plain Node server that greets and handles no errors survives', async (t) => {
  const target = fork(fileURLToPath(new URL('../helpers/fixtures/greeting-server.js', import.meta.url)), [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  target.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let fins = 0;
  const port = await new Promise<number>((resolve) => target.once('message', (m) => resolve(m as number)));
  target.on('message', (m) => m === 'fin' && fins++);
  t.after(() => target.kill());
  const res = await srv.request('POST', '/v1/public/checks', { body: { type: 'tcp', url: `tcp://127.0.0.1:${port}`, checkFrequency: 0.05 } });
  assert.equal(res.status, 201);
  const tcpId = res.body.data.id as string;
  const probes = async () => (await srv.request('GET', `/v1/public/checks/${tcpId}/history?limit=100`)).body.data.length as number;
  // Three probes: the target crashed on ECONNRESET at the first one when the probe reset the connection.
  await until(probes, (n) => n >= 3, 'three probes of the tcp check');
  await until(async () => fins, (n) => n >= 3, 'the target to see each connection closed with a FIN');
  assert.equal(target.exitCode, null, `the target is still running: ${stderr}`);
  assert.equal((await srv.request('GET', `/v1/public/checks/${tcpId}`)).body.data.status, 'up');
  assert.equal((await srv.request('DELETE', `/v1/public/checks/${tcpId}`)).status, 200);
});
