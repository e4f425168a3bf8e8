import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ThreadDispatcher } from '../../src/engine/dispatcher.js';
import type { ProbeTask } from '../../src/domain/probe-types.js';
import { startHttpFixture, type HttpFixture } from '../helpers/fixtures/http-server.js';
import { probeTask } from '../helpers/fixtures/probe-task.js';
import { NO_RAW_SOCKETS } from '../helpers/raw-sockets.js';

describe('probe worker (in the thread dispatcher)', () => {
  let pool: ThreadDispatcher;
  let server: HttpFixture;
  before(async () => {
    server = await startHttpFixture();
    pool = new ThreadDispatcher({ threads: 2, probesInFlightPerThread: 8 });
  });
  after(async () => {
    await pool.close();
    await server.close();
  });

  it('dispatches by type', async () => {
    const result = await pool.run(probeTask('website', `${server.origin}/json`, { responseValidation: { jsonPath: '$.status', expectedValue: 'ok' } }));
    assert.equal(result.ok, true, result.error ?? '');
    assert.equal(result.statusCode, 200);
  });

  it('pings from worker threads (net-ping cannot run in one; a helper process does)', { skip: NO_RAW_SOCKETS }, async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => pool.run(probeTask('ping', '127.0.0.1', { pingPackets: 2 }))));
    for (const result of results) {
      assert.equal(result.ok, true, result.error ?? '');
      assert.match(result.snippet ?? '', /^2\/2 replies/);
    }
  });

  it('never throws: an unknown type or a broken task is a failed result', async () => {
    const unknown = await pool.run({ ...probeTask('website', 'http://127.0.0.1/'), type: 'heartbeat' as ProbeTask['type'] });
    assert.equal(unknown.ok, false);
    assert.equal(unknown.error, 'Unknown probe type: heartbeat');
    assert.equal(typeof unknown.startedAt, 'number');
    const broken = await pool.run({ ...probeTask('website', `${server.origin}/text`), headers: null as unknown as Record<string, string> });
    assert.equal(broken.ok, false);
    assert.equal(typeof broken.error, 'string');
  });
});
