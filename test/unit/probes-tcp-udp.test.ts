import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { probeTcp } from '../../src/engine/probes/tcp.js';
import { probeUdp } from '../../src/engine/probes/udp.js';
import { assertSaneTiming } from '../helpers/fixtures/assert-timing.js';
import { closedPort, startTcpListener, startUdpEcho, type TcpFixture, type UdpFixture } from '../helpers/fixtures/net-servers.js';
import { probeTask, waitFor } from '../helpers/fixtures/probe-task.js';

describe('tcp probe', () => {
  let listener: TcpFixture;
  before(async () => {
    listener = await startTcpListener();
  });
  after(() => listener.close());

  it('is up when the port accepts, with dns and connect timing, and closes its socket', async () => {
    const result = await probeTcp(probeTask('tcp', `tcp://127.0.0.1:${listener.port}`));
    assert.equal(result.ok, true);
    assert.equal(result.error, null);
    assert.equal(result.statusCode, null);
    assert.equal(result.snippet, null);
    assertSaneTiming(result.timing);
    assert.equal(result.timing.tls, 0);
    assert.equal(result.timing.ttfb, 0);
    assert.ok(result.timing.total >= result.timing.connect);
    assert.equal(result.responseTime, result.timing.total);
    assert.equal(listener.accepted(), 1);
    await waitFor(() => listener.openSockets() === 0, 'the probe socket to close');
  });

  it('resolves a host name', async () => {
    const result = await probeTcp(probeTask('tcp', `tcp://localhost:${listener.port}`));
    // localhost may resolve to ::1 first; the probe then tries 127.0.0.1.
    assert.equal(result.ok, true, result.error ?? '');
  });

  it('reports a closed port as refused, with no timing', async () => {
    const result = await probeTcp(probeTask('tcp', `tcp://127.0.0.1:${await closedPort()}`));
    assert.equal(result.ok, false);
    assert.equal(result.error, 'Connection refused');
    assert.equal(result.responseTime, null);
    assert.equal(result.timing, null);
  });

  it('needs a port and a tcp:// URL', async () => {
    assert.equal((await probeTcp(probeTask('tcp', 'tcp://127.0.0.1'))).error, 'URL needs a port: tcp://host:port');
    assert.equal((await probeTcp(probeTask('tcp', 'http://127.0.0.1:80'))).error, 'Unsupported URL scheme http:');
  });

  it('refuses loopback when private addresses are blocked', async () => {
    const before = listener.accepted();
    const result = await probeTcp(probeTask('tcp', `tcp://127.0.0.1:${listener.port}`, { refusePrivate: 'operator' }));
    assert.equal(result.ok, false);
    assert.match(result.error ?? '', /private address/);
    assert.equal(listener.accepted(), before);
  });
});

describe('udp probe', () => {
  let echo: UdpFixture;
  before(async () => {
    echo = await startUdpEcho();
  });
  after(() => echo.close());

  it('sends the body and is up when a reply arrives', async () => {
    const result = await probeUdp(probeTask('udp', `udp://127.0.0.1:${echo.port}`, { body: 'ping' }));
    assert.equal(result.ok, true);
    assert.equal(result.snippet, 'echo:ping');
    assert.equal(echo.received.at(-1), 'ping');
    assertSaneTiming(result.timing);
    assert.equal(result.responseTime, result.timing.total);
  });

  it('sends an empty datagram when there is no body', async () => {
    const result = await probeUdp(probeTask('udp', `udp://127.0.0.1:${echo.port}`));
    assert.equal(result.ok, true);
    assert.equal(echo.received.at(-1), '');
    assert.equal(result.snippet, 'echo:');
  });

  it('times out when nothing answers', async () => {
    const result = await probeUdp(probeTask('udp', `udp://127.0.0.1:${echo.port}`, { body: 'silent', timeoutMs: 300 }));
    assert.equal(result.ok, false);
    assert.equal(result.error, 'Timed out after 300 ms');
    assert.equal(result.responseTime, null);
    assert.equal(result.timing, null);
  });

  it('reports a port-unreachable answer as refused', async () => {
    const result = await probeUdp(probeTask('udp', `udp://127.0.0.1:${await closedPort()}`, { body: 'x', timeoutMs: 3000 }));
    assert.equal(result.ok, false);
    assert.equal(result.error, 'Connection refused');
  });
});
