import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { CHECK_TYPES, type CheckType } from '../../src/domain/check-types.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { browserMissing, launchBrowser, signedInPage } from '../helpers/browser.js';
import { startRdapFixture, type RdapFixture } from '../helpers/fixtures/alerts-rdap.js';
import { assertStatus } from '../e2e/util.js';

const missing = browserMissing();
if (missing) console.log(`# check page browser tests skipped: ${missing}`);

/**
 * Issue 23 item 2: the page of a check of every type opens with no page error and no console
 * error, and its panels show what the API holds (never a "Loading…" left behind).
 */
describe('the page of every check type in a real browser', { skip: missing ?? false, timeout: 240_000 }, () => {
  let srv: TestServer;
  let http: Server;
  let udp: Socket;
  const banners: TcpServer[] = [];
  let rdap: RdapFixture;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let problems: string[] = [];
  const ids = new Map<CheckType, string>();

  /** A mail server that greets, then hangs up at the client's first command. */
  const bannerServer = async (greeting: string): Promise<number> => {
    const server = createTcpServer((socket) => {
      socket.on('error', () => {});
      socket.write(`${greeting}\r\n`);
      socket.once('data', () => socket.end());
    });
    banners.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return (server.address() as AddressInfo).port;
  };

  before(async () => {
    http = createHttpServer((req, res) => {
      if (req.url === '/moved') {
        res.writeHead(301, { location: '/landed' }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('fine');
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const web = `127.0.0.1:${(http.address() as AddressInfo).port}`;
    udp = createSocket('udp4');
    udp.on('message', (msg, from) => udp.send(msg, from.port, from.address));
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
    const udpPort = udp.address().port;
    rdap = await startRdapFixture();
    rdap.domains.set('shop.zz', { expiresAt: new Date(Date.now() + 90 * 86_400_000).toISOString(), registrar: 'Fixture Registrar' });
    srv = await startServer({ plans: { pro: { minCheckIntervalMinutes: 0.05 } }, rdap: { bootstrapUrl: null, servers: { zz: rdap.base } } });

    const targets: Record<CheckType, Record<string, unknown>> = {
      website: { url: `http://${web}/site` },
      rest_endpoint: { url: `http://${web}/api` },
      redirect: { url: `http://${web}/moved` },
      ping: { url: '127.0.0.1' },
      tcp: { url: `tcp://${web}` },
      udp: { url: `udp://127.0.0.1:${udpPort}`, requestBody: 'ping' },
      dns: { url: `dns://127.0.0.1:${udpPort}/example.com` },
      websocket: { url: `ws://${web}/socket` },
      smtp: { url: `smtp://127.0.0.1:${await bannerServer('220 mail ready')}` },
      pop3: { url: `pop3://127.0.0.1:${await bannerServer('+OK pop ready')}` },
      imap: { url: `imap://127.0.0.1:${await bannerServer('* OK imap ready')}` },
      heartbeat: { checkFrequency: 1 },
      domain: { url: 'shop.zz' },
    };
    for (const type of CHECK_TYPES) {
      const extra = type === 'heartbeat' || type === 'domain' ? {} : { checkFrequency: 0.05 };
      const res = await srv.request('POST', '/v1/public/checks', { body: { type, name: `A ${type} check`, ...extra, ...targets[type] } });
      assertStatus(res, 201);
      ids.set(type, res.body.data.id as string);
    }
    const pingUrl = new URL((await srv.request('GET', `/v1/public/checks/${ids.get('heartbeat')}`)).body.data.url as string);
    assertStatus(await srv.request('GET', `${pingUrl.pathname}/0`), 200);

    browser = await launchBrowser();
    ({ page, problems } = await signedInPage(browser.context, srv.url, srv.adminKey));
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
    await rdap?.close();
    http?.close();
    udp?.close();
    for (const s of banners) s.close();
  });

  /** Every check has a first result (a probe, a ping, a registry lookup) before its page is opened. */
  const firstResult = async (id: string) => {
    for (let i = 0; i < 600; i++) {
      const res = await srv.request('GET', `/v1/public/checks/${id}/history?limit=1`);
      if (res.body.data?.length > 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`check ${id} has no history entry`);
  };

  for (const type of CHECK_TYPES) {
    test(`${type}: no page or console error; status, 90 days, incidents and the log rendered`, async () => {
      const id = ids.get(type)!;
      await firstResult(id);
      problems.length = 0;
      await page.goto(`${srv.url}/dashboard#/checks/${id}`);
      await page.waitForSelector(`.check-page h1:has-text("A ${type} check")`);
      await page.waitForSelector('.check-page .stats .badge.big');
      await page.waitForSelector('.check-page .bars:not(.loading) .bar');
      assert.equal(await page.locator('.check-page .bars .bar').count(), 90);
      const incidents = page.locator('section.card:has(h2:has-text("Incidents"))');
      await incidents.locator('ul.incidents li, p:has-text("No downtime in the last 90 days.")').first().waitFor();
      await page.waitForSelector('.check-page table.history tbody tr');
      if (type === 'heartbeat') {
        const log = page.locator('section.card:has(h2:has-text("Ping log"))');
        assert.equal(await log.locator('tbody tr[data-kind="ping"]').count(), 1);
        const hint = await page.locator('section.card:has(h2:has-text("Ping URL")) p.muted').textContent();
        assert.equal(hint, 'Send GET or POST to it when the job runs; add /start, /fail or /<exit code> to report more.');
      } else {
        await page.waitForSelector('.check-page .chart:not([data-points=""])');
      }
      if (type === 'domain') await page.waitForSelector('dl.facts dd:has-text("Fixture Registrar")');
      const text = await page.locator('main').innerText();
      assert.ok(!text.includes('Loading…'), `nothing left loading:\n${text}`);
      assert.deepEqual(problems, []);
    });
  }
});
