import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyAddress, isPrivateAddress } from '../../src/domain/address-policy.js';

describe('address policy', () => {
  it('classifies the ranges a monitor must not reach when blocking is on', () => {
    const cases: Array<[string, ReturnType<typeof classifyAddress>]> = [
      ['127.0.0.1', 'loopback'],
      ['127.255.0.9', 'loopback'],
      ['::1', 'loopback'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'link-local'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['100.64.0.1', 'shared'],
      ['100.127.255.254', 'shared'],
      ['fd00::1', 'unique-local'],
      ['fc00::1', 'unique-local'],
      ['::ffff:10.0.0.1', 'private'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['[::1]', 'loopback'],
      // Translated IPv6 reaches the IPv4 address it carries.
      ['64:ff9b::7f00:1', 'loopback'],
      ['64:ff9b::10.0.0.1', 'private'],
      ['64:ff9b:1::a9fe:a9fe', 'link-local'],
      ['2002:c0a8:101::1', 'private'],
      ['2002:7f00:1:0:0:0:0:1', 'loopback'],
    ];
    for (const [address, kind] of cases) assert.equal(classifyAddress(address), kind, address);
  });

  it('leaves public addresses, including the neighbours of private ranges, alone', () => {
    for (const address of ['8.8.8.8', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '192.169.0.1', '11.0.0.1', '2606:4700::1111', 'fec0::1', '64:ff9b::8.8.8.8', '2002:808:808::1', '64:ff9b:2::a00:1']) {
      assert.equal(isPrivateAddress(address), false, address);
    }
  });

  it('rejects what is not an IP address', () => {
    assert.throws(() => classifyAddress('example.com'), TypeError);
  });
});
