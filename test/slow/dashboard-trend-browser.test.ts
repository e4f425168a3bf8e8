import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { ManualClock } from '../../src/domain/clock.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { waitFor } from '../helpers/fixtures/probe-task.js';
import { browserMissing, launchBrowser, signedInPage } from '../helpers/browser.js';

const missing = browserMissing();

/**
 * Issue 35 item 11 in Chromium: on a fresh install a check has one hour of response times, which
 * the list's Trend column marks with a dot; the dot is drawn whole, inside its column.
 */
describe('dashboard: the Trend column of a fresh install', { skip: missing ?? false, timeout: 180_000 }, () => {
  const clock = new ManualClock(Date.now());
  const dispatcher = new ScriptedDispatcher(() => ({ ok: true, responseTime: 50 }), () => clock.now());
  let srv: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;

  before(async () => {
    srv = await startServer({}, clock, { dispatcher, autoTick: false });
    const res = await srv.request('POST', '/v1/public/checks', { body: { url: 'http://127.0.0.1:9/shop', name: 'Shop' } });
    assert.equal(res.status, 201, res.text);
    srv.app.engine.tick();
    await srv.app.engine.idle();
    browser = await launchBrowser();
    page = (await signedInPage(browser.context, srv.url, srv.adminKey)).page;
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
  });

  test('the lone hour\'s dot lies wholly within the Trend cell and its drawing', async () => {
    await waitFor(async () => (await page.locator('.sparkcell circle').count()) === 1, 'the lone hour\'s dot');
    const boxes = await page.evaluate<Array<{ left: number; right: number; top: number; bottom: number }>>(`(() => {
      const dot = document.querySelector('.sparkcell circle');
      return [dot, dot.closest('svg'), dot.closest('.sparkcell')].map((e) => { const r = e.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }; });
    })()`);
    const [dot, svg, cell] = boxes as [typeof boxes[0], typeof boxes[0], typeof boxes[0]];
    for (const [name, box] of [['drawing', svg], ['Trend cell', cell]] as const) {
      assert.ok(dot.left >= box.left && dot.right <= box.right && dot.top >= box.top && dot.bottom <= box.bottom, `the dot ${JSON.stringify(dot)} is inside the ${name} ${JSON.stringify(box)}`);
    }
  });
});
