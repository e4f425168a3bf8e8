import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { startServer, type TestServer } from '../helpers/server.js';
import { createCheck, newAccount, NO_PROBES, setMonitorStatus } from '../e2e/util.js';

/**
 * The public status page in Debian's Chromium: complete with JavaScript off, and with it on the
 * page follows a status change without a reload (its refresh script; the app purges the cache).
 */
const CHROMIUM = process.env.VIGIL_CHROMIUM ?? '/usr/bin/chromium';
const missing = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (install the Debian package chromium)`;

let server: TestServer;
let browser: Browser;
let checkId: string;

before(async () => {
  if (missing) return;
  server = await startServer({}, undefined, NO_PROBES);
  const owner = await newAccount(server, { tier: 'pro' });
  checkId = await createCheck(server, { url: 'https://browser.example.com', name: 'Storefront' }, owner.key);
  await setMonitorStatus(server, checkId, 'up');
  const page = await server.request('POST', '/v1/public/status-pages', { body: { slug: 'shop', title: 'Shop status', checkIds: [checkId] }, key: owner.key });
  assert.equal(page.status, 201);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('with JavaScript off the page is complete', { skip: missing }, async () => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    const res = await page.goto(`${server.url}/status/shop`);
    assert.equal(res?.status(), 200);
    assert.equal(await page.textContent('h1'), 'Shop status');
    assert.equal(await page.textContent('.banner'), 'All systems operational');
    assert.equal(await page.textContent(`#check-${checkId} .pill`), 'Operational');
    assert.equal(await page.locator('.bars').count(), 1);
  } finally {
    await context.close();
  }
});

test('with JavaScript on, an outage appears without a reload', { skip: missing }, async () => {
  const context = await browser.newContext({ colorScheme: 'dark', viewport: { width: 390, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(`${server.url}/status/shop`);
    await page.waitForSelector('[data-status="up"]');
    const background = await page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    assert.notEqual(background, 'rgb(246, 247, 249)', 'the dark palette follows prefers-color-scheme');
    // Page scripts run in the browser: passed as text, since this project compiles without DOM types.
    await page.evaluate('window.marker = true');
    await setMonitorStatus(server, checkId, 'down');
    server.app.pageCache.purgeCheck(checkId);
    await page.waitForSelector('[data-status="down"]', { timeout: 15_000 });
    assert.equal(await page.textContent('.banner'), 'Major outage');
    assert.equal(await page.evaluate<boolean>('window.marker === true'), true, 'the same document: no reload');
  } finally {
    await context.close();
  }
});
