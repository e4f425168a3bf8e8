import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pingHost, probePing, summarizeEchoes } from '../../src/engine/probes/ping.js';
import { probeTask } from '../helpers/fixtures/probe-task.js';
import { NO_RAW_SOCKETS } from '../helpers/raw-sockets.js';

describe('ping probe', () => {
  it('gets echo replies from 127.0.0.1; responseTime is their mean', { skip: NO_RAW_SOCKETS }, async () => {
    const result = await probePing(probeTask('ping', '127.0.0.1', { pingPackets: 3 }));
    assert.equal(result.ok, true, result.error ?? '');
    assert.equal(result.error, null);
    assert.equal(typeof result.responseTime, 'number');
    assert.ok(result.responseTime! >= 0);
    assert.equal(result.timing?.ttfb, result.responseTime, 'ttfb carries the mean round trip');
    assert.ok(result.timing!.total >= result.timing!.ttfb);
    assert.match(result.snippet ?? '', /^3\/3 replies from 127\.0\.0\.1, rtt min\/avg\/max [\d.]+\/[\d.]+\/[\d.]+ ms$/);
  });

  it('accepts icmp:// and host names', { skip: NO_RAW_SOCKETS }, async () => {
    const result = await probePing(probeTask('ping', 'icmp://127.0.0.1', { pingPackets: 1 }));
    assert.equal(result.ok, true, result.error ?? '');
    assert.match(result.snippet ?? '', /^1\/1 replies/);
    assert.equal(pingHost('localhost'), 'localhost');
    assert.equal(pingHost('icmp://[::1]'), '::1');
    assert.throws(() => pingHost('http://example.com/path'));
  });

  it('runs concurrent pings on one shared raw socket without mixing their replies', { skip: NO_RAW_SOCKETS }, async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => probePing(probeTask('ping', '127.0.0.1', { pingPackets: 2 }))));
    for (const result of results) assert.match(result.snippet ?? '', /^2\/2 replies/);
  });

  it('is down when every packet is lost', { skip: NO_RAW_SOCKETS }, async () => {
    // 240.0.0.0/4 is reserved: no host answers (no route, an unreachable, or silence).
    const result = await probePing(probeTask('ping', '240.0.0.1', { pingPackets: 2, timeoutMs: 500 }));
    assert.equal(result.ok, false);
    assert.match(result.error ?? '', /^All 2 packets lost/);
    assert.equal(result.responseTime, null);
    assert.equal(result.timing, null);
  });

  it('summarizes replies and losses', () => {
    assert.deepEqual(summarizeEchoes([{ lost: 'timeout' }, { lost: 'timeout' }], '10.0.0.1'), { ok: false, error: 'All 2 packets lost' });
    assert.deepEqual(summarizeEchoes([{ lost: 'Destination unreachable' }, { lost: 'timeout' }], '10.0.0.1'), {
      ok: false,
      error: 'All 2 packets lost (Destination unreachable)',
    });
    assert.deepEqual(summarizeEchoes([{ rtt: 1 }, { lost: 'timeout' }, { rtt: 3 }], '10.0.0.1'), {
      ok: true,
      meanRtt: 2,
      snippet: '2/3 replies from 10.0.0.1, rtt min/avg/max 1/2/3 ms',
    });
  });

  it('refuses loopback when private addresses are blocked', async () => {
    const result = await probePing(probeTask('ping', '127.0.0.1', { refusePrivate: 'operator' }));
    assert.equal(result.error, 'Target resolves to a private address (blocked by probes.blockPrivateAddresses)');
  });
});
