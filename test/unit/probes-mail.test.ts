import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { probeMail } from '../../src/engine/probes/mail.js';
import { assertSaneTiming } from '../helpers/fixtures/assert-timing.js';
import { startMailServer, type MailFixture, type MailProtocol } from '../helpers/fixtures/mail-server.js';
import { closedPort, startTcpListener, type TcpFixture } from '../helpers/fixtures/net-servers.js';
import { probeTask, waitFor } from '../helpers/fixtures/probe-task.js';
import { selfSignedCert, type CertPair } from '../helpers/fixtures/tls-cert.js';

const COMMANDS: Record<MailProtocol, { starttls: string[]; plain: string[] }> = {
  smtp: { starttls: ['EHLO vigil', 'STARTTLS', 'QUIT'], plain: ['EHLO vigil', 'QUIT'] },
  pop3: { starttls: ['CAPA', 'STLS', 'QUIT'], plain: ['CAPA', 'QUIT'] },
  imap: { starttls: ['a1 CAPABILITY', 'a2 STARTTLS', 'a3 LOGOUT'], plain: ['a1 CAPABILITY', 'a3 LOGOUT'] },
};

const BANNERS: Record<MailProtocol, string> = {
  smtp: '220-mail.vigil.test ESMTP fixture\n220 ready',
  pop3: '+OK POP3 fixture ready',
  imap: '* OK IMAP4rev1 fixture ready',
};

describe('mail probes', () => {
  let cert: CertPair;
  const servers: Array<{ close(): Promise<void> }> = [];
  before(async () => {
    cert = await selfSignedCert();
  });
  after(async () => {
    for (const server of servers) await server.close();
  });
  async function start(options: Parameters<typeof startMailServer>[0]): Promise<MailFixture> {
    const server = await startMailServer(options);
    servers.push(server);
    return server;
  }

  for (const protocol of ['smtp', 'pop3', 'imap'] as const) {
    describe(protocol, () => {
      it('upgrades with STARTTLS when offered, reads the certificate, and quits', async () => {
        const server = await start({ protocol, startTls: cert });
        const result = await probeMail(probeTask(protocol, `${protocol}://127.0.0.1:${server.port}`));
        assert.equal(result.ok, true, result.error ?? '');
        assert.equal(result.snippet, BANNERS[protocol]);
        assert.equal(result.statusCode, null);
        assertSaneTiming(result.timing);
        assert.ok(result.timing.tls > 0, 'STARTTLS handshake timed');
        assert.equal(result.ssl?.subject, 'vigil-test.local');
        assert.equal(result.ssl?.valid, false);
        assert.equal(server.upgrades(), 1);
        await waitFor(() => server.commands.length >= 3, 'the quit command');
        assert.deepEqual(server.commands, COMMANDS[protocol].starttls);
        await waitFor(() => server.openSockets() === 0, 'the connection to close');
      });

      it('stays plain when STARTTLS is not offered', async () => {
        const server = await start({ protocol });
        const result = await probeMail(probeTask(protocol, `${protocol}://127.0.0.1:${server.port}`));
        assert.equal(result.ok, true, result.error ?? '');
        assert.equal(result.ssl, null);
        assertSaneTiming(result.timing);
        assert.equal(result.timing.tls, 0);
        await waitFor(() => server.commands.length >= 2, 'the quit command');
        assert.deepEqual(server.commands, COMMANDS[protocol].plain);
      });

      it('speaks TLS from the start on the secure scheme', async () => {
        const server = await start({ protocol, implicitTls: cert });
        const result = await probeMail(probeTask(protocol, `${protocol}s://127.0.0.1:${server.port}`));
        assert.equal(result.ok, true, result.error ?? '');
        assert.equal(result.snippet, BANNERS[protocol]);
        assert.equal(result.ssl?.subject, 'vigil-test.local');
        assert.ok(result.timing && result.timing.tls > 0);
        assert.ok(!server.commands.some((c) => /STARTTLS|STLS/.test(c)), 'no STARTTLS over TLS');
      });
    });
  }

  it('is down on a negative greeting, keeping the banner', async () => {
    const server = await start({ protocol: 'smtp', greeting: '554 No service here' });
    const result = await probeMail(probeTask('smtp', `smtp://127.0.0.1:${server.port}`));
    assert.equal(result.ok, false);
    assert.equal(result.error, 'Server not ready: 554 No service here');
    assert.equal(result.snippet, '554 No service here');
    assert.equal(typeof result.responseTime, 'number');
  });

  it('is down on a POP3 -ERR and an IMAP BYE greeting', async () => {
    const pop = await start({ protocol: 'pop3', greeting: '-ERR busy' });
    assert.equal((await probeMail(probeTask('pop3', `pop3://127.0.0.1:${pop.port}`))).error, 'Server not ready: -ERR busy');
    const imap = await start({ protocol: 'imap', greeting: '* BYE shutting down' });
    assert.equal((await probeMail(probeTask('imap', `imap://127.0.0.1:${imap.port}`))).ok, false);
  });

  describe('without a mail server', () => {
    let silent: TcpFixture;
    before(async () => {
      silent = await startTcpListener();
    });
    after(() => silent.close());

    it('times out when no greeting comes, and closes the connection', async () => {
      const result = await probeMail(probeTask('smtp', `smtp://127.0.0.1:${silent.port}`, { timeoutMs: 300 }));
      assert.equal(result.ok, false);
      assert.equal(result.error, 'Timed out after 300 ms');
      assert.equal(result.timing, null);
      await waitFor(() => silent.openSockets() === 0, 'the connection to close');
    });

    it('reports a closed port as refused', async () => {
      const result = await probeMail(probeTask('imap', `imap://127.0.0.1:${await closedPort()}`));
      assert.equal(result.error, 'Connection refused');
    });
  });
});
