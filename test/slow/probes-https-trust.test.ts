import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { ProbeResult } from '../../src/domain/probe-types.js';
import { startHttpFixture, type HttpFixture } from '../helpers/fixtures/http-server.js';
import { probeTask } from '../helpers/fixtures/probe-task.js';
import { caSignedCert } from '../helpers/fixtures/tls-cert.js';

/** The https probe in a process that trusts a private CA (trust roots are read at process start). */

const run = promisify(execFile);

/**
 * Runs the probe in a child process that trusts `caFile` (NODE_EXTRA_CA_CERTS, the way an
 * operator trusts a private CA), since trust roots are fixed when a process starts.
 */
async function probeTrusting(caFile: string, url: string): Promise<ProbeResult> {
  const module = new URL('../../src/engine/probes/http.js', import.meta.url).href;
  const script = `
    const { probeHttp } = await import(${JSON.stringify(module)});
    const result = await probeHttp(${JSON.stringify(probeTask('website', url))});
    process.stdout.write(JSON.stringify(result));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile },
    timeout: 20_000,
  });
  return JSON.parse(stdout) as ProbeResult;
}

describe('https probe trusting a private CA', () => {
  let trusted: HttpFixture;
  let wrongHost: HttpFixture;
  let ca: string;
  let dir: string;
  before(async () => {
    const signed = await caSignedCert();
    ca = signed.ca;
    trusted = await startHttpFixture(signed.leaf);
    wrongHost = await startHttpFixture(signed.otherHostLeaf);
    dir = await mkdtemp(join(tmpdir(), 'vigil-probes-'));
  });
  after(async () => {
    await trusted.close();
    await wrongHost.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a chain from a trusted CA is valid', async () => {
    const caFile = join(dir, 'ca.pem');
    await writeFile(caFile, ca);
    const result = await probeTrusting(caFile, `${trusted.origin}/text`);
    assert.equal(result.ok, true);
    assert.equal(result.ssl?.valid, true);
    assert.equal(result.ssl?.error, null);
    assert.equal(result.ssl?.issuer, 'Vigil Test CA');
  });

  it('a host name the certificate does not cover is not valid, even from a trusted CA', async () => {
    const caFile = join(dir, 'ca.pem');
    await writeFile(caFile, ca);
    const result = await probeTrusting(caFile, `${wrongHost.origin}/text`);
    assert.equal(result.ok, true);
    assert.equal(result.ssl?.valid, false);
    assert.match(result.ssl?.error ?? '', /ERR_TLS_CERT_ALTNAME_INVALID/);
  });
});
