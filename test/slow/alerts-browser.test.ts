import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { WEBHOOK_TYPES } from '../../src/store/alert-store.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { browserMissing, launchBrowser, signedInPage } from '../helpers/browser.js';
import { startReceiver, type Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { assertCaTrusted } from '../helpers/fixtures/alerts-tls.js';
import { assertStatus } from '../e2e/util.js';

const SHOTS = new URL('../../../docs/screenshots/', import.meta.url).pathname;
const missing = browserMissing();
if (missing) console.log(`# alerts page browser tests skipped: ${missing}`);

/**
 * Issue 23 item 6: the Alerts page offers every channel with its own fields, builds the URL the
 * API reads credentials from, edits a webhook (routing, reminders, secret, enabled, URL) and
 * shows the delivery log. Nothing is sent outside 127.0.0.1: the channel webhooks are deleted
 * before any alert is raised.
 */

/** What the form is given per channel, and the URL the API must have stored. */
const CHANNEL_INPUT: Record<(typeof WEBHOOK_TYPES)[number], { fields: Record<string, string>; url: string }> = {
  generic: { fields: { ch_url: 'https://hooks.example.com/vigil' }, url: 'https://hooks.example.com/vigil' },
  slack: { fields: { ch_url: 'https://hooks.slack.com/services/T0/B0/X1' }, url: 'https://hooks.slack.com/services/T0/B0/X1' },
  discord: { fields: { ch_url: 'https://discord.com/api/webhooks/1/abc' }, url: 'https://discord.com/api/webhooks/1/abc' },
  teams: { fields: { ch_url: 'https://acme.webhook.office.com/webhookb2/x' }, url: 'https://acme.webhook.office.com/webhookb2/x' },
  pumble: { fields: { ch_url: 'https://api.pumble.com/workspaces/1/x' }, url: 'https://api.pumble.com/workspaces/1/x' },
  mattermost: { fields: { ch_url: 'https://mm.example.com/hooks/abcdefghijklmnopqrstuvwxyz' }, url: 'https://mm.example.com/hooks/abcdefghijklmnopqrstuvwxyz' },
  rocketchat: { fields: { ch_url: 'https://rc.example.com/hooks/ABCDEFGHIJKLMNOPQ/abcdefghijklmnopqrstuvwx' }, url: 'https://rc.example.com/hooks/ABCDEFGHIJKLMNOPQ/abcdefghijklmnopqrstuvwx' },
  googlechat: { fields: { ch_url: 'https://chat.googleapis.com/v1/spaces/AAA/messages?key=k&token=t' }, url: 'https://chat.googleapis.com/v1/spaces/AAA/messages?key=k&token=t' },
  pagerduty: { fields: { ch_routingKey: 'R0UTING' }, url: 'https://events.pagerduty.com/v2/enqueue?routing_key=R0UTING' },
  opsgenie: { fields: { ch_apiKey: 'G3NIE', ch_region: 'eu' }, url: 'https://api.eu.opsgenie.com/v2/alerts?apiKey=G3NIE' },
  pushover: { fields: { ch_token: 'app1', ch_user: 'user1' }, url: 'https://api.pushover.net/1/messages.json?token=app1&user=user1' },
  ntfy: { fields: { ch_topic: 'ops alerts', ch_token: 'tk_abc', ch_priority: '5' }, url: 'https://ntfy.sh/ops%20alerts?token=tk_abc&priority=5' },
  gotify: { fields: { ch_server: 'https://gotify.example.com/', ch_token: 'AppT0ken' }, url: 'https://gotify.example.com/message?token=AppT0ken' },
  telegram: { fields: { ch_botToken: '123456:ABC-def', ch_chatId: '-10042', ch_threadId: '7' }, url: 'https://api.telegram.org/bot123456:ABC-def/sendMessage?chat_id=-10042&message_thread_id=7' },
  matrix: {
    fields: { ch_server: 'https://matrix.example.org', ch_room: '!room:example.org', ch_token: 'syt_abc' },
    url: 'https://matrix.example.org/_matrix/client/v3/rooms/!room%3Aexample.org/send/m.room.message?access_token=syt_abc',
  },
};

describe('the Alerts page in a real browser', { skip: missing ?? false, timeout: 180_000 }, () => {
  let srv: TestServer;
  let receiver: Receiver;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let accountId = '';
  const checks: Record<string, string> = {};
  let problems: string[] = [];

  before(async () => {
    assertCaTrusted();
    receiver = await startReceiver();
    srv = await startServer();
    accountId = (await srv.app.services.accounts.accounts.findAccount('admin@localhost')).id;
    // Heartbeats with a long period: nothing goes down (and alerts) while the test runs.
    for (const [name, folder] of [['Billing API', 'prod'], ['Docs', null], ['Nightly backup', 'prod']] as const) {
      const res = await srv.request('POST', '/v1/public/checks', { body: { type: 'heartbeat', name, checkFrequency: 60, folder } });
      assertStatus(res, 201);
      checks[name] = res.body.data.id as string;
    }
    browser = await launchBrowser();
    ({ page, problems } = await signedInPage(browser.context, srv.url, srv.adminKey));
    await page.goto(`${srv.url}/dashboard#/alerts`);
    await page.waitForSelector('h2:has-text("Webhooks")');
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
    await receiver?.close();
  });

  const stored = () => srv.app.services.alerts.webhooks.list(accountId);
  const addForm = () => page.locator('form.webhook-form:not(.editing)');

  test('the channel menu offers all 15 channels and detection; the signing hint names X-Vigil-Signature', async () => {
    const values = await addForm().locator('select[name=webhookType] option').evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value));
    assert.deepEqual([...values].sort(), ['', ...WEBHOOK_TYPES].sort());
    assert.match((await addForm().locator('label.field:has(input[name=secret]) small').textContent())!, /X-Vigil-Signature/);
    assert.deepEqual(problems, []);
  });

  test('a webhook of each channel is created from its own fields; the URL is built as the API reads it', async () => {
    for (const type of WEBHOOK_TYPES) {
      const input = CHANNEL_INPUT[type];
      const form = addForm();
      await form.locator('select[name=webhookType]').selectOption(type);
      await form.locator('input[name=name]').fill(`${type} hook`);
      for (const [name, value] of Object.entries(input.fields)) {
        const field = form.locator(`[name=${name}]`);
        if ((await field.evaluate((el) => (el as unknown as { tagName: string }).tagName)) === 'SELECT') await field.selectOption(value);
        else await field.fill(value);
      }
      await form.locator('button[type=submit]').click();
      await page.locator(`ul.hooks li[data-type="${type}"]:has-text("${type} hook")`).waitFor();
      const hook = (await stored()).find((h) => h.name === `${type} hook`);
      assert.ok(hook, type);
      assert.equal(hook.webhookType, type);
      assert.equal(hook.url, input.url, type);
      assert.deepEqual([hook.checkIds, hook.folders, hook.remindEveryMinutes, hook.enabled], [[], [], null, true]);
    }
    assert.equal(await page.locator('ul.hooks li').count(), WEBHOOK_TYPES.length);
    assert.equal(await page.locator('ul.hooks .route.routed').count(), 0, 'every one is account-wide, and says so');

    // Detection from the URL when no channel is chosen; a missing credential stays in the browser.
    await addForm().locator('select[name=webhookType]').selectOption('');
    await addForm().locator('input[name=name]').fill('Detected');
    await addForm().locator('input[name=ch_url]').fill('https://hooks.slack.com/services/T0/B0/DETECT');
    await addForm().locator('button[type=submit]').click();
    await page.locator('ul.hooks li[data-type="slack"]:has-text("Detected")').waitFor();
    await addForm().locator('select[name=webhookType]').selectOption('telegram');
    await addForm().locator('input[name=name]').fill('Half done');
    await addForm().locator('input[name=ch_botToken]').fill('1:x');
    await addForm().locator('button[type=submit]').click();
    await addForm().locator('label.field.invalid:has(input[name=ch_chatId]) .field-error:has-text("Chat id is required")').waitFor();
    await addForm().locator('input[name=ch_chatId]').fill('5');
    await addForm().locator('input[name=ch_botToken]').fill('not a token');
    await addForm().locator('button[type=submit]').click();
    await addForm().locator('label.field.invalid:has(input[name=ch_botToken]) .field-error').waitFor();
    // The API's own refusal (a duplicate URL) lands under the channel's field.
    await addForm().locator('select[name=webhookType]').selectOption('pagerduty');
    await addForm().locator('input[name=ch_routingKey]').fill('R0UTING');
    await addForm().locator('button[type=submit]').click();
    await addForm().locator('label.field.invalid:has(input[name=ch_routingKey]) .field-error:has-text("already exists")').waitFor();
    assert.equal((await stored()).length, WEBHOOK_TYPES.length + 1);
    assert.deepEqual(problems.filter((p) => !/status of 409/.test(p)), [], 'only the duplicate\'s 409');
    problems.length = 0;
  });

  test('edit a webhook: name, routing, reminders, events, secret, enabled, then a new URL and no secret', async () => {
    const generic = (await stored()).find((h) => h.webhookType === 'generic')!;
    const item = page.locator(`ul.hooks li[data-id="${generic.id}"]`);
    await item.locator('button:has-text("Edit")').click();
    const form = page.locator(`form.webhook-form.editing[data-webhook="${generic.id}"]`);
    await form.waitFor();
    assert.equal(await form.locator('input[name=name]').inputValue(), 'generic hook');
    assert.equal(await form.locator('select[name=webhookType]').inputValue(), 'generic');
    await form.locator('input[name=name]').fill('Prod receiver');
    await form.locator('input[name=route][value=some]').check();
    await form.locator('input[name=folder][value=prod]').check();
    await form.locator(`input[name=checkId][value="${checks.Docs}"]`).check();
    await form.locator('select[name=remindEveryMinutes]').selectOption('30');
    await form.locator('input[name=event][value=ssl_error]').check();
    await form.locator('input[name=secret]').fill('browser-secret');
    await form.locator('input[name=enabled]').uncheck();
    await form.locator('button[type=submit]').click();
    await page.locator(`ul.hooks li[data-id="${generic.id}"]:has-text("Prod receiver")`).waitFor();

    let hook = (await stored()).find((h) => h.id === generic.id)!;
    assert.deepEqual(
      [hook.name, hook.url, hook.folders, hook.checkIds, hook.remindEveryMinutes, hook.events, hook.secret, hook.enabled],
      ['Prod receiver', generic.url, ['prod'], [checks.Docs], 30, ['website_down', 'website_up', 'ssl_error'], 'browser-secret', false],
    );
    const summary = await item.locator('.route').textContent();
    assert.match(summary!, /^Only folder prod, Docs · reminds every 30 min/);
    assert.equal(await item.locator('.route.routed').count(), 1, 'a routed webhook is marked as such');
    await item.locator('.badge:has-text("disabled")').waitFor();

    await item.locator('button:has-text("Edit")').click();
    await form.waitFor();
    await page.screenshot({ path: `${SHOTS}dashboard-alerts.png`, fullPage: true });
    await form.locator('button:has-text("Cancel")').click();

    // Again: a new URL from the channel's field, the secret removed, enabled, every check.
    await item.locator('button:has-text("Edit")').click();
    assert.equal(await form.locator('input[name=route][value=some]').isChecked(), true, 'the form opens with the route');
    await form.locator('input[name=ch_url]').fill(receiver.url('/from-browser/path'));
    await form.locator('input[name=removeSecret]').check();
    await form.locator('input[name=enabled]').check();
    await form.locator('input[name=route][value=all]').check();
    await form.locator('button[type=submit]').click();
    await page.locator(`ul.hooks li[data-id="${generic.id}"] .route:not(.routed)`).waitFor();
    hook = (await stored()).find((h) => h.id === generic.id)!;
    assert.deepEqual(problems, []);
    assert.deepEqual([hook.url, hook.secret, hook.enabled, hook.checkIds, hook.folders, hook.remindEveryMinutes], [receiver.url('/from-browser/path'), null, true, [], [], 30]);
  });

  test('the delivery log lists deliveries, filters by webhook and retries a failed one', async () => {
    // Only the local receiver's webhook stays, so no alert leaves 127.0.0.1.
    const local = (await stored()).find((h) => h.url.startsWith(receiver.origin))!;
    for (const h of (await stored())) if (h.id !== local.id) assertStatus(await srv.request('DELETE', `/v1/public/alerts/webhooks/${h.id}`), 200);
    await page.reload();
    await page.waitForSelector('section.deliveries p:has-text("No deliveries yet.")');
    receiver.respond = () => 404;
    const at = Date.now();
    srv.app.alerts.handle({ id: checks['Billing API']!, accountId }, {
      type: 'website_down', at, previousStatus: 'up', status: 'down', error: 'No ping', statusCode: null, responseTime: null,
      regions: { primary: 'vps-eu-1', peer: null, regionsTotal: 1, regionsDown: 1, confirmedDown: false }, ssl: null,
    });
    await receiver.waitFor(() => receiver.received.some((r) => r.path === '/from-browser/path'));
    assert.equal(receiver.received.at(-1)!.headers['x-vigil-signature'], undefined, 'the secret was removed');
    await srv.app.alerts.idle();
    receiver.respond = () => 200;
    await page.locator(`ul.hooks li[data-id="${local.id}"] button:has-text("Deliveries")`).click();
    const row = page.locator('section.deliveries tbody tr[data-status="failed"]');
    await row.waitFor();
    assert.match((await row.textContent())!, /website_down.*Billing API.*Prod receiver.*failed.*404 receiver answered 404/);
    assert.equal(await page.locator('select[aria-label="Delivery target"]').inputValue(), local.id);
    await row.locator('button:has-text("Retry")').click();
    await receiver.waitFor(() => receiver.received.filter((r) => r.path === '/from-browser/path').length === 2);
    await srv.app.alerts.idle();
    await page.locator('section.deliveries button:has-text("Refresh")').click();
    await page.locator('section.deliveries tbody tr[data-status="delivered"]').waitFor();
    await page.locator('select[aria-label="Delivery status"]').selectOption('failed');
    await page.waitForSelector('section.deliveries p:has-text("No deliveries match.")');
    assert.deepEqual(problems, []);
  });
});
