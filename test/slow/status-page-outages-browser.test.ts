import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { startServer, type TestServer } from '../helpers/server.js';
import { browserMissing, CHROMIUM, CHROMIUM_ARGS } from '../helpers/browser.js';
import { createCheck, newAccount } from '../e2e/util.js';

/**
 * Issue 35 item 7, in Chromium: an outage shorter than a minute does not read "1 min", an
 * ongoing outage is shown as current (not under "Past incidents"), and the browser's request
 * for /favicon.ico is answered, on the main address and on a page's custom domain.
 */
const missing = browserMissing() ?? false;

let server: TestServer;
let browser: Browser;

/** A heartbeat check on the page, and its ping URL on this server. */
async function heartbeat(key: string, name: string): Promise<{ id: string; ping: (query: string) => Promise<void> }> {
  const id = await createCheck(server, { type: 'heartbeat', name, checkFrequency: 5 }, key);
  const { url } = (await server.request('GET', `/v1/public/checks/${id}`, { key })).body.data as { url: string };
  const path = new URL(url).pathname;
  return { id, ping: async (query) => assert.equal((await fetch(`${server.url}${path}${query}`)).status, 200) };
}

before(async () => {
  if (missing) return;
  server = await startServer();
  const owner = await newAccount(server, { tier: 'pro' });
  const blip = await heartbeat(owner.key, 'Blip job');
  const broken = await heartbeat(owner.key, 'Broken job');
  // Down and up again at once: an outage of 0 s.
  await blip.ping('?status=down&msg=flaky');
  await blip.ping('?status=up');
  await broken.ping('?status=down&msg=failed');
  const created = await server.request('POST', '/v1/public/status-pages', {
    body: { slug: 'jobs', title: 'Jobs', checkIds: [blip.id, broken.id], customDomain: 'status.jobs.example', favicon: 'https://cdn.jobs.example/icon.png' },
    key: owner.key,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const plain = await server.request('POST', '/v1/public/status-pages', { body: { slug: 'plain', title: 'Plain', checkIds: [blip.id] }, key: owner.key });
  assert.equal(plain.status, 201, JSON.stringify(plain.body));
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('a 0 s outage is "resolved in under a minute"; an ongoing one is shown as current, not as past', { skip: missing }, async () => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    assert.equal((await page.goto(`${server.url}/status/jobs`))?.status(), 200);
    const past = await page.evaluate<string>(`(() => {
      const heading = [...document.querySelectorAll('h2')].find((h) => h.textContent.startsWith('Past incidents'));
      let text = '';
      for (let n = heading.nextElementSibling; n && n.tagName !== 'H2' && !n.matches('footer'); n = n.nextElementSibling) text += n.textContent + '\\n';
      return text;
    })()`);
    assert.match(past, /Blip job was down since .*, resolved in under a minute/);
    assert.doesNotMatch(past, /1 min/);
    assert.doesNotMatch(past, /Broken job/, 'the ongoing outage is not a past incident');
    const ongoing = await page.textContent('[aria-label="Ongoing outages"]');
    assert.match(ongoing ?? '', /Ongoing outages.*Broken job is down since .*, for under a minute/s);
  } finally {
    await context.close();
  }
});

test('/favicon.ico: Vigil\'s icon on the main address, the page\'s own on its custom domain', { skip: missing }, async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const icon = await page.goto(`${server.url}/favicon.ico`);
    assert.equal(icon?.status(), 200);
    assert.match(icon?.headers()['content-type'] ?? '', /^image\/svg\+xml/);
    // The browser shows it as an image: it decodes.
    const width = await page.evaluate<number>(`new Promise((resolve) => { const i = new Image(); i.onload = () => resolve(i.naturalWidth); i.onerror = () => resolve(0); i.src = '/favicon.ico'; })`);
    assert.ok(width > 0, 'the icon decodes as an image');
    const onDomain = await new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      const req = httpRequest(`${server.url}/favicon.ico`, { headers: { host: 'status.jobs.example' } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, location: res.headers.location });
      });
      req.on('error', reject);
      req.end();
    });
    assert.deepEqual(onDomain, { status: 302, location: 'https://cdn.jobs.example/icon.png' });
  } finally {
    await context.close();
  }
});
