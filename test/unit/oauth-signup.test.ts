import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { loadConfig, resolveConfig } from '../../src/config.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { Mail, Mailer } from '../../src/alerts/delivery/mailer.js';
import { SignupService } from '../../src/oauth/signup-service.js';
import { TokenService } from '../../src/oauth/token-service.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/index.js';
import { fakeMailDns } from '../helpers/fixtures/oauth-client.js';

/** SignupService against a mail server that never answers: the signup still answers, saying so. */

let store: SqliteStore;
afterEach(() => store.close());
beforeEach(() => {
  store = openSqliteStore(':memory:');
});

function service(mailer: Pick<Mailer, 'configured' | 'send'>) {
  const clock = new ManualClock();
  const repo = store.oauth;
  const config = resolveConfig(loadConfig({ overrides: { smtp: { url: 'smtp://127.0.0.1:1' } }, warn: () => {} }), 8080);
  return new SignupService({
    store,
    repo,
    tokens: new TokenService(store, repo, clock),
    mailer: mailer as Mailer,
    resolver: fakeMailDns(),
    config,
    clock,
    log: pino({ level: 'silent' }),
    claimEmailWaitMs: 10,
  });
}

test('a stalled mail server: 201 with claim_email_sent false, the account created', async () => {
  const sent: Mail[] = [];
  const stalled = service({ configured: true, send: (mail) => (sent.push(mail), new Promise<void>(() => {})) });
  const res = await stalled.signup({ email: 'owner@mail.example.com', agent_name: 'Slow' });
  assert.equal(res.account.claim_email_sent, false);
  assert.equal(sent.length, 1, 'the email was handed over');
  assert.ok((await store.accounts.byEmail('owner@mail.example.com')));
});

test('a mail server that fails late does not surface as an unhandled rejection', async () => {
  let fail: (err: Error) => void = () => {};
  const late = service({ configured: true, send: () => new Promise<void>((_, reject) => (fail = reject)) });
  const res = await late.signup({ email: 'late@mail.example.com' });
  assert.equal(res.account.claim_email_sent, false);
  fail(new Error('connection reset'));
  await new Promise((resolve) => setImmediate(resolve));
});

test('the claim email names the agent, the address and the link', async () => {
  const sent: Mail[] = [];
  const ok = service({ configured: true, send: async (mail) => void sent.push(mail) });
  const res = await ok.signup({ email: 'Named@Mail.Example.com', agent_name: 'Nightly Bot' });
  assert.equal(res.account.claim_email_sent, true);
  assert.equal(sent[0]!.to, 'named@mail.example.com');
  assert.match(sent[0]!.subject, /Nightly Bot/);
  assert.match(sent[0]!.text, /http:\/\/localhost:8080\/claim\/[0-9a-f]{64}/);
  assert.match(sent[0]!.html ?? '', /href="http:\/\/localhost:8080\/claim\/[0-9a-f]{64}"/);
});
