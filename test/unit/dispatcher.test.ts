import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { PiscinaDispatcher } from '../../src/engine/dispatcher.js';
import type { ProbeTask } from '../../src/engine/probe-types.js';

const task = (url: string, timeoutMs = 2000): ProbeTask => ({
  type: 'website', url, method: 'GET', headers: {}, body: null, expectedStatusCodes: [200], responseValidation: null,
  cacheControlNoCache: false, pingPackets: 1, timeoutMs, blockPrivateAddresses: false,
});

test('a worker crash fails its own probes as errors, never the process, and the pool recovers', async () => {
  const dispatcher = new PiscinaDispatcher({
    threads: 1,
    filename: fileURLToPath(new URL('../helpers/fixtures/crashing-worker.js', import.meta.url)),
  });
  try {
    const crashed = await dispatcher.run(task('http://127.0.0.1/crash'));
    assert.equal(crashed.ok, false);
    assert.match(crashed.error!, /Probe worker failed: .*worker blew up/);
    assert.equal(crashed.responseTime, null);
    const after = await dispatcher.run(task('http://127.0.0.1/fine'));
    assert.equal(after.ok, true, 'a replacement worker takes the next probe');
    assert.equal(dispatcher.inFlight, 0);
  } finally {
    await dispatcher.close();
  }
});
