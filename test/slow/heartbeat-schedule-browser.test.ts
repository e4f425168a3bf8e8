import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.js';
import { browserMissing, launchBrowser, signedInPage } from '../helpers/browser.js';
import { assertStatus } from '../e2e/util.js';

const missing = browserMissing();
if (missing) console.log(`# heartbeat schedule browser tests skipped: ${missing}`);

/**
 * Issue 35 item 2 in Chromium: a heartbeat on a cron schedule reads as its schedule in words and
 * cron, with its next expected ping, on its page and in the list, never "every 5 min".
 */
describe('a cron heartbeat on the dashboard', { skip: missing ?? false, timeout: 120_000 }, () => {
  let srv: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let id = '';
  let nextExpectedAt = '';

  before(async () => {
    srv = await startServer({}, undefined, { autoTick: false });
    const created = await srv.request('POST', '/v1/public/checks', {
      body: { type: 'heartbeat', name: 'Nightly backup', schedule: '0 3 * * *', timezone: 'Europe/Paris' },
    });
    assertStatus(created, 201);
    id = created.body.data.id as string;
    nextExpectedAt = (await srv.request('GET', `/v1/public/checks/${id}`)).body.data.nextExpectedAt as string;
    assertStatus(await srv.request('POST', '/v1/public/checks', { body: { type: 'heartbeat', name: 'Every hour job', checkFrequency: 60 } }), 201);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
  });

  test('the list and the check page show the schedule in words and cron and the next expected ping, not an interval', async () => {
    const { page, problems } = await signedInPage(browser.context, srv.url, srv.adminKey);
    const row = page.locator(`.row[data-id="${id}"]`);
    await row.waitFor();
    const schedule = row.locator('[data-schedule]');
    assert.equal(await schedule.textContent(), 'At 03:00, every day');
    const title = (await schedule.getAttribute('title'))!;
    assert.match(title, /cron 0 3 \* \* \*, Europe\/Paris/);
    assert.match(title, /next ping expected/);
    assert.equal(await page.locator('.row:has-text("Every hour job") [data-schedule]').count(), 0, 'an interval heartbeat shows no schedule');

    await row.click();
    const cadence = page.locator('[data-cadence]');
    await cadence.waitFor();
    const header = (await cadence.textContent())!;
    assert.doesNotMatch(header, /every 5 min/);
    assert.match(header, /heartbeat · at 03:00, every day \(cron 0 3 \* \* \*, Europe\/Paris\)/);
    const next = (await page.locator('[data-next-ping]').textContent())!;
    // The next run as the browser writes it, its zone named.
    const expected = await page.evaluate(
      (iso) => new Date(iso).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }),
      nextExpectedAt,
    );
    assert.equal(next, `Next ping expected ${expected}`);
    assert.deepEqual(problems, []);
  });
});
