import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseDnsTarget, probeDns } from '../../src/engine/probes/dns.js';
import { startDnsServer, type DnsFixture } from '../helpers/fixtures/dns-server.js';
import { startUdpEcho, type UdpFixture } from '../helpers/fixtures/net-servers.js';
import { probeTask } from '../helpers/fixtures/probe-task.js';

describe('dns probe', () => {
  let server: DnsFixture;
  let junk: UdpFixture;
  before(async () => {
    server = await startDnsServer({
      'example.test': {
        A: ['192.0.2.10', '192.0.2.11'],
        AAAA: ['2001:db8::1'],
        TXT: [['v=spf1 -all']],
        MX: [{ preference: 10, exchange: 'mx.example.test' }],
        NS: ['ns1.example.test'],
      },
      'www.example.test': { CNAME: ['example.test'] },
    });
    junk = await startUdpEcho();
  });
  after(async () => {
    await server.close();
    await junk.close();
  });

  const query = (name: string, type: string, expectedValue?: string) =>
    probeDns(
      probeTask('dns', `dns://127.0.0.1:${server.port}/${name}?type=${type}`, {
        responseValidation: expectedValue === undefined ? null : { expectedValue },
      }),
    );

  it('asks the given resolver and lists the answers', async () => {
    const result = await query('example.test', 'A');
    assert.equal(result.ok, true, result.error ?? '');
    assert.equal(result.snippet, '192.0.2.10, 192.0.2.11');
    assert.deepEqual(server.queries.at(-1), { name: 'example.test', type: 'A' });
    assert.ok(result.timing && result.timing.dns >= 0 && result.timing.total >= result.timing.dns);
    assert.equal(result.responseTime, result.timing.total);
  });

  it('is down when expectedValue is not among the answers', async () => {
    assert.equal((await query('example.test', 'A', '192.0.2.11')).ok, true);
    const wrong = await query('example.test', 'A', '192.0.2.99');
    assert.equal(wrong.ok, false);
    assert.equal(wrong.error, 'Expected 192.0.2.99 among the answers, got 192.0.2.10, 192.0.2.11');
  });

  it('supports TXT, MX, AAAA, NS and CNAME', async () => {
    assert.equal((await query('example.test', 'TXT', 'v=spf1 -all')).snippet, 'v=spf1 -all');
    assert.equal((await query('example.test', 'MX')).snippet, '10 mx.example.test');
    assert.equal((await query('example.test', 'MX', 'mx.example.test.')).ok, true, 'MX matches by exchange');
    assert.equal((await query('example.test', 'AAAA', '2001:0db8:0:0:0:0:0:1')).ok, true, 'IPv6 compares canonically');
    assert.equal((await query('example.test', 'NS', 'NS1.example.test')).ok, true, 'names compare case-insensitively');
    assert.equal((await query('www.example.test', 'CNAME', 'example.test')).ok, true);
  });

  it('is down on NXDOMAIN, keeping the answer time', async () => {
    const result = await query('missing.test', 'A');
    assert.equal(result.ok, false);
    assert.equal(result.error, 'DNS server answered NXDOMAIN for missing.test');
    assert.equal(typeof result.responseTime, 'number');
  });

  it('is down when the name has no record of that type', async () => {
    const result = await query('www.example.test', 'A');
    assert.equal(result.ok, false);
    assert.equal(result.error, 'No A records for www.example.test');
  });

  it('ignores datagrams that are not its answer, then times out', async () => {
    const result = await probeDns(probeTask('dns', `dns://127.0.0.1:${junk.port}/example.test?type=A`, { timeoutMs: 300 }));
    assert.equal(result.ok, false);
    assert.equal(result.error, 'Timed out after 300 ms');
    assert.equal(junk.received.length, 1, 'the query reached the junk server');
  });

  it('rejects an unsupported record type', async () => {
    const result = await query('example.test', 'SRV');
    assert.equal(result.error, 'Unsupported DNS record type SRV (use A, AAAA, CNAME, MX, TXT, NS)');
  });

  it('refuses a private resolver when private addresses are blocked', async () => {
    const result = await probeDns(probeTask('dns', `dns://127.0.0.1:${server.port}/example.test`, { refusePrivate: 'operator' }));
    assert.match(result.error ?? '', /private address/);
  });

  it('parses both URL forms', () => {
    assert.deepEqual(parseDnsTarget('example.com'), { server: null, name: 'example.com', type: 'A' });
    assert.deepEqual(parseDnsTarget('dns://1.1.1.1/example.com?type=mx'), {
      server: { host: '1.1.1.1', port: 53 },
      name: 'example.com',
      type: 'MX',
    });
    assert.deepEqual(parseDnsTarget('dns://[::1]:5353/example.com').server, { host: '::1', port: 5353 });
  });
});
