import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as dns } from 'node:dns';
import { parseSignupEmail } from '../../src/oauth/email-address.js';
import { canReceiveMail, type MailDomainResolver } from '../../src/oauth/email-domain.js';
import { startDnsServer, type DnsFixture } from '../helpers/fixtures/dns-server.js';

/** The signup's address rules and decisions §9 "cannot receive mail", through node's real resolver. */

describe('parseSignupEmail', () => {
  test('valid addresses are lower-cased and split', () => {
    assert.deepEqual(parseSignupEmail('  Jane.Doe+ops@Example.COM '), { address: 'jane.doe+ops@example.com', domain: 'example.com' });
    assert.deepEqual(parseSignupEmail('a@b.co'), { address: 'a@b.co', domain: 'b.co' });
    assert.deepEqual(parseSignupEmail('x@xn--bcher-kva.example'), { address: 'x@xn--bcher-kva.example', domain: 'xn--bcher-kva.example' });
  });

  for (const bad of [
    '', 'plain', '@example.com', 'a@', 'a@localhost', 'a@example', 'a@example.c', 'a@-example.com', 'a@example-.com',
    'a@exa_mple.com', 'a b@example.com', 'a@b@example.com', '"a"@example.com', '.a@example.com', 'a.@example.com',
    'a..b@example.com', 'a@example..com', 'a@127.0.0.1', 'a@[127.0.0.1]', `${'a'.repeat(65)}@example.com`, 'a@example.123',
  ]) {
    test(`refuses ${JSON.stringify(bad)}`, () => assert.equal(parseSignupEmail(bad), null));
  }
});

describe('canReceiveMail against a DNS server on loopback', () => {
  let server: DnsFixture;
  let resolver: dns.Resolver;

  before(async () => {
    server = await startDnsServer({
      '.': { NS: ['a.root-servers.test'] },
      'mx.test': { MX: [{ preference: 10, exchange: 'mail.mx.test' }] },
      'null-mx.test': { MX: [{ preference: 0, exchange: '.' }], A: ['192.0.2.1'] },
      'a-only.test': { A: ['192.0.2.2'] },
      'aaaa-only.test': { AAAA: ['2001:db8::1'] },
      'nothing.test': { TXT: ['v=spf1 -all'] },
    });
    resolver = new dns.Resolver({ timeout: 1_000, tries: 1 });
    resolver.setServers([`127.0.0.1:${server.port}`]);
  });
  after(() => server.close());

  const cases: Array<[string, string]> = [
    ['mx.test', 'yes'],
    ['a-only.test', 'yes'],
    ['aaaa-only.test', 'yes'],
    ['null-mx.test', 'no'],
    ['nothing.test', 'no'],
    ['missing.test', 'no'],
  ];
  for (const [domain, verdict] of cases) {
    test(`${domain}: ${verdict}`, async () => assert.equal(await canReceiveMail(domain, resolver), verdict));
  }

  test('a resolver that denies the root zone is not believed', async () => {
    const liar = await startDnsServer({});
    try {
      const r = new dns.Resolver({ timeout: 1_000, tries: 1 });
      r.setServers([`127.0.0.1:${liar.port}`]);
      assert.equal(await canReceiveMail('missing.test', r), 'unknown');
    } finally {
      await liar.close();
    }
  });

  test('no resolver listening (no network) is unknown, not a rejection', async () => {
    const gone = await startDnsServer({});
    const port = gone.port;
    await gone.close();
    const r = new dns.Resolver({ timeout: 500, tries: 1 });
    r.setServers([`127.0.0.1:${port}`]);
    assert.equal(await canReceiveMail('mx.test', r), 'unknown');
  });
});

describe('canReceiveMail: failures that are not answers', () => {
  const failing = (code: string, at: 'MX' | 'A' | 'AAAA'): MailDomainResolver => {
    const fail = () => Promise.reject(Object.assign(new Error(code), { code }));
    const none = () => Promise.reject(Object.assign(new Error('ENODATA'), { code: 'ENODATA' }));
    return {
      resolveMx: at === 'MX' ? fail : none,
      resolve4: at === 'A' ? fail : none,
      resolve6: at === 'AAAA' ? fail : none,
      resolveNs: async () => ['a.root-servers.test'],
    };
  };
  for (const code of ['ESERVFAIL', 'ETIMEOUT', 'ECONNREFUSED', 'EREFUSED', 'EAI_AGAIN']) {
    for (const at of ['MX', 'A', 'AAAA'] as const) {
      test(`${code} on ${at} is unknown`, async () => assert.equal(await canReceiveMail('x.test', failing(code, at)), 'unknown'));
    }
  }
});
