import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/fixtures/probe-task.js';
import { browserMissing, CHROMIUM, CHROMIUM_ARGS, signedInPage } from '../helpers/browser.js';
import { NO_PROBES } from '../e2e/util.js';

const missing = browserMissing();

/**
 * Issue 35 item 9 in Chromium: a recurring window's next start is shown in the browser's zone
 * and in the window's own, each labelled, so "02:00" is never read in the wrong zone.
 */
describe('maintenance page: times in two zones, labelled', { skip: missing ?? false, timeout: 120_000 }, () => {
  let srv: TestServer;
  let browser: Browser;
  let page: Page;
  let next: string;

  before(async () => {
    srv = await startServer({}, undefined, NO_PROBES);
    const res = await srv.request('POST', '/v1/public/maintenance-windows', {
      body: { title: 'Sunday patching', allChecks: true, schedule: '0 2 * * 0', durationMinutes: 60, timezone: 'Europe/Paris' },
    });
    assert.equal(res.status, 201, res.text);
    next = res.body.data.nextStartsAt;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ timezoneId: 'America/New_York', locale: 'en-US' });
    page = (await signedInPage(context, srv.url, srv.adminKey)).page;
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
  });

  test('the next start reads in the browser\'s zone and in the window\'s, each named', async () => {
    await page.goto(`${srv.url}/dashboard#/maintenance`);
    const yours = page.locator('[data-zone="yours"]');
    await waitFor(async () => (await yours.count()) === 1, 'the window\'s times');
    const inZone = (timeZone: string) => new Date(next).toLocaleString('en-US', { timeZone, dateStyle: 'medium', timeStyle: 'short' });
    const mine = await yours.textContent();
    assert.ok(mine!.startsWith(`${inZone('America/New_York')} to `), mine!);
    assert.match(mine!, /\(America\/New_York\) your time$/);
    const theirs = await page.locator('[data-zone="window"]').textContent();
    assert.match(theirs!, /2:00 AM to .*3:00 AM \(Europe\/Paris\) the window's time$/);
    assert.ok(theirs!.includes(inZone('Europe/Paris')), theirs!);
  });
});
