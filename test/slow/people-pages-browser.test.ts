import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.js';
import { browserMissing, launchBrowser, signedInPage, waitForEveryData } from '../helpers/browser.js';
import { NO_PROBES } from '../e2e/util.js';

const missing = browserMissing();
if (missing) console.log(`# people pages browser tests skipped: ${missing}`);

/** The Members page, an invitation's set-up page and the Audit log page in Chromium (issue 28). */
describe('members, set-up link and audit log in a real browser', { skip: missing ?? false, timeout: 120_000 }, () => {
  let srv: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  before(async () => {
    srv = await startServer({}, undefined, NO_PROBES);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
  });

  test('an admin invites a viewer, who sets a password from the link; the audit log shows who did what', async () => {
    const { page, problems } = await signedInPage(browser.context, srv.url, srv.adminKey);
    await page.goto(`${srv.url}/dashboard#/members`);
    await page.waitForSelector('tr[data-email="admin@localhost"]');
    await page.fill('input[name=email]', 'newbie@example.com');
    await page.selectOption('form select[name=role]', 'viewer');
    await page.click('form button[type=submit]');
    const url = await page.textContent('#setup-url');
    assert.match(url!, /#setup=vu_/);
    await page.waitForSelector('tr[data-email="newbie@example.com"]');

    // The invitee opens the link in a tab of their own (the same browser: their session replaces the admin's).
    const invitee = await browser.context.newPage();
    await invitee.goto(url!.replace(srv.app.config.publicUrl, srv.url));
    await invitee.fill('#new-password', 'newbie password 1');
    await invitee.fill('#new-password-again', 'newbie password 1');
    await invitee.click('button[type=submit]');
    await invitee.waitForSelector('.who');
    assert.equal((await invitee.textContent('.who'))!.trim(), 'newbie@example.com · viewer');
    assert.equal(await invitee.locator('nav a[href="#/members"]').count(), 0, 'a viewer does not manage members');

    await browser.context.clearCookies();
    const admin = await signedInPage(browser.context, srv.url, srv.adminKey);
    await admin.page.goto(`${srv.url}/dashboard#/audit-log`);
    await admin.page.waitForSelector('tr[data-action="session.sign_in"]');
    const rows = await admin.page.locator('table.audit tbody tr').allTextContents();
    assert.ok(rows.some((r) => r.includes('member.create') && r.includes('newbie@example.com')), rows.join('\n'));
    assert.ok(rows.some((r) => r.includes('session.sign_in') && r.includes('newbie@example.com')), rows.join('\n'));
    await admin.page.fill('input[name=action]', 'member.');
    await admin.page.click('form.filters button[type=submit]');
    await waitForEveryData(admin.page, 'table.audit tbody tr', 'action', 'member.');
    assert.deepEqual([...problems, ...admin.problems], []);
  });
});
