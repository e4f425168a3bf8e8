import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startServer, type TestServer } from '../helpers/server.js';
import { browserMissing, launchBrowser, LOCALHOST_IPV4 } from '../helpers/browser.js';
import { totpCode } from '../../src/people/totp-codes.js';
import { NO_PROBES } from '../e2e/util.js';

const missing = browserMissing();
if (missing) console.log(`# people browser tests skipped: ${missing}`);

/**
 * Members in Chromium (issue 28 item 5): an owner sets a password and turns on TOTP, invites a
 * viewer who accepts through the set-up link and can change nothing, signs in again with password
 * and TOTP, and reads in the audit log who did what.
 */
describe('members in a real browser: password and TOTP, an invitation, a viewer, the audit log', { skip: missing ?? false, timeout: 180_000 }, () => {
  let srv: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const problems: string[] = [];
  const ownerPassword = 'owner pass phrase 2026';
  let totpSecret = '';
  let setupUrl = '';

  before(async () => {
    srv = await startServer({}, undefined, NO_PROBES);
    browser = await launchBrowser([LOCALHOST_IPV4]);
    page = await browser.context.newPage();
    page.on('pageerror', (err) => problems.push(err.message));
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
  });

  const signOut = async () => {
    await page.click('header button:has-text("Sign out")');
    await page.waitForSelector('#password-form');
  };
  const who = async () => (await page.textContent('header .who'))!.trim();

  test('the owner sets a password and turns on TOTP with the QR code, then gets ten recovery codes', async () => {
    await page.goto((await srv.app.services.people.sessions.createLoginLink(undefined)).url);
    await page.waitForSelector('body[data-list-ready="true"]');
    assert.equal(await who(), 'admin@localhost · owner');
    await page.click('a[href="#/security"]');
    await page.fill('#password input[name=newPassword]', ownerPassword);
    await page.click('#password button[type=submit]');
    await page.waitForSelector('.toast:has-text("Password saved")');
    await page.click('#totp-begin');
    await page.waitForSelector('#totp-enrol img.qr');
    assert.match((await page.getAttribute('#totp-enrol img.qr', 'src'))!, /^data:image\/svg\+xml;base64,/);
    totpSecret = (await page.textContent('#totp-secret'))!.trim();
    await page.fill('input[name=totpCode]', totpCode(totpSecret, Date.now()));
    await page.click('#totp-enrol button[type=submit]');
    await page.waitForSelector('#recovery-codes');
    assert.equal(await page.locator('#recovery-codes li').count(), 10);
    await page.click('#recovery-codes button');
    await page.waitForSelector('#totp-on');
  });

  test('the owner invites a viewer and gets the set-up link to pass on', async () => {
    await page.click('a[href="#/members"]');
    const invite = page.locator('form:has(button:has-text("Invite"))');
    await invite.locator('input[name=email]').fill('vera@example.com');
    await invite.locator('select[name=role]').selectOption('viewer');
    await invite.locator('button[type=submit]').click();
    setupUrl = (await page.textContent('#setup-url'))!.trim();
    assert.match(setupUrl, /#setup=/);
    await page.waitForSelector('tr[data-email="vera@example.com"]');
  });

  test('the viewer accepts the invitation, is signed in, and can change nothing', async () => {
    await signOut();
    await page.goto(setupUrl);
    await page.fill('#new-password', 'vera has a long password');
    await page.fill('#new-password-again', 'vera has a long password');
    await page.click('form:has(#new-password) button[type=submit]');
    await page.waitForSelector('body[data-list-ready="true"]');
    assert.equal(await who(), 'vera@example.com · viewer');
    assert.equal(await page.locator('a[href="#/members"]').count(), 0, 'no members page for a viewer');
    await page.click('a[href="#/new"]');
    await page.fill('input[name=url]', 'https://example.com/');
    await page.fill('input[name=name]', 'Not allowed');
    await page.click('button[type=submit]');
    await page.waitForSelector('text=/The viewer role cannot/');
    assert.equal((await srv.request('GET', '/v1/public/checks')).body.data.length, 0, 'nothing was created');
  });

  test('the owner signs in with email, password and a TOTP code, and the audit log says who did what', async () => {
    await signOut();
    await page.fill('#email', 'admin@localhost');
    await page.fill('#password', 'a wrong password');
    await page.click('#password-form button[type=submit]');
    await page.waitForSelector('.login .error');
    await page.fill('#password', ownerPassword);
    await page.click('#password-form button[type=submit]');
    await page.waitForSelector('#totp');
    await page.fill('#totp', totpCode(totpSecret, Date.now() + 30_000));
    await page.click('#password-form button[type=submit]');
    await page.waitForSelector('body[data-list-ready="true"]');
    assert.equal(await who(), 'admin@localhost · owner');

    await page.click('a[href="#/audit-log"]');
    await page.waitForSelector('table.audit tr[data-action="session.sign_in"]');
    const rows = await page.locator('table.audit tbody tr').allTextContents();
    assert.ok(rows.some((r) => r.includes('member.create') && r.includes('admin@localhost') && r.includes('vera@example.com')), rows.join('\n'));
    assert.ok(rows.some((r) => r.includes('session.sign_in_failed') && r.includes('admin@localhost')), 'the wrong password is recorded');
    assert.ok(rows.some((r) => r.includes('member.totp_enable') && r.includes('admin@localhost')), 'TOTP turned on');
    assert.ok(rows.some((r) => r.includes('session.sign_in') && r.includes('vera@example.com')), 'the viewer signing in');
    assert.deepEqual(problems, []);
  });
});
