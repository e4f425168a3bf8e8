import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { startSmtpSink, type SmtpSink } from '../helpers/fixtures/oauth-smtp-sink.js';
import { agentEmail, asBearer, assertOAuthError, fakeMailDns, refresh, signUp, type AgentSession } from '../helpers/fixtures/oauth-client.js';
import { NO_PROBES } from './util.js';

/**
 * The unclaimed-account lifecycle (spec 3, 8): the daily job, driven by hand on a fake clock.
 * After 7 days unclaimed the checks pause; after 30 the account and all its data are deleted.
 */

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2026, 6, 1, 6, 0, 0);
const clock = new ManualClock(T0);
let sink: SmtpSink;
let server: TestServer;

interface Agent extends AgentSession {
  accountId: string;
  claimPath: string;
  checks: string[];
}

before(async () => {
  sink = await startSmtpSink();
  server = await startServer({ smtp: { url: sink.url } }, clock, { ...NO_PROBES, mailDomainResolver: fakeMailDns() });
});
after(async () => {
  await server.stop();
  await sink.close();
});

const run = () => server.app.services.accounts.oauth.lifecycle.run();
const at = (ms: number) => clock.set(T0 + ms);
const scheduled = (checkId: string) => server.app.engine.wheel.has('probe', checkId);

async function agentWithChecks(prefix: string, urls: string[]): Promise<Agent> {
  const session = await signUp(server, agentEmail(prefix), `${prefix} agent`);
  const claimPath = /\/claim\/[0-9a-f]{64}/.exec(sink.messages.at(-1)!.decoded)![0];
  const checks: string[] = [];
  for (const url of urls) {
    const body = url === 'heartbeat' ? { type: 'heartbeat', checkFrequency: 10 } : { url };
    const res = await asBearer(server, session.accessToken, 'POST', '/v1/public/checks', { body, headers: { 'idempotency-key': `${prefix}-${url}` } });
    assert.equal(res.status, 201, res.text);
    checks.push(res.body.data.id);
  }
  return { ...session, accountId: (await server.app.store.accounts.byEmail(session.email))!.id, claimPath, checks };
}

