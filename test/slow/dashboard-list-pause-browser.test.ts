import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { ManualClock } from '../../src/domain/clock.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { waitFor } from '../helpers/fixtures/probe-task.js';
import { browserMissing, launchBrowser, signedInPage } from '../helpers/browser.js';

const missing = browserMissing();
if (missing) console.log(`# dashboard list and pause browser tests skipped: ${missing}`);

/**
 * Issue 23 item 10 in Chromium: the list header's up/down counts follow the filters, and a pause
 * from the dashboard records where it came from and who made it. Probes are scripted: a check
 * whose URL says "down" fails.
 */
describe('dashboard: list counts and pause in a real browser', { skip: missing ?? false, timeout: 180_000 }, () => {
  const clock = new ManualClock(Date.now());
  const dispatcher = new ScriptedDispatcher((task) => ({ ok: !task.url.includes('/down'), responseTime: 50 }), () => clock.now());
  let srv: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let problems: string[] = [];
  const ids: Record<string, string> = {};

  before(async () => {
    srv = await startServer({ plans: { pro: { minCheckIntervalMinutes: 0.05 } } }, clock, { dispatcher, autoTick: false });
    const checks = [['Shop', 'web', 'up'], ['Blog', 'web', 'down'], ['Billing API', 'api', 'up'], ['Search API', 'api', 'up']] as const;
    for (const [name, folder, state] of checks) {
      const res = await srv.request('POST', '/v1/public/checks', {
        body: { url: `http://127.0.0.1:9/${state}/${name.replace(' ', '-')}`, name, folder, checkFrequency: 0.05, downConfirmationAttempts: 1, immediateRecheckEnabled: false },
      });
      assert.equal(res.status, 201, res.text);
      ids[name] = res.body.data.id;
    }
    srv.app.engine.tick();
    await srv.app.engine.idle();
    browser = await launchBrowser();
    const signedIn = await signedInPage(browser.context, srv.url, srv.adminKey);
    page = signedIn.page;
    problems = signedIn.problems;
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
  });

  const header = async (expected: string) => {
    const counts = page.locator('p.counts');
    await waitFor(async () => (await counts.textContent())?.replace(/\s+/g, ' ').trim() === expected, `the header to read "${expected}"`);
  };
  const statusOption = (status: string) => page.locator(`select[aria-label=Status] option[value=${status}]`).textContent();

  test('the header’s up and down counts are those of the checks the filters show', async () => {
    await header('4 of 4 checks · 3 up · 1 down');
    await page.selectOption('select[aria-label=Folder]', 'api');
    await header('2 of 4 checks · 2 up · 0 down');
    assert.equal(await statusOption('down'), 'down (0)', 'the status menu counts within the other filters');
    assert.equal(await statusOption('up'), 'up (2)');
    await page.selectOption('select[aria-label=Folder]', '');
    await page.selectOption('select[aria-label=Status]', 'down');
    await header('1 of 4 checks · 0 up · 1 down');
    assert.equal(await statusOption('up'), 'up (3)', 'the status menu still offers every status with its count');
    await page.selectOption('select[aria-label=Status]', '');
    await page.fill('#search', 'shop');
    await header('1 of 4 checks · 1 up · 0 down');
    await page.fill('#search', '');
    await header('4 of 4 checks · 3 up · 1 down');
  });

  test('a pause from the dashboard records that it was paused there, and by whom', async () => {
    const id = ids.Shop!;
    await page.goto(`${srv.url}/dashboard#/checks/${id}`);
    await page.click('button:text-is("Pause")');
    await page.waitForSelector('button:text-is("Resume")');
    const check = (await srv.request('GET', `/v1/public/checks/${id}`)).body.data;
    assert.equal(check.disabled, true);
    assert.equal(check.disabledReason, 'Paused from the dashboard by admin@localhost');
    await page.click('button:text-is("Resume")');
    await page.waitForSelector('button:text-is("Pause")');
    const events = (await srv.request('GET', `/v1/public/checks/${id}/history?limit=10`)).body.data as Array<{ status: string; details: { reason?: string } | null }>;
    const reasons = events.filter((e) => e.status === 'paused' || e.status === 'resumed').map((e) => [e.status, e.details?.reason]);
    assert.deepEqual(reasons, [
      ['resumed', 'Resumed from the dashboard by admin@localhost'],
      ['paused', 'Paused from the dashboard by admin@localhost'],
    ]);
    assert.deepEqual(problems, [], 'no page or console error along the way');
  });
});
