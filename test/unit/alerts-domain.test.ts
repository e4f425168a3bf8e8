import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ManualClock } from '../../src/domain/clock.js';
import { DOMAIN_WARNING_MS, domainStep } from '../../src/monitor/domain-expiry.js';
import { domainOfCheck, registrableDomain } from '../../src/engine/domains/domain-name.js';
import { parseBootstrap, RdapBootstrap } from '../../src/engine/domains/rdap-bootstrap.js';
import { parseRdapDomain } from '../../src/engine/domains/rdap-client.js';
import { rdapDomain } from '../helpers/fixtures/alerts-rdap.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);

describe('domain thresholds (once per expiry date)', () => {
  test('far from expiry: nothing; 30 days before: domain_expiring once; past it: domain_expired once', () => {
    const expires = NOW + 60 * DAY;
    let s = domainStep(null, expires, NOW);
    assert.deepEqual(s.events, []);
    s = domainStep(s.memory, expires, expires - DOMAIN_WARNING_MS - 1);
    assert.deepEqual(s.events, []);
    s = domainStep(s.memory, expires, expires - DOMAIN_WARNING_MS);
    assert.deepEqual(s.events, ['domain_expiring']);
    s = domainStep(s.memory, expires, expires - DAY);
    assert.deepEqual(s.events, [], 'not once per lookup');
    s = domainStep(s.memory, expires, expires);
    assert.deepEqual(s.events, ['domain_expired']);
    const after = domainStep(s.memory, expires, expires + DAY);
    assert.deepEqual(after.events, []);
    const renewed = domainStep(after.memory, expires + 365 * DAY, expires + 2 * DAY);
    assert.deepEqual(renewed.events, ['domain_renewed']);
    assert.equal(renewed.memory.alerted, 'ok');
    const again = domainStep(renewed.memory, expires + 365 * DAY, expires + 365 * DAY - 10 * DAY);
    assert.deepEqual(again.events, ['domain_expiring'], 'a renewal re-arms the thresholds');
  });

  test('first sighting inside the window alerts at once; a routine renewal far from expiry is quiet', () => {
    assert.deepEqual(domainStep(null, NOW + 5 * DAY, NOW).events, ['domain_expiring']);
    assert.deepEqual(domainStep(null, NOW - DAY, NOW).events, ['domain_expired']);
    const quiet = domainStep(domainStep(null, NOW + 200 * DAY, NOW).memory, NOW + 565 * DAY, NOW + DAY);
    assert.deepEqual(quiet.events, []);
  });
});

describe('registrable domains', () => {
  test('last two labels, three under common second-level registries; reserved names and IPs have none', () => {
    assert.equal(registrableDomain('www.shop.Example.DE'), 'example.de');
    assert.equal(registrableDomain('api.example.co.uk.'), 'example.co.uk');
    assert.equal(registrableDomain('co.uk'), null);
    assert.equal(registrableDomain('x.example.com'), null, 'RFC 2606 names never expire');
    assert.equal(registrableDomain('svc.internal'), null);
    assert.equal(registrableDomain('localhost'), null);
    assert.equal(registrableDomain('127.0.0.1'), null);
    assert.equal(registrableDomain('[::1]'), null);
    assert.equal(domainOfCheck({ type: 'website', url: 'https://status.vigil.dev/x' }), 'vigil.dev');
    assert.equal(domainOfCheck({ type: 'domain', url: 'Vigil.Dev' }), 'vigil.dev');
    assert.equal(domainOfCheck({ type: 'website', url: 'not a url' }), null);
  });
});

describe('RDAP', () => {
  test('a registry answer gives name, registrar, expiry and last change', () => {
    const info = parseRdapDomain(rdapDomain('shop.zz', { expiresAt: '2027-03-04T05:06:07Z', registrar: 'Example Registrar' }), 'shop.zz');
    assert.deepEqual(info, { name: 'shop.zz', registrar: 'Example Registrar', expiresAt: '2027-03-04T05:06:07.000Z', updatedAt: '2025-05-01T10:00:00.000Z' });
    assert.deepEqual(parseRdapDomain({ objectClassName: 'domain' }, 'q.zz'), { name: 'q.zz', registrar: null, expiresAt: null, updatedAt: null });
    assert.throws(() => parseRdapDomain({ objectClassName: 'entity' }, 'q.zz'));
  });

  test('the shipped bootstrap registry has the IANA format and the common TLDs', () => {
    const b = new RdapBootstrap({ overrides: { zz: 'http://127.0.0.1:9/rdap' }, url: null, timeoutMs: 1000, clock: new ManualClock(NOW), log: pino({ level: 'silent' }) });
    assert.equal(b.serverFor('example.com'), 'https://rdap.verisign.com/com/v1/');
    assert.equal(b.serverFor('example.org'), 'https://rdap.publicinterestregistry.org/rdap/');
    assert.equal(b.serverFor('vigil.dev'), 'https://pubapi.registry.google/rdap/');
    assert.equal(b.serverFor('example.co.uk'), 'https://rdap.nominet.uk/uk/');
    assert.equal(b.serverFor('shop.zz'), 'http://127.0.0.1:9/rdap/', 'rdap.servers overrides, with a trailing slash');
    assert.equal(b.serverFor('example.unknowntld'), null);
  });

  test('bootstrap files: https preferred, longest suffix wins, junk refused', () => {
    const map = parseBootstrap({ version: '1.0', services: [[['Abc'], ['http://a.example/', 'https://a.example/rdap']], [['x.abc'], ['https://b.example/']]] });
    assert.equal(map!.get('abc'), 'https://a.example/rdap/');
    assert.equal(parseBootstrap({ services: 'nope' }), null);
    assert.equal(parseBootstrap({ services: [] }), null);
  });
});
