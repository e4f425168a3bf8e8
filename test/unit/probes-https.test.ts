import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { probeHttp } from '../../src/engine/probes/http.js';
import { assertSaneTiming } from '../helpers/fixtures/assert-timing.js';
import { startHttpFixture, type HttpFixture } from '../helpers/fixtures/http-server.js';
import { probeTask, waitFor } from '../helpers/fixtures/probe-task.js';
import { caSignedCert, selfSignedCert, type CertPair } from '../helpers/fixtures/tls-cert.js';

describe('https probe', () => {
  let selfSigned: CertPair;
  let server: HttpFixture;
  let trusted: HttpFixture;
  before(async () => {
    selfSigned = await selfSignedCert();
    const signed = await caSignedCert();
    server = await startHttpFixture(selfSigned);
    trusted = await startHttpFixture(signed.leaf);
  });
  after(async () => {
    await server.close();
    await trusted.close();
  });

  it('reads the certificate, and a self-signed one does not make the probe fail', async () => {
    const result = await probeHttp(probeTask('website', `${server.origin}/text`));
    assert.equal(result.ok, true, 'the HTTP answer decides ok');
    assert.equal(result.snippet, 'hello vigil world');
    assertSaneTiming(result.timing);
    assert.ok(result.timing.tls > 0, 'tls phase measured');
    const cert = new X509Certificate(selfSigned.cert);
    assert.deepEqual(result.ssl, {
      valid: false,
      error: 'Self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)',
      issuer: 'vigil-test.local',
      subject: 'vigil-test.local',
      validFrom: new Date(cert.validFrom).toISOString(),
      validTo: new Date(cert.validTo).toISOString(),
      serialNumber: cert.serialNumber,
      fingerprint: cert.fingerprint256,
    });
    await waitFor(() => server.openSockets() === 0, 'the TLS connection to close');
  });

  it('sends the host name as SNI (and none for an IP address)', async () => {
    const byName = await probeHttp(probeTask('website', `https://localhost:${server.port}/text`));
    assert.equal(byName.ok, true, byName.error ?? '');
    assert.equal(server.requests.at(-1)?.servername, 'localhost');
    await probeHttp(probeTask('website', `${server.origin}/text`));
    assert.equal(server.requests.at(-1)?.servername, null);
  });

  it('an HTTP error over TLS keeps the certificate', async () => {
    const result = await probeHttp(probeTask('rest_endpoint', `${server.origin}/status/503`));
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, 503);
    assert.equal(result.ssl?.subject, 'vigil-test.local');
  });

  it('a chain from an unknown CA is not valid', async () => {
    const result = await probeHttp(probeTask('website', `${trusted.origin}/text`));
    assert.equal(result.ok, true);
    assert.equal(result.ssl?.valid, false);
    assert.match(result.ssl?.error ?? '', /UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    assert.equal(result.ssl?.issuer, 'Vigil Test CA');
    assert.equal(result.ssl?.subject, 'trusted.vigil-test.local');
  });

  it('follows a redirect from http to https and reports the final certificate', async () => {
    const plain = await startHttpFixture();
    try {
      const to = encodeURIComponent(`${server.origin}/text`);
      const result = await probeHttp(probeTask('website', `${plain.origin}/elsewhere?to=${to}`));
      assert.equal(result.ok, true);
      assert.equal(result.snippet, 'hello vigil world');
      assert.equal(result.ssl?.subject, 'vigil-test.local');
      assertSaneTiming(result.timing);
      assert.ok(result.timing.tls > 0);
    } finally {
      await plain.close();
    }
  });
});