async function check(agent: Agent, id: string) {
  const res = await asBearer(server, agent.accessToken, 'GET', `/v1/public/checks/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data as { status: string; disabled: boolean; disabledReason: string | null };
}

async function claim(agent: Agent): Promise<void> {
  const res = await fetch(server.url + agent.claimPath, { method: 'POST' });
  assert.equal(res.status, 200, await res.text());
}

/** Rows that still mention the account, its checks' ids or sequence numbers, in every table that has such a column. */
function leftovers(accountId: string, checkIds: string[], checkSeqs: number[]): string[] {
  const db = server.app.store.db;
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
  const found: string[] = [];
  for (const table of tables) {
    const columns = (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]);
    const probes: Array<[string, unknown[]]> = [];
    if (columns.includes('account_id')) probes.push(['account_id', [accountId]]);
    if (table === 'accounts') probes.push(['id', [accountId]]);
    if (columns.includes('check_id')) probes.push(['check_id', checkIds]);
    if (columns.includes('check_seq')) probes.push(['check_seq', checkSeqs]);
    if (table === 'checks') probes.push(['id', checkIds]);
    for (const [column, values] of probes) {
      if (!values.length) continue;
      const n = db.prepare(`SELECT count(*) FROM "${table}" WHERE "${column}" IN (${values.map(() => '?').join(',')})`).pluck().get(...values) as number;
      if (n > 0) found.push(`${table}.${column}: ${n}`);
    }
  }
  return found;
}

/**
 * Rows in tables other features own (alert settings, statistics), where this build has them:
 * their rows go with the account or its checks too.
 */
function seedOtherTables(accountId: string, checkSeq: number): void {
  const db = server.app.store.db;
  const has = (table: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
  if (has('email_settings')) {
    db.prepare('INSERT INTO email_settings (account_id, enabled, recipients, events, email_format, updated_at) VALUES (?, 1, ?, ?, ?, ?)')
      .run(accountId, '[]', '[]', 'html', clock.now());
  }
  if (has('retention_horizons')) db.prepare('INSERT INTO retention_horizons (check_seq, raw_from) VALUES (?, ?)').run(checkSeq, clock.now());
}

describe('unclaimed accounts: pause after 7 days, delete after 30', () => {
  let doomed: Agent; // never claimed
  let early: Agent; // claimed on day 1
  let late: Agent; // claimed on day 10, after the pause
  let doomedKey: string;
  let doomedSeqs: number[];

  before(async () => {
    at(0);
    doomed = await agentWithChecks('doomed', ['https://doomed.example.com', 'heartbeat']);
    early = await agentWithChecks('early', ['https://early.example.com']);
    late = await agentWithChecks('late', ['https://late-1.example.com', 'https://late-2.example.com']);
    doomedKey = (await server.app.services.accounts.accounts.createKey({ account: doomed.accountId, scopes: ['checks:read'] })).key;
    doomedSeqs = [];
    for (const id of doomed.checks) doomedSeqs.push((await server.app.store.checks.byId(id))!.seq);
    // The user's own pause, which the claim must not undo.
    const own = await asBearer(server, late.accessToken, 'POST', `/v1/public/checks/${late.checks[1]}/toggle`, { body: { disabled: true, reason: 'mine' } });
    assert.equal(own.status, 200);
  });

  test('day 1: one account is claimed', async () => {
    at(DAY);
    await claim(early);
    assert.equal((await server.app.store.accounts.byId(early.accountId))!.claimed, true);
  });

  test('just before 7 days nothing pauses', async () => {
    at(7 * DAY - 1);
    assert.deepEqual((await run()), { pausedChecks: 0, deletedAccounts: 0, prunedTokens: 0 });
    assert.equal((await check(doomed, doomed.checks[0]!)).status, 'pending');
    assert.ok(scheduled(doomed.checks[0]!));
  });

  test('at 7 days the unclaimed accounts pause, as a toggle would; the engine lets go', async () => {
    at(7 * DAY);
    assert.equal((await run()).pausedChecks, 3, "both of doomed's checks and late's running one");
    for (const id of doomed.checks) {
      const c = await check(doomed, id);
      assert.equal(c.status, 'paused');
      assert.equal(c.disabled, true);
      assert.match(c.disabledReason ?? '', /not claimed within 7 days/);
    }
    assert.equal(scheduled(doomed.checks[0]!), false, 'unscheduled');
    assert.equal((await check(late, late.checks[0]!)).status, 'paused');
    assert.equal((await check(late, late.checks[1]!)).disabledReason, 'mine', "the user's own pause is kept as it was");
    assert.equal((await check(early, early.checks[0]!)).status, 'pending', 'a claimed account is never paused');
    assert.ok(scheduled(early.checks[0]!));

    const history = await asBearer(server, doomed.accessToken, 'GET', `/v1/public/checks/${doomed.checks[0]}/history`);
    assert.equal(history.status, 200);
    assert.equal(history.body.data[0].status, 'paused', 'the pause is recorded in history with its reason');
  });

  test('the job is idempotent, and pauses again what an agent resumed', async () => {
    assert.equal((await run()).pausedChecks, 0);
    at(8 * DAY);
    const resumed = await asBearer(server, doomed.accessToken, 'POST', `/v1/public/checks/${doomed.checks[0]}/toggle`, { body: { disabled: false } });
    assert.equal(resumed.status, 200);
    assert.ok(scheduled(doomed.checks[0]!));
    assert.equal((await run()).pausedChecks, 1);
    assert.equal(scheduled(doomed.checks[0]!), false);
  });

  test('a claim after the pause resumes the checks the pause stopped', async () => {
    at(10 * DAY);
    await claim(late);
    const resumed = await check(late, late.checks[0]!);
    assert.equal(resumed.status, 'pending');
    assert.equal(resumed.disabled, false);
    assert.ok(scheduled(late.checks[0]!));
    assert.equal((await check(late, late.checks[1]!)).disabledReason, 'mine', 'still paused by its user');
  });

  test('just before 30 days nothing is deleted', async () => {
    at(29 * DAY);
    const renewed = await refresh(server, doomed.refreshToken);
    assert.equal(renewed.status, 200);
    doomed = { ...doomed, accessToken: renewed.body.access_token, refreshToken: renewed.body.refresh_token };
    at(30 * DAY - 1);
    assert.equal((await run()).deletedAccounts, 0);
    assert.ok((await server.app.store.accounts.byId(doomed.accountId)));
  });

  test('at 30 days the account and all its data are deleted', async () => {
    at(30 * DAY);
    seedOtherTables(doomed.accountId, doomedSeqs[0]!);
    assert.ok(leftovers(doomed.accountId, doomed.checks, doomedSeqs).length > 4, 'there is data to delete');
    const report = await run();
    assert.equal(report.deletedAccounts, 1);
    assert.deepEqual(leftovers(doomed.accountId, doomed.checks, doomedSeqs), [], 'no row of any table refers to it');
    assert.equal((await server.app.store.accounts.byEmail(doomed.email)), null);

    const bearer = await asBearer(server, doomed.accessToken, 'GET', '/v1/public/account');
    assert.equal(bearer.status, 401, 'its access token stops at once');
    assertOAuthError(await refresh(server, doomed.refreshToken), 400, 'invalid_grant');
    const key = await server.request('GET', '/v1/public/account', { key: doomedKey });
    assert.equal(key.status, 401, 'its API key too');
    for (const id of doomed.checks) assert.equal(scheduled(id), false);
  });

  test('claimed accounts are kept', async () => {
    for (const agent of [early, late]) {
      assert.ok((await server.app.store.accounts.byId(agent.accountId)));
      // Their first access tokens have just expired (30 days); the refresh tokens still work.
      const renewed = await refresh(server, agent.refreshToken);
      assert.equal(renewed.status, 200, renewed.text);
      const account = await asBearer(server, renewed.body.access_token, 'GET', '/v1/public/account');
      assert.equal(account.status, 200);
      assert.equal(account.body.data.usage.checks, agent.checks.length);
    }
  });

  test('the address may sign up again', async () => {
    const again = await signUp(server, doomed.email);
    assert.match(again.accessToken, /^vigil_at_/);
  });

  test('expired tokens are pruned', async () => {
    at(400 * DAY);
    assert.ok((await run()).prunedTokens > 0);
    const left = server.app.store.db.prepare('SELECT count(*) FROM oauth_tokens WHERE expires_at < ?').pluck().get(clock.now()) as number;
    assert.equal(left, 0);
  });
});
