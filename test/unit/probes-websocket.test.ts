import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { probeWebSocket } from '../../src/engine/probes/websocket.js';
import { assertSaneTiming } from '../helpers/fixtures/assert-timing.js';
import { closedPort } from '../helpers/fixtures/net-servers.js';
import { probeTask, waitFor } from '../helpers/fixtures/probe-task.js';
import { selfSignedCert } from '../helpers/fixtures/tls-cert.js';
import { startWsServer, type WsFixture } from '../helpers/fixtures/ws-server.js';

describe('websocket probe', () => {
  let plain: WsFixture;
  let secure: WsFixture;
  before(async () => {
    plain = await startWsServer();
    secure = await startWsServer(await selfSignedCert());
  });
  after(async () => {
    await plain.close();
    await secure.close();
  });

  it('is up when the handshake completes, sends the headers, and closes politely', async () => {
    const result = await probeWebSocket(probeTask('websocket', `${plain.url}/socket`, { headers: { 'X-Probe': 'vigil' } }));
    assert.equal(result.ok, true, result.error ?? '');
    assert.equal(result.statusCode, 101);
    assert.equal(result.ssl, null);
    assertSaneTiming(result.timing);
    assert.equal(result.timing.tls, 0);
    assert.equal(result.responseTime, result.timing.total);
    assert.equal(plain.handshakes.at(-1)?.['x-probe'], 'vigil');
    await waitFor(() => plain.closeCodes.includes(1000), 'a normal close frame');
    await waitFor(() => plain.openSockets() === 0, 'the connection to close');
  });

  it('over wss reads the certificate and times the TLS handshake', async () => {
    const result = await probeWebSocket(probeTask('websocket', `${secure.url}/`));
    assert.equal(result.ok, true, result.error ?? '');
    assertSaneTiming(result.timing);
    assert.ok(result.timing.tls > 0);
    assert.equal(result.ssl?.valid, false);
    assert.equal(result.ssl?.subject, 'vigil-test.local');
  });

  it('is down when the upgrade is refused, keeping the status', async () => {
    const result = await probeWebSocket(probeTask('websocket', `${plain.url}/forbidden`));
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, 403);
    assert.equal(result.error, 'WebSocket upgrade refused: HTTP 403');
    await waitFor(() => plain.openSockets() === 0, 'the refused connection to close');
  });

  it('reports a closed port as refused', async () => {
    const result = await probeWebSocket(probeTask('websocket', `ws://127.0.0.1:${await closedPort()}/`));
    assert.equal(result.ok, false);
    assert.equal(result.error, 'Connection refused');
    assert.equal(result.timing, null);
  });
});
