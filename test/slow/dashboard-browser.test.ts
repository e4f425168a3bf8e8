import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { startServer, type TestServer } from '../helpers/server.js';
import { browserMissing, launchBrowser, waitForCount } from '../helpers/browser.js';
import { newKey } from '../e2e/util.js';

const missing = browserMissing();
if (missing) console.log(`# dashboard browser tests skipped: ${missing}`);

const SHOTS = new URL('../../../docs/screenshots/', import.meta.url).pathname;

describe('dashboard in a real browser', { skip: missing ?? false, timeout: 180_000 }, () => {
  let srv: TestServer;
  let target: Server;
  let targetUrl = '';
  let healthy = true;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;
  let checkId = '';

  before(async () => {
    // A local site the checks probe for real; the test flips it between 200 and 500.
    target = createServer((_req, res) => {
      res.writeHead(healthy ? 200 : 500, { 'content-type': 'text/plain' });
      res.end(healthy ? 'all good' : 'database unreachable');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    srv = await startServer({ plans: { pro: { minCheckIntervalMinutes: 0.05 } } });
    for (const [i, name] of ['Marketing site', 'Billing API', 'Docs', 'Status webhook'].entries()) {
      const res = await srv.request('POST', '/v1/public/checks', { body: { url: `${targetUrl}/seed/${i}`, name, checkFrequency: 0.05, folder: i % 2 ? 'api' : 'web' } });
      assert.equal(res.status, 201, res.text);
    }
    browser = await launchBrowser();
    context = browser.context;
    page = await context.newPage();
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
    target?.close();
  });

  const signInWithKey = async (p: Page, key: string) => {
    await p.goto(`${srv.url}/dashboard`);
    await p.fill('#api-key', key);
    await p.press('#api-key', 'Enter');
  };

  test('sign in with an API key shows the list', async () => {
    await signInWithKey(page, srv.adminKey);
    await page.waitForSelector('body[data-list-ready="true"]');
    await page.waitForSelector('.row[data-status="up"]');
    assert.equal(await page.locator('.row').count(), 4);
    const cookies = await context.cookies(srv.url);
    const session = cookies.find((c) => c.name === 'vigil_session')!;
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assert.equal(await page.evaluate('document.cookie'), '', 'the page cannot read the session cookie');
  });

  test('create a check through the form, see it probed and its chart get points', async () => {
    await page.click('a[href="#/new"]');
    await page.fill('input[name=url]', 'not a url at all');
    await page.click('button[type=submit]');
    // The API's 400 message appears under the field it is about.
    const urlError = page.locator('label.field.invalid:has(input[name=url]) .field-error');
    await urlError.waitFor();
    assert.match((await urlError.textContent())!, /url/i);

    await page.fill('input[name=url]', `${targetUrl}/created`);
    await page.fill('input[name=name]', 'Checkout');
    await page.fill('input[name=checkFrequency]', '0.05');
    await page.fill('input[name=downConfirmationAttempts]', '1');
    await page.uncheck('input[name=immediateRecheckEnabled]');
    await page.click('button[type=submit]');
    await page.waitForURL(/#\/checks\/chk_/);
    checkId = /#\/checks\/(chk_\w+)/.exec(page.url())![1]!;
    await page.waitForSelector('.badge.big[data-status="up"]');
    await page.click('.seg button:has-text("1h")');
    await page.waitForSelector('.chart:not([data-points=""]):not([data-points="0"])');
    await page.waitForSelector('.chart canvas');
    await page.waitForSelector('table.history tbody tr');
    await page.screenshot({ path: `${SHOTS}dashboard-check.png`, fullPage: true });
  });

  test('the list shows a status change live, without a reload', async () => {
    await page.goto(`${srv.url}/dashboard#/`);
    await page.waitForSelector(`.row[data-id="${checkId}"][data-status="up"]`);
    await page.waitForSelector('body[data-live="open"]');
    await page.evaluate('window.stayed = true');
    healthy = false;
    await page.waitForSelector(`.row[data-id="${checkId}"][data-status="down"]`, { timeout: 30_000 });
    assert.equal(await page.evaluate('window.stayed'), true, 'same page, not reloaded');
    await page.screenshot({ path: `${SHOTS}dashboard-list.png` });
    healthy = true;
    await page.waitForSelector(`.row[data-id="${checkId}"][data-status="up"]`, { timeout: 30_000 });
  });

  test('filters and search narrow the list', async () => {
    await page.fill('#search', 'billing');
    await waitForCount(page, '.row', 1);
    await page.fill('#search', '');
    await page.selectOption('select[aria-label=Folder]', 'api');
    await waitForCount(page, '.row', 2);
    await page.selectOption('select[aria-label=Folder]', '');
  });

  test('edit a check, then delete it after confirming', async () => {
    await page.goto(`${srv.url}/dashboard#/checks/${checkId}/edit`);
    await page.fill('input[name=name]', 'Checkout (edited)');
    await page.click('button[type=submit]');
    await page.waitForSelector('h1:has-text("Checkout (edited)")');
    assert.equal((await srv.request('GET', `/v1/public/checks/${checkId}`)).body.data.name, 'Checkout (edited)');
    await page.click('button.danger:has-text("Delete")');
    await page.click('dialog.confirm button[value=ok]');
    await page.waitForURL(/#\/$/);
    await waitForCount(page, `.row[data-id="${checkId}"]`, 0);
    assert.equal((await srv.request('GET', `/v1/public/checks/${checkId}`)).status, 404);
  });

  test('alerts page, dark theme, keyboard and a phone-sized screen', async () => {
    await page.goto(`${srv.url}/dashboard#/alerts`);
    await page.waitForSelector('h2:has-text("Email")');
    await page.waitForSelector('h2:has-text("Webhooks")');
    await page.fill('input[name=recipients]', 'not-an-address');
    await page.click('form:has(h2:has-text("Email")) button[type=submit]');
    await page.waitForSelector('label.field.invalid:has(input[name=recipients]) .field-error');

    await page.goto(`${srv.url}/dashboard#/`);
    await page.waitForSelector('body[data-list-ready="true"] .row');
    await page.click('button[aria-label^="Theme"]'); // auto → light
    await page.click('button[aria-label^="Theme"]'); // light → dark
    assert.equal(await page.evaluate('document.documentElement.dataset.theme'), 'dark');
    await page.keyboard.press('/');
    assert.equal(await page.evaluate('document.activeElement.id'), 'search');
    await page.keyboard.press('Escape');
    await page.locator('.row').first().focus();
    const next = await page.locator('.row').nth(1).getAttribute('data-id');
    await page.keyboard.press('j');
    // The list moves focus on the next animation frame: wait for it rather than read at once.
    // (A function, not a string: the dashboard's CSP forbids eval. Typed for the page, not Node.)
    type PageGlobals = { document: { activeElement: { dataset?: Record<string, string> } | null } };
    await page.waitForFunction((id) => (globalThis as unknown as PageGlobals).document.activeElement?.dataset?.id === id, next, { timeout: 5_000 });

    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForSelector('.row');
    assert.equal(await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth'), true, 'no sideways scrolling on a phone');
    await page.screenshot({ path: `${SHOTS}dashboard-phone-dark.png` });
    await page.click('button[aria-label^="Theme"]'); // dark → auto
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  test('a login link signs in once', async () => {
    const other = await context.browser()?.newContext();
    const p = other ? await other.newPage() : await context.newPage();
    const { url } = await srv.app.services.people.sessions.createLoginLink(undefined);
    await p.goto(url.replace(srv.app.config.publicUrl, srv.url));
    await p.waitForSelector('body[data-list-ready="true"]');
    assert.equal(new URL(p.url()).hash, '#/', 'the token leaves the address bar');
    await p.close();
  });

  test('a restricted key’s dashboard shows only its checks; a revoked key’s session is refused', async () => {
    await context.clearCookies();
    const all = (await srv.request('GET', '/v1/public/checks/summary')).body.data as Array<{ id: string; name: string }>;
    const docs = all.find((c) => c.name === 'Docs')!;
    const restricted = await newKey(srv, (await srv.app.services.accounts.accounts.findAccount('admin@localhost')).id, { scopes: ['checks:read'], checkIds: [docs.id] });
    await signInWithKey(page, restricted.key);
    await page.waitForSelector('body[data-list-ready="true"]');
    await page.waitForSelector(`.row[data-id="${docs.id}"]`);
    assert.equal(await page.locator('.row').count(), 1);
    assert.equal(await page.locator('a[href="#/new"]').count(), 1, 'the button is there; the API refuses the create');

    await srv.app.services.accounts.accounts.revokeKey(restricted.id);
    await page.goto(`${srv.url}/dashboard#/checks/${docs.id}`);
    await page.reload();
    await page.waitForSelector('#api-key');
    const cookieCount = (await context.cookies(srv.url)).length;
    assert.ok(cookieCount <= 1);
  });
});
