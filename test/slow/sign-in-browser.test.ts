import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CDPSession, Page } from 'playwright-core';
import { startServer, type TestServer } from '../helpers/server.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { browserMissing, launchBrowser, LOCALHOST_IPV4 } from '../helpers/browser.js';
import { NO_PROBES } from '../e2e/util.js';

const missing = browserMissing();
if (missing) console.log(`# sign-in browser tests skipped: ${missing}`);

/**
 * Passkeys and single sign-on in Chromium (issue 28 item 5). The dashboard is opened at the
 * public URL, http://localhost:<port>: WebAuthn needs a host name (never an IP address) and a
 * secure context, which localhost is. The passkey lives in Chromium's virtual authenticator
 * (the DevTools WebAuthn domain); the provider is oidc-provider on another loopback port.
 */
describe('signing in in a real browser: passkeys and single sign-on', { skip: missing ?? false, timeout: 180_000 }, () => {
  let provider: TestOidcProvider;
  let srv: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  const problems: string[] = [];

  before(async () => {
    provider = await startOidcProvider([{ login: 'ada', email: 'admin@localhost', name: 'Ada' }]);
    srv = await startServer({ auth: { oidc: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, name: 'Acme ID' } } }, undefined, NO_PROBES);
    provider.serve(`${srv.app.config.publicUrl}/v1/auth/oidc/callback`);
    browser = await launchBrowser([LOCALHOST_IPV4]);
    page = await browser.context.newPage();
    page.on('pageerror', (err) => problems.push(err.message));
    cdp = await browser.context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    }));
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
    await provider?.stop();
  });

  const dashboard = () => srv.app.config.dashboardUrl;
  const signOut = async () => {
    await page.click('header button:has-text("Sign out")');
    await page.waitForSelector('#password-form');
  };

  test('a passkey registered on the security page signs in without a password', async () => {
    const link = await srv.app.services.people.sessions.createLoginLink(undefined);
    await page.goto(link.url);
    await page.waitForSelector('body[data-list-ready="true"]');
    await page.click('a[href="#/security"]');
    await page.waitForSelector('#no-passkeys');
    await page.fill('input[name=passkeyName]', 'virtual laptop');
    await page.click('#add-passkey button[type=submit]');
    await page.waitForSelector('table.passkeys .passkey-name:has-text("virtual laptop")');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.equal(credentials.length, 1);
    assert.equal(credentials[0]!.isResidentCredential, true, 'a discoverable credential: sign-in needs no name first');
    assert.equal(credentials[0]!.rpId, 'localhost');

    await signOut();
    await page.click('#passkey-sign-in');
    await page.waitForSelector('body[data-list-ready="true"]');
    assert.equal((await page.textContent('header .who'))!.trim(), 'admin@localhost · owner');
    const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.ok(after.credentials[0]!.signCount >= 1, 'the authenticator signed');
    const listed = await srv.request('GET', '/v1/public/passkeys', { key: null, headers: { cookie: await sessionCookie() } });
    assert.equal(listed.status, 200);
    assert.equal(listed.body.data.length, 1);
    assert.notEqual(listed.body.data[0].lastUsedAt, null);
    const renamed = await srv.request('PATCH', `/v1/public/passkeys/${listed.body.data[0].id}`, {
      key: null, headers: { cookie: await sessionCookie(), origin: srv.app.config.publicUrl }, body: { name: 'renamed laptop' },
    });
    assert.equal(renamed.status, 200, renamed.text);
  });

  test('a passkey removed signs in no more', async () => {
    await page.goto(`${dashboard()}#/security`);
    await page.waitForSelector('table.passkeys');
    await page.click('table.passkeys button:has-text("Remove")');
    await page.click('dialog.confirm button[value=ok]');
    await page.waitForSelector('#no-passkeys');
    await signOut();
    await page.click('#passkey-sign-in');
    await page.waitForSelector('.login .error');
    assert.match((await page.textContent('.login .error'))!, /not registered here/);

    // The audit log names the member, the passkey and the way they signed in.
    const entries = (await srv.request('GET', '/v1/public/audit-log?limit=100')).body.data as Array<{ action: string; actor: { kind: string; name: string }; target: { kind: string; name: string } }>;
    const added = entries.find((e) => e.action === 'member.passkey_add')!;
    assert.deepEqual([added.actor.kind, added.actor.name, added.target.kind, added.target.name], ['user', 'admin@localhost', 'passkey', 'virtual laptop']);
    assert.equal(entries.find((e) => e.action === 'member.passkey_rename')?.target.name, 'renamed laptop');
    assert.equal(entries.find((e) => e.action === 'member.passkey_remove')?.target.name, 'renamed laptop');
    assert.ok(entries.some((e) => e.action === 'session.sign_in' && e.target.name === 'passkey'), 'the passkey sign-in');
  });

  test('"Sign in with Acme ID" goes through the provider and back, signed in', async () => {
    await page.goto(`${dashboard()}#/keys`);
    await page.click('#sso-sign-in:has-text("Sign in with Acme ID")');
    await page.waitForURL((url) => url.href.startsWith(provider.issuer));
    await page.fill('input[name=login]', 'ada');
    await page.fill('input[name=password]', 'anything');
    await page.click('button[type=submit]');
    await page.waitForURL(`${dashboard()}#/keys`);
    await page.waitForSelector('header .who');
    assert.equal((await page.textContent('header .who'))!.trim(), 'admin@localhost · owner');
    assert.deepEqual(problems, []);
  });

  test('the security page lists the single sign-on account linked, and unlinks it only when another way in is left', async () => {
    await page.goto(`${dashboard()}#/security`);
    await page.waitForSelector('table.identities');
    assert.equal((await page.textContent('table.identities .identity-issuer'))!.trim(), provider.issuer);
    // No password and no passkey left: the one way in stays.
    await page.click('table.identities button:has-text("Unlink")');
    await page.click('dialog.confirm button[value=ok]');
    await page.waitForSelector('.toast.error:has-text("only way to sign in")');
    assert.equal(await page.locator('table.identities tbody tr').count(), 1);

    const password = await srv.request('POST', '/v1/public/me/password', {
      key: null, headers: { cookie: await sessionCookie(), origin: srv.app.config.publicUrl }, body: { newPassword: 'a password to keep' },
    });
    assert.equal(password.status, 204, password.text);
    await page.click('table.identities button:has-text("Unlink")');
    await page.click('dialog.confirm button[value=ok]');
    await page.waitForSelector('#no-identities');
    assert.deepEqual(problems, []);
  });

  const sessionCookie = async () => {
    const cookie = (await browser.context.cookies(srv.app.config.publicUrl)).find((c) => c.name === 'vigil_session');
    return `vigil_session=${cookie?.value ?? ''}`;
  };
});
