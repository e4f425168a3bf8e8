import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  accountRule, classifyAddress, ipOfHost, isPrivateAddress, parseLooseIpv4, refusalMessage, strictest,
} from '../../src/domain/outbound-policy.js';
import { assertOutboundHost, OutboundRefused, resolveOutbound } from '../../src/util/outbound-guard.js';

describe('outbound policy: classification', () => {
  it('classifies the ranges a connection must not reach under a rule', () => {
    const cases: Array<[string, ReturnType<typeof classifyAddress>]> = [
      ['127.0.0.1', 'loopback'],
      ['127.255.0.9', 'loopback'],
      ['::1', 'loopback'],
      ['0.0.0.0', 'unspecified'],
      ['0.1.2.3', 'unspecified'],
      ['::', 'unspecified'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['192.0.0.8', 'private'],
      ['fec0::1', 'private'],
      ['169.254.1.1', 'link-local'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['100.64.0.1', 'shared'],
      ['100.127.255.254', 'shared'],
      ['fd00::1', 'unique-local'],
      ['fc00::1', 'unique-local'],
      ['224.0.0.1', 'multicast'],
      ['239.255.255.250', 'multicast'],
      ['ff02::1', 'multicast'],
      ['240.0.0.1', 'reserved'],
      ['255.255.255.255', 'reserved'],
      // Cloud metadata services, whatever range holds them.
      ['169.254.169.254', 'metadata'],
      ['169.254.170.2', 'metadata'],
      ['fd00:ec2::254', 'metadata'],
      ['100.100.100.200', 'metadata'],
      ['192.0.0.192', 'metadata'],
      ['[::1]', 'loopback'],
    ];
    for (const [address, kind] of cases) assert.equal(classifyAddress(address), kind, address);
  });

  it('reads IPv6 forms that carry an IPv4 address as that address', () => {
    const cases: Array<[string, ReturnType<typeof classifyAddress>]> = [
      ['::ffff:10.0.0.1', 'private'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
      ['::ffff:a9fe:a9fe', 'metadata'],
      // IPv4-compatible (deprecated) and SIIT-translated.
      ['::127.0.0.1', 'loopback'],
      ['::7f00:1', 'loopback'],
      ['::a00:1', 'private'],
      ['::ffff:0:7f00:1', 'loopback'],
      // NAT64 (RFC 6052 and the local-use prefix of RFC 8215).
      ['64:ff9b::7f00:1', 'loopback'],
      ['64:ff9b::10.0.0.1', 'private'],
      ['64:ff9b:1::a9fe:a9fe', 'metadata'],
      // 6to4.
      ['2002:c0a8:101::1', 'private'],
      ['2002:7f00:1:0:0:0:0:1', 'loopback'],
      // Teredo: the client's IPv4 address, inverted, in the last 32 bits.
      ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
    ];
    for (const [address, kind] of cases) assert.equal(classifyAddress(address), kind, address);
  });

  it('leaves public addresses, including the neighbours of private ranges, alone', () => {
    for (const address of [
      '8.8.8.8', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '192.169.0.1', '11.0.0.1', '223.255.255.255',
      '192.0.1.1', '2606:4700::1111', '64:ff9b::8.8.8.8', '2002:808:808::1', '64:ff9b:2::a00:1', '::ffff:8.8.8.8', '2001:4860:4860::8888',
    ]) {
      assert.equal(isPrivateAddress(address), false, address);
    }
  });

  it('rejects what is not an IP address', () => {
    assert.throws(() => classifyAddress('example.com'), TypeError);
  });
});

describe('outbound policy: odd spellings of an address (inet_aton)', () => {
  it('reads decimal, octal, hex and short forms as the system resolver does', () => {
    const cases: Array<[string, string]> = [
      ['2130706433', '127.0.0.1'],
      ['0177.0.0.1', '127.0.0.1'],
      ['0x7f.0.0.1', '127.0.0.1'],
      ['0X7F.0.0.1', '127.0.0.1'],
      ['0x7f000001', '127.0.0.1'],
      ['017700000001', '127.0.0.1'],
      ['127.1', '127.0.0.1'],
      ['127.0.1', '127.0.0.1'],
      ['10.1', '10.0.0.1'],
      ['0', '0.0.0.0'],
      ['0x0', '0.0.0.0'],
      ['169.254.43518', '169.254.169.254'],
      ['0xa9.0xfe.0xa9.0xfe', '169.254.169.254'],
      ['2852039166', '169.254.169.254'],
      ['192.168.0x1.01', '192.168.1.1'],
    ];
    for (const [spelling, address] of cases) {
      assert.equal(parseLooseIpv4(spelling), address, spelling);
      assert.equal(ipOfHost(spelling), address, spelling);
    }
  });

  it('is not fooled into reading a name or an overflowing number as an address', () => {
    for (const text of ['example.com', '127.0.0.1.example', '08.0.0.1', '1.2.3.4.5', '256.0.0.1', '1.16777216', '4294967296', '1..2', '', '127.0.0.1 ']) {
      assert.equal(parseLooseIpv4(text), null, JSON.stringify(text));
    }
    assert.equal(ipOfHost('0x.0.0.1'), '0.0.0.1', 'a bare 0x is zero, as inet_aton reads it');
  });

  it('takes IPv6 literals with brackets or a zone', () => {
    assert.equal(ipOfHost('[::1]'), '::1');
    assert.equal(ipOfHost('[::ffff:127.0.0.1]'), '::ffff:127.0.0.1');
    assert.equal(ipOfHost('example.com'), null);
  });
});

describe('outbound policy: rules', () => {
  const settings = (block: boolean, allow: boolean) => ({ probes: { blockPrivateAddresses: block }, signup: { allowPrivateTargets: allow } });

  it("applies the operator's rule to everyone and the signup rule to agent-signup accounts only", () => {
    assert.equal(accountRule(settings(true, true), false), 'operator');
    assert.equal(accountRule(settings(true, false), true), 'operator');
    assert.equal(accountRule(settings(false, false), true), 'signup');
    assert.equal(accountRule(settings(false, false), false), null);
    assert.equal(accountRule(settings(false, true), true), null);
  });

  it('keeps the stricter of two rules, with the more specific reason', () => {
    assert.equal(strictest(null, null), null);
    assert.equal(strictest(null, 'operator'), 'operator');
    assert.equal(strictest('signup', 'operator'), 'signup');
    assert.equal(strictest('operator', 'subscriber'), 'subscriber');
  });

  it('says which setting refused, in words the user can act on', () => {
    assert.equal(refusalMessage('operator'), 'Target resolves to a private address (blocked by probes.blockPrivateAddresses)');
    assert.match(refusalMessage('signup', 'url'), /^url resolves to a private address, .*signup\.allowPrivateTargets/);
    assert.match(refusalMessage('subscriber'), /statusPages\.subscriberWebhooks\.allowPrivateTargets/);
  });
});

describe('outbound guard', () => {
  const signup = { refusePrivate: 'signup' as const, dnsServers: [] };

  it('refuses every spelling of a private literal before anything is resolved', async () => {
    for (const host of ['127.0.0.1', '2130706433', '0177.0.0.1', '0x7f.0.0.1', '127.1', '[::1]', '::ffff:127.0.0.1', '[64:ff9b::a9fe:a9fe]', '0']) {
      await assert.rejects(resolveOutbound(host, signup), (err) => err instanceof OutboundRefused && err.rule === 'signup', host);
      assert.throws(() => assertOutboundHost(host, 'signup'), OutboundRefused, host);
    }
  });

  it('connects odd spellings to the address they stand for when no rule applies', async () => {
    assert.deepEqual(await resolveOutbound('0x7f.1', { refusePrivate: null, dnsServers: [] }), [{ address: '127.0.0.1', family: 4 }]);
    assert.doesNotThrow(() => assertOutboundHost('127.0.0.1', null));
    assert.doesNotThrow(() => assertOutboundHost('example.com', 'operator'), 'names are refused when they resolve');
  });

  it('refuses a name when any address it resolves to is private (localhost via the system resolver)', async () => {
    await assert.rejects(resolveOutbound('localhost', signup), OutboundRefused);
  });
});
