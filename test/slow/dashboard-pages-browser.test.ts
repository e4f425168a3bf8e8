import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { ManualClock } from '../../src/domain/clock.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { waitFor } from '../helpers/fixtures/probe-task.js';
import { browserMissing, launchBrowser } from '../helpers/browser.js';
import { KEY_PATTERN } from '../e2e/util.js';

const missing = browserMissing();
if (missing) console.log(`# dashboard pages browser tests skipped: ${missing}`);

// Functions run in the page (the dashboard's CSP forbids eval of strings), typed for the page, not Node.
type PageGlobals = {
  document: { querySelectorAll(sel: string): { length: number }; querySelector(sel: string): unknown };
  getComputedStyle(el: unknown): { backgroundColor: string };
};
const SHOTS = new URL('../../../docs/screenshots/', import.meta.url).pathname;

/**
 * The dashboard's status-page and key pages, beat bars and `degraded` (issue 23 item 7) in
 * Chromium. Probes are scripted and the wheel turned by hand, so each result is one the test chose.
 */
describe('dashboard pages in a real browser', { skip: missing ?? false, timeout: 180_000 }, () => {
  const clock = new ManualClock(Date.now());
  let answer: { ok: boolean; responseTime?: number } = { ok: true };
  const dispatcher = new ScriptedDispatcher(() => answer, () => clock.now());
  let srv: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const ids: Record<string, string> = {};
  const errors: string[] = [];

  const probe = async (next: typeof answer) => {
    answer = next;
    clock.advance(3_000);
    srv.app.engine.tick();
    await waitFor(() => Object.values(ids).every((id) => srv.app.services.monitoring.lastProbe(id)?.at === clock.now()), 'every check probed');
    await srv.app.recorder.idle();
  };

  before(async () => {
    srv = await startServer({ plans: { pro: { minCheckIntervalMinutes: 0.05 } } }, clock, { dispatcher, autoTick: false });
    for (const [name, extra] of [['Website', {}], ['Billing API', { folder: 'api' }], ['Search', { responseTimeLimit: 500 }]] as const) {
      const res = await srv.request('POST', '/v1/public/checks', {
        body: { url: `http://127.0.0.1:9/${name.replace(' ', '-')}`, name, checkFrequency: 0.05, downConfirmationAttempts: 1, immediateRecheckEnabled: false, ...extra },
      });
      assert.equal(res.status, 201, res.text);
      ids[name] = res.body.data.id;
    }
    await probe({ ok: true, responseTime: 120 });
    await probe({ ok: true, responseTime: 130 });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (err) => errors.push(err.message));
    // Chromium logs each refused request (the 409 the test provokes) as a console error: those are expected.
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) errors.push(msg.text());
    });
    mkdirSync(SHOTS, { recursive: true });
    await page.goto(`${srv.url}/dashboard`);
    await page.fill('#api-key', srv.adminKey);
    await page.press('#api-key', 'Enter');
    await page.waitForSelector('body[data-list-ready="true"] .row');
    await page.waitForSelector('body[data-live="open"]');
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
  });

  const colour = (selector: string) => page.$eval(selector, (el) => (globalThis as unknown as PageGlobals).getComputedStyle(el).backgroundColor);

  test('beat bars show each row’s latest results as ticks, green for up and red for down, updated live', async () => {
    const row = `.row[data-id="${ids.Website}"]`;
    await page.waitForFunction((sel) => (globalThis as unknown as PageGlobals).document.querySelectorAll(`${sel} .tick.up`).length === 2, row);
    assert.equal(await page.locator(`${row} .tick.down`).count(), 0);
    await probe({ ok: false });
    await page.waitForSelector(`${row}[data-status="down"]`);
    await page.waitForSelector(`${row} .tick.down`);
    assert.equal(await page.locator(`${row} .tick.up`).count(), 2);
    assert.equal(await page.locator(`${row} .tick.down`).count(), 1);
    const ticks = await page.$$eval(`${row} .tick:not(.none)`, (els) => els.map((e) => e.className));
    assert.deepEqual(ticks, ['tick up', 'tick up', 'tick down'], 'oldest first, the newest on the right');
    assert.equal(await colour(`${row} .tick.up`), 'rgb(22, 163, 74)');
    assert.equal(await colour(`${row} .tick.down`), 'rgb(220, 38, 38)');
    assert.match((await page.getAttribute(`${row} .beats`, 'aria-label'))!, /Last 3 results: 2 up, 1 down/);
    await probe({ ok: true, responseTime: 110 });
    await page.waitForSelector(`${row}[data-status="up"]`);
  });

  test('a check slower than “Slow above (ms)” shows degraded in the list and on its page, as the status endpoint says', async () => {
    const row = `.row[data-id="${ids.Search}"]`;
    await page.waitForSelector(`${row}[data-status="up"]`);
    await probe({ ok: true, responseTime: 900 });
    const status = (await srv.request('GET', '/v1/public/checks/status')).body.data.find((c: { id: string }) => c.id === ids.Search);
    assert.equal(status.status, 'degraded');
    await page.waitForSelector(`${row}[data-status="degraded"]`);
    assert.equal((await page.textContent(`${row} .badge`))?.trim(), 'degraded');
    assert.equal(await colour(`${row} .dot`), 'rgb(217, 119, 6)');
    await page.screenshot({ path: `${SHOTS}dashboard-beats.png` });

    await page.click(`${row}`);
    await page.waitForSelector('.badge.big[data-status="degraded"]');
    assert.match((await page.textContent('.page-head'))!, /slow above 500 ms/);
    assert.match((await page.textContent('.stats'))!, /slower than 500 ms/);

    await probe({ ok: true, responseTime: 100 });
    await page.waitForSelector('.badge.big[data-status="up"]');
    await page.goto(`${srv.url}/dashboard#/`);
    await page.waitForSelector(`${row}[data-status="up"]`);
  });

  test('create a status page with chosen checks, edit it, and open it', async () => {
    await page.click('nav a[href="#/status-pages"]');
    await page.waitForSelector('text=No status pages yet');
    await page.click('a[href="#/status-pages/new"]');
    await page.fill('input[name=title]', 'Acme status');
    assert.equal(await page.inputValue('input[name=slug]'), 'acme-status', 'the slug follows the title');
    await page.click(`.picker-list label[data-id="${ids['Billing API']}"] input`);
    await page.fill('.picker-search', 'web');
    await page.click(`.picker-list label[data-id="${ids.Website}"] input`);
    await page.click('button[type=submit]');
    await page.waitForURL(/#\/status-pages\/spg_/);
    const pageId = /#\/status-pages\/(spg_\w+)/.exec(page.url())![1]!;
    let saved = (await srv.request('GET', `/v1/public/status-pages/${pageId}`)).body.data;
    assert.deepEqual(saved.checkIds, [ids['Billing API'], ids.Website]);

    // Edit: a new title, a description, the website first.
    await page.waitForSelector('h1:has-text("Edit Acme status")');
    await page.fill('input[name=title]', 'Acme services');
    await page.fill('textarea[name=description]', 'Everything we run');
    await page.click(`.chosen li[data-id="${ids.Website}"] button[aria-label="Move up"]`);
    await page.click('button[type=submit]');
    await waitFor(async () => (await srv.request('GET', `/v1/public/status-pages/${pageId}`)).body.data.title === 'Acme services', 'the edit to be saved');
    saved = (await srv.request('GET', `/v1/public/status-pages/${pageId}`)).body.data;
    assert.deepEqual(saved.checkIds, [ids.Website, ids['Billing API']]);
    assert.equal(saved.slug, 'acme-status', 'an edited title keeps the slug');
    assert.equal(saved.description, 'Everything we run');

    // A slug already taken: the API's 409 appears under the field.
    await srv.request('POST', '/v1/public/status-pages', { body: { slug: 'taken', title: 'Other', checkIds: [] } });
    await page.fill('input[name=slug]', 'taken');
    await page.click('button[type=submit]');
    await page.waitForSelector('label.field.invalid:has(input[name=slug]) .field-error');
    await page.fill('input[name=slug]', 'acme-status');

    const href = await page.getAttribute('#open-page', 'href');
    assert.equal(href, `${srv.app.config.publicUrl}/status/acme-status`);
    assert.equal(await page.getAttribute('#open-page', 'target'), '_blank');
    await page.goto('about:blank');
    await page.goto(`${srv.url}/dashboard#/status-pages`);
    await page.waitForSelector('li[data-slug="acme-status"] h2:has-text("Acme services")');
    await page.screenshot({ path: `${SHOTS}dashboard-status-pages.png` });
    const pub = await browser.context.newPage();
    await pub.goto(href!.replace(srv.app.config.publicUrl, srv.url));
    const text = (await pub.textContent('body'))!;
    assert.match(text, /Acme services/);
    assert.ok(text.indexOf('Website') >= 0 && text.indexOf('Website') < text.indexOf('Billing API'), 'the checks in the page’s order');
    assert.ok(!text.includes('Search'), 'only the chosen checks');
    await pub.close();
  });

  test('open an incident on a page, post updates until it is resolved, and see the timeline', async () => {
    const pageId = (await srv.request('GET', '/v1/public/status-pages')).body.data.find((p: { slug: string }) => p.slug === 'acme-status').id;
    await page.goto(`${srv.url}/dashboard#/status-pages/${pageId}`);
    await page.waitForSelector('#incidents');
    await page.click('.new-incident summary');
    await page.fill('input[name=incidentTitle]', 'Billing is slow');
    await page.selectOption('select[name=impact]', 'major');
    await page.fill('textarea[name=message]', 'We are looking into it.');
    await page.click(`.incident-form label.check:has-text("Billing API") input`);
    await page.click('.incident-form button[type=submit]');
    const card = page.locator('article.incident[data-status="investigating"]');
    await card.waitFor();
    const made = (await srv.request('GET', `/v1/public/status-pages/${pageId}/incidents`)).body.data[0];
    assert.equal(made.title, 'Billing is slow');
    assert.equal(made.impact, 'major');
    assert.deepEqual(made.checkIds, [ids['Billing API']]);

    await card.locator('select[name=updateStatus]').selectOption('resolved');
    await card.locator('textarea[name=updateMessage]').fill('Back to normal.');
    await card.locator('button[type=submit]').click();
    await page.waitForSelector(`article.incident[data-incident="${made.id}"][data-status="resolved"]`);
    const timeline = await page.locator(`article.incident[data-incident="${made.id}"] .timeline li`).allTextContents();
    assert.equal(timeline.length, 2);
    assert.match(timeline[0]!, /Resolved[^]*Back to normal\./, 'the newest update first');
    const after = (await srv.request('GET', `/v1/public/status-pages/${pageId}/incidents/${made.id}`)).body.data;
    assert.equal(after.status, 'resolved');

    // A visitor subscribes through the public form; the editor counts and removes the address.
    const sub = await fetch(`${srv.url}/status/acme-status/subscribe`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'kind=email&email=fan%40example.com',
    });
    assert.equal(sub.status, 200);
    await page.reload();
    await page.waitForSelector('#subscriber-counts:has-text("1 waiting for confirmation")');
    await page.click('#subscribers li:has-text("fan@example.com") button:has-text("Remove")');
    await page.click('dialog.confirm button[value=ok]');
    await page.waitForSelector('#subscriber-counts:has-text("0 email · 0 webhook")');
    assert.equal((await srv.request('GET', `/v1/public/status-pages/${pageId}/subscribers`)).body.data.length, 0);

    // The page's look: a bad colour is refused under its field, a good one saved.
    await page.fill('input[name=accentColor]', 'red');
    await page.click('form.status-page-form button[type=submit]');
    await page.waitForSelector('label.field.invalid:has(input[name=accentColor]) .field-error');
    await page.fill('input[name=accentColor]', '#e8590c');
    await page.fill('input[name=logoUrl]', 'https://cdn.example.com/logo.png');
    await page.check('input[name=hidePoweredBy]');
    // Who may embed it: a path is refused under its field, origins one a line are saved.
    await page.fill('textarea[name=embedAllowedOrigins]', 'https://www.example.com/embed');
    await page.click('form.status-page-form button[type=submit]');
    await page.waitForSelector('label.field.invalid:has(textarea[name=embedAllowedOrigins]) .field-error');
    await page.fill('textarea[name=embedAllowedOrigins]', 'https://www.example.com\nhttps://docs.example.com');
    await page.click('form.status-page-form button[type=submit]');
    await waitFor(async () => (await srv.request('GET', `/v1/public/status-pages/${pageId}`)).body.data.accentColor === '#e8590c', 'the look to be saved');
    const looked = (await srv.request('GET', `/v1/public/status-pages/${pageId}`)).body.data;
    assert.equal(looked.logoUrl, 'https://cdn.example.com/logo.png');
    assert.equal(looked.hidePoweredBy, true);
    assert.deepEqual(looked.embedAllowedOrigins, ['https://www.example.com', 'https://docs.example.com']);
    assert.deepEqual(errors, []);
  });

  test('create a key with scopes and a restriction, see its secret once, revoke it and see the API refuse it', async () => {
    await page.goto(`${srv.url}/dashboard#/keys`);
    await page.waitForSelector('table.keys tbody tr');
    await page.fill('input[name=name]', 'CI deploys');
    await page.check('input[name=scope][value="checks:write"]');
    await page.check('input[name=restrict]');
    await page.check('input[name=folder][value="api"]');
    await page.click('form:has(h2:has-text("Create a key")) button[type=submit]');
    const secret = (await page.locator('#new-key').textContent())!.trim();
    assert.match(secret, KEY_PATTERN);
    await page.screenshot({ path: `${SHOTS}dashboard-keys.png`, fullPage: true });

    const seen = await srv.request('GET', '/v1/public/checks', { key: secret });
    assert.equal(seen.status, 200);
    assert.deepEqual(seen.body.data.map((c: { id: string }) => c.id), [ids['Billing API']], 'only the api folder');
    const made = (await srv.request('GET', '/v1/public/keys')).body.data.find((k: { name: string }) => k.name === 'CI deploys');
    assert.deepEqual(made.scopes, ['checks:read', 'checks:write']);
    assert.deepEqual(made.access, { checkIds: [], folders: ['api'] });

    await page.click('button:has-text("I have copied it")');
    assert.equal(await page.locator('#new-key').count(), 0);
    await page.reload();
    await page.waitForSelector(`tr[data-id="${made.id}"]`);
    assert.ok(!(await page.content()).includes(secret), 'the secret is never shown again');

    await page.click(`tr[data-id="${made.id}"] button:has-text("Revoke")`);
    await page.click('dialog.confirm button[value=ok]');
    await page.waitForFunction((id) => !(globalThis as unknown as PageGlobals).document.querySelector(`tr[data-id="${id}"]`), made.id);
    const refused = await srv.request('GET', '/v1/public/checks', { key: secret });
    assert.equal(refused.status, 401);
    assert.match(refused.body.error.message, /revoked/);
    await page.check('text=Show 1 revoked >> input');
    await page.waitForSelector(`tr[data-id="${made.id}"][data-status="revoked"]`);
  });

  test('maintenance windows: schedule one for every check, see it active, end it; tags show in the list and filter it', async () => {
    await page.goto(`${srv.url}/dashboard#/maintenance`);
    await page.click('button:has-text("Schedule maintenance")');
    await page.fill('.window-form input[name=title]', 'Network change');
    const local = (ms: number) => {
      const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
      return d.toISOString().slice(0, 16);
    };
    await page.fill('.window-form input[name=startsAt]', local(clock.now() - 60_000));
    await page.fill('.window-form input[name=endsAt]', local(clock.now() + 3_600_000));
    await page.check('.window-form input[name=scope][value=all]');
    await page.click('.window-form button[type=submit]');
    await page.waitForSelector('li[data-active="true"]:has-text("Network change")');
    await srv.app.windows.reconcile();
    const status = await srv.request('GET', `/v1/public/checks/${ids.Website}`);
    assert.equal(status.body.data.maintenanceMode, true, 'the window holds the checks in maintenance');
    await page.click('li:has-text("Network change") button:has-text("End")');
    await page.click('dialog.confirm button[value=ok]');
    await page.waitForSelector('li[data-active="false"]:has-text("Network change")');
    await srv.app.windows.reconcile();
    assert.equal((await srv.request('GET', `/v1/public/checks/${ids.Website}`)).body.data.maintenanceMode, false);

    assert.equal((await srv.request('PATCH', `/v1/public/checks/${ids.Search}`, { body: { tags: ['team:search'] } })).status, 200);
    await page.goto(`${srv.url}/dashboard#/`);
    await page.waitForSelector(`.row[data-id="${ids.Search}"] .tag:has-text("team:search")`);
    await page.selectOption('select[aria-label=Tag]', 'team');
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelectorAll('.rows .row').length === 1);
    await page.selectOption('select[aria-label=Tag]', '');
  });

  test('no page error or console error on any of these pages', () => {
    assert.deepEqual(errors, []);
  });
});
