import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser } from 'playwright-core';
import { startServer, type TestServer } from '../helpers/server.js';
import { browserMissing, CHROMIUM, CHROMIUM_ARGS } from '../helpers/browser.js';
import { startSmtpSink, type SmtpSink } from '../helpers/fixtures/alerts-smtp.js';
import { createCheck, newAccount, NO_PROBES, type Actor } from '../e2e/util.js';

/**
 * A status page's incident timeline and its subscribe form in Debian's Chromium (issue 29):
 * with JavaScript off the timeline is there and the form subscribes (double opt-in through the
 * confirmation page's button); with it on, a new update appears without a reload.
 */
const missing = browserMissing();
let server: TestServer;
let sink: SmtpSink;
let browser: Browser;
let owner: Actor;
let pageId: string;
let incidentId: string;

before(async () => {
  if (missing) return;
  sink = await startSmtpSink();
  server = await startServer({ smtp: { url: sink.url, from: 'Vigil <vigil@test.local>' } }, undefined, NO_PROBES);
  owner = newAccount(server, { tier: 'pro' });
  const checkId = await createCheck(server, { url: 'https://browser.example.com', name: 'Storefront' }, owner.key);
  const page = await server.request('POST', '/v1/public/status-pages', { body: { slug: 'timeline', title: 'Timeline status', checkIds: [checkId] }, key: owner.key });
  pageId = page.body.data.id;
  const incident = await server.request('POST', `/v1/public/status-pages/${pageId}/incidents`, {
    key: owner.key, body: { title: 'Checkout errors', impact: 'major', message: 'We are investigating.', checkIds: [checkId] },
  });
  incidentId = incident.body.data.id;
  await update('identified', 'A bad deploy; rolling back.');
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await sink?.close();
});

async function update(status: string, message: string): Promise<void> {
  const res = await server.request('POST', `/v1/public/status-pages/${pageId}/incidents/${incidentId}/updates`, { key: owner.key, body: { status, message } });
  assert.equal(res.status, 201, res.text);
}

test('with JavaScript off: the timeline, and the form subscribes through a confirmation page', { skip: missing ?? false }, async () => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    await page.goto(`${server.url}/status/timeline`);
    const incident = page.locator(`#incident-${incidentId}`);
    assert.equal(await incident.locator('h3').textContent(), 'Checkout errors');
    assert.deepEqual(
      (await incident.locator('.timeline li strong').allTextContents()),
      ['Identified', 'Investigating'],
      'the newest update first',
    );
    assert.match((await incident.locator('.timeline li').first().textContent())!, /A bad deploy; rolling back\./);
    const box = await incident.boundingBox();
    const checks = await page.locator('.check').first().boundingBox();
    assert.ok(box && checks && box.y < checks.y, 'the open incident is shown above the checks');

    await page.fill('#sub-email', 'visitor@example.com');
    await page.click('#subscribe form button[type=submit]');
    await page.waitForSelector('h1:has-text("Check your inbox")');
    await sink.waitFor(1);
    const link = /http:\/\/\S+\/confirm/.exec(sink.mails[0]!.text!)![0];
    await page.goto(link.replace(server.app.config.publicUrl, server.url));
    await page.click('button:has-text("Confirm")');
    await page.waitForSelector('h1:has-text("Subscribed")');

    await update('monitoring', 'The rollback is out.');
    await sink.waitFor(2);
    assert.equal(sink.mails[1]!.subject, '[Timeline status] Checkout errors: Monitoring');
  } finally {
    await context.close();
  }
});

test('with JavaScript on, a new update appears in the timeline without a reload', { skip: missing ?? false }, async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    await page.goto(`${server.url}/status/timeline`);
    await page.waitForSelector(`#incident-${incidentId}`);
    await update('resolved', 'All clear.');
    await page.waitForSelector('.incidents.past .timeline li:has-text("All clear.")', { timeout: 20_000 });
    assert.equal(await page.locator('.incidents.open').count(), 0, 'resolved: no longer among the open ones');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
