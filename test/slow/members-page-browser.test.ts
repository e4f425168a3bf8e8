import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.js';
import { browserMissing, launchBrowser, signedInPage } from '../helpers/browser.js';
import { NO_PROBES } from '../e2e/util.js';

const missing = browserMissing();

/**
 * Issue 35 item 8 in Chromium: the Members page shows passkeys among the ways a member signs in,
 * offers the only owner neither a role menu nor Remove, and sends an invited member a new
 * set-up link, after which the first one no longer works.
 */
describe('members page: sign-in ways, the only owner, a new set-up link', { skip: missing ?? false, timeout: 120_000 }, () => {
  let srv: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let firstLink: string;
  let keyedId: string;

  before(async () => {
    srv = await startServer({}, undefined, NO_PROBES);
    const invited = await srv.request('POST', '/v1/public/members', { body: { email: 'lost@example.com', role: 'viewer' } });
    assert.equal(invited.status, 201, invited.text);
    firstLink = invited.body.data.setupUrl;
    const keyed = await srv.request('POST', '/v1/public/members', { body: { email: 'keyed@example.com', role: 'editor' } });
    keyedId = keyed.body.data.id;
    await srv.app.store.passkeys.insert({
      id: 'pk_browser', userId: keyedId, credentialId: 'cred-browser', publicKey: Buffer.from([1]), counter: 0, transports: ['internal'],
      name: 'laptop', backedUp: false, createdAt: Date.now(), lastUsedAt: null,
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
  });

  test('passkeys show; the only owner has no role menu and no Remove; an invited member gets a new link', async () => {
    const { page, problems } = await signedInPage(browser.context, srv.url, srv.adminKey);
    await page.goto(`${srv.url}/dashboard#/members`);
    await page.waitForSelector('tr[data-email="keyed@example.com"]');
    const cells = async (email: string) => page.locator(`tr[data-email="${email}"] td`).allTextContents();
    assert.equal((await cells('keyed@example.com'))[2], 'passkey');

    const owner = page.locator('tr[data-email="admin@localhost"]');
    assert.equal(await owner.locator('select').count(), 0, 'no role menu for the only owner');
    assert.equal(await owner.locator('button:has-text("Remove")').count(), 0, 'no Remove for the only owner');
    assert.match((await cells('admin@localhost'))[1]!, /owner \(the only owner\)/);

    await page.click('tr[data-email="lost@example.com"] button:has-text("New set-up link")');
    const url = await page.textContent('#setup-url');
    assert.match(url!, /#setup=vu_/);
    assert.notEqual(url, firstLink);
    const setUp = (link: string) => srv.request('POST', '/v1/public/password-setup', { key: null, body: { token: link.split('#setup=')[1], password: 'a long enough password' } });
    assert.equal((await setUp(firstLink)).status, 400, 'the first link no longer works');
    assert.equal((await setUp(url!)).status, 201, 'the new one does');
    assert.deepEqual(problems, []);
  });
});
