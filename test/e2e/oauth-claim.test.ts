import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { startSmtpSink, type SmtpSink, type SunkMail } from '../helpers/fixtures/oauth-smtp-sink.js';
import { agentEmail, asBearer, fakeMailDns, postSignup, signUp } from '../helpers/fixtures/oauth-client.js';
import { NO_PROBES } from './util.js';

/** The claim email, the claim page and its button (spec 3; decisions §9). */

const DAY = 24 * 60 * 60 * 1000;
const CLAIM_LINK = /(http:\/\/[^\s"<>]+\/claim\/([0-9a-f]{64}))/;

function claimLinkIn(mail: SunkMail): { url: string; path: string } {
  const match = CLAIM_LINK.exec(mail.decoded);
  assert.ok(match, `the email carries a claim link:\n${mail.decoded}`);
  return { url: match[1]!, path: new URL(match[1]!).pathname };
}

async function page(server: TestServer, method: 'GET' | 'POST', path: string) {
  const res = await fetch(server.url + path, {
    method,
    headers: method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
    body: method === 'POST' ? '' : undefined,
  });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

describe('with SMTP configured', () => {
  const clock = new ManualClock(Date.UTC(2026, 4, 4, 10, 0, 0));
  let sink: SmtpSink;
  let server: TestServer;

  before(async () => {
    sink = await startSmtpSink();
    server = await startServer({ smtp: { url: sink.url, from: 'Vigil <vigil@vigil.test>' } }, clock, {
      ...NO_PROBES,
      mailDomainResolver: fakeMailDns(),
    });
  });
  after(async () => {
    await server.stop();
    await sink.close();
  });

  test('signup mails the owner a claim link naming the agent; claim_email_sent is true', async () => {
    const email = agentEmail('mailed');
    const before = sink.messages.length;
    const res = await postSignup(server, { email, agent_name: 'Release Helper' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.account.claim_email_sent, true);
    assert.equal(sink.messages.length, before + 1, 'one email, received before the signup answered');
    const mail = sink.messages.at(-1)!;
    assert.deepEqual(mail.to, [email]);
    assert.equal(mail.from, 'vigil@vigil.test');
    assert.equal(mail.subject, 'The AI agent "Release Helper" created a Vigil account for you');
    assert.ok(mail.decoded.includes('Release Helper'), 'the body names the agent');
    const link = claimLinkIn(mail);
    assert.ok(link.url.startsWith(`${server.app.config.publicUrl}/claim/`), 'the link is {app_url}/claim/<token>');
  });

  test('GET shows a page with one button; POST claims; the account response drops claimed/claimHint', async () => {
    const session = await signUp(server, agentEmail('claimer'), 'Ops Agent');
    const { path } = claimLinkIn(sink.messages.at(-1)!);

    const before = await asBearer(server, session.accessToken, 'GET', '/v1/public/account');
    assert.equal(before.body.data.claimed, false);
    assert.equal(typeof before.body.data.claimHint, 'string');

    const shown = await page(server, 'GET', path);
    assert.equal(shown.status, 200);
    assert.match(shown.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(shown.headers.get('cache-control'), 'no-store');
    assert.match(shown.headers.get('x-frame-options') ?? '', /deny/i, 'a one-button page is not framable');
    assert.equal((shown.html.match(/<button/g) ?? []).length, 1, 'exactly one button');
    assert.match(shown.html, /<form method="post">/);
    assert.ok(shown.html.includes(session.email), 'the page names the account');
    assert.ok(shown.html.includes('Ops Agent'), 'the page names the agent');
    assert.equal((await server.app.store.accounts.byEmail(session.email))!.claimed, false, 'opening the page claims nothing');

    const claimed = await page(server, 'POST', path);
    assert.equal(claimed.status, 200);
    assert.match(claimed.html, /claimed/i);
    assert.equal((await server.app.store.accounts.byEmail(session.email))!.claimed, true);
    // Whoever claimed it owns it (issue 28): a member with the account's email.
    assert.equal((await server.app.store.users.byEmail(session.email))?.role, 'owner');

    const after = await asBearer(server, session.accessToken, 'GET', '/v1/public/account');
    assert.equal(after.status, 200);
    assert.equal('claimed' in after.body.data, false, 'the cached principal saw the claim at once');
    assert.equal('claimHint' in after.body.data, false);
  });

  test('the link works once', async () => {
    await signUp(server, agentEmail('once'));
    const { path } = claimLinkIn(sink.messages.at(-1)!);
    assert.equal((await page(server, 'POST', path)).status, 200);
    const again = await page(server, 'POST', path);
    assert.equal(again.status, 409);
    assert.match(again.html, /already been claimed/);
    const shown = await page(server, 'GET', path);
    assert.equal(shown.status, 409);
    assert.equal((shown.html.match(/<button/g) ?? []).length, 0, 'no button on a used link');
  });

  test('the link expires after 30 days', async () => {
    const session = await signUp(server, agentEmail('late'));
    const { path } = claimLinkIn(sink.messages.at(-1)!);
    clock.advance(30 * DAY);
    assert.equal((await page(server, 'GET', path)).status, 404);
    assert.equal((await page(server, 'POST', path)).status, 404);
    assert.equal((await server.app.store.accounts.byEmail(session.email))!.claimed, false);
  });

  test('unknown and malformed links are 404 pages', async () => {
    for (const path of [`/claim/${'0'.repeat(64)}`, '/claim/not-a-token', `/claim/${'A'.repeat(64)}`]) {
      const res = await page(server, 'GET', path);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal((await page(server, 'POST', path)).status, 404);
    }
  });

  test('an agent name is escaped on the page', async () => {
    await signUp(server, agentEmail('xss'), '<script>alert(1)</script>');
    const { path } = claimLinkIn(sink.messages.at(-1)!);
    const shown = await page(server, 'GET', path);
    assert.ok(!shown.html.includes('<script>'), 'no markup from the agent name');
    assert.ok(shown.html.includes('&#60;script&#62;'));
  });
});

describe('without working SMTP', () => {
  test('smtp.url null: the signup succeeds with claim_email_sent false', async () => {
    const server = await startServer({}, undefined, { ...NO_PROBES, mailDomainResolver: fakeMailDns() });
    try {
      const res = await postSignup(server, { email: agentEmail() });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.account.claim_email_sent, false);
      assert.match(res.body.next_steps, /No claim email could be sent/);
    } finally {
      await server.stop();
    }
  });

  test('a mail server that refuses the connection: claim_email_sent false, the account still exists', async () => {
    const sink = await startSmtpSink();
    const deadUrl = sink.url;
    await sink.close();
    const server = await startServer({ smtp: { url: deadUrl } }, undefined, { ...NO_PROBES, mailDomainResolver: fakeMailDns() });
    try {
      const email = agentEmail();
      const res = await postSignup(server, { email });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.account.claim_email_sent, false);
      assert.ok((await server.app.store.accounts.byEmail(email)));
    } finally {
      await server.stop();
    }
  });
});
