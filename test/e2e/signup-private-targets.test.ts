import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.js';
import { asBearer, fakeMailDns, signUp } from '../helpers/fixtures/oauth-client.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { assertError, newAccount, NO_PROBES } from './util.js';

/**
 * Issue 16 item 7: an account made by agent signup may not watch private, loopback or
 * link-local targets, nor send webhooks there, unless signup.allowPrivateTargets is set.
 */

const PRIVATE = ['http://127.0.0.1:9/', 'http://10.1.2.3/', 'http://169.254.169.254/latest/meta-data', 'http://[::1]:8080/', 'http://localhost:8080/'];

describe('agent-signup accounts and private targets', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({}, undefined, { ...NO_PROBES, mailDomainResolver: fakeMailDns() });
  });
  after(() => server.stop());

  test('checks on private, loopback and link-local targets are refused (400) at create and update', async () => {
    const agent = await signUp(server);
    for (const url of PRIVATE) {
      const res = await asBearer(server, agent.accessToken, 'POST', '/v1/public/checks', { body: { url, checkFrequency: 5 } });
      assertError(res, 400, /signup\.allowPrivateTargets/);
    }
    const pub = await asBearer(server, agent.accessToken, 'POST', '/v1/public/checks', { body: { url: 'https://93.184.215.14/', checkFrequency: 5 } });
    assert.equal(pub.status, 201, pub.text);
    const id = pub.body.data.id as string;
    const moved = await asBearer(server, agent.accessToken, 'PATCH', `/v1/public/checks/${id}`, { body: { url: 'http://192.168.1.1/' } });
    assertError(moved, 400, /signup\.allowPrivateTargets/);
    const list = await asBearer(server, agent.accessToken, 'GET', '/v1/public/checks');
    assert.equal(list.body.data.length, 1, 'nothing refused was created');
  });

  test('webhooks to private addresses are refused too', async () => {
    const agent = await signUp(server);
    const res = await asBearer(server, agent.accessToken, 'POST', '/v1/public/alerts/webhooks', { body: { url: 'https://127.0.0.1:9/hook', name: 'internal' } });
    assertError(res, 400, /signup\.allowPrivateTargets/);
  });

  test('accounts made by the operator (CLI) keep watching private targets', async () => {
    const actor = await newAccount(server, { tier: 'pro' });
    const res = await server.request('POST', '/v1/public/checks', { key: actor.key, body: { url: 'http://127.0.0.1:9/', checkFrequency: 5 } });
    assert.equal(res.status, 201, res.text);
  });
});

describe('agent-signup accounts at probe time', () => {
  const dispatcher = new ScriptedDispatcher();
  let server: TestServer;
  before(async () => {
    server = await startServer({}, undefined, { dispatcher, autoTick: false, mailDomainResolver: fakeMailDns() });
  });
  after(() => server.stop());

  test("their probes refuse private addresses when they connect (a public name may later resolve inside); the operator's do not", async () => {
    const agent = await signUp(server);
    const theirs = await asBearer(server, agent.accessToken, 'POST', '/v1/public/checks', { body: { url: 'https://93.184.215.14/agent', checkFrequency: 5 } });
    assert.equal(theirs.status, 201, theirs.text);
    const actor = await newAccount(server, { tier: 'pro' });
    const ours = await server.request('POST', '/v1/public/checks', { key: actor.key, body: { url: 'http://127.0.0.1:9/operator', checkFrequency: 5 } });
    assert.equal(ours.status, 201, ours.text);
    server.app.engine.tick();
    for (let i = 0; i < 100 && dispatcher.calls.length < 2; i++) await new Promise((r) => setImmediate(r));
    const task = (path: string) => dispatcher.calls.find((t) => t.url.endsWith(path));
    assert.equal(task('/agent')?.refusePrivate, 'signup');
    assert.equal(task('/operator')?.refusePrivate, null);
  });
});

describe('signup.allowPrivateTargets: true', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ signup: { allowPrivateTargets: true } }, undefined, { ...NO_PROBES, mailDomainResolver: fakeMailDns() });
  });
  after(() => server.stop());

  test('agent-signup accounts may watch loopback targets', async () => {
    const agent = await signUp(server);
    const res = await asBearer(server, agent.accessToken, 'POST', '/v1/public/checks', { body: { url: 'http://127.0.0.1:9/', checkFrequency: 5 } });
    assert.equal(res.status, 201, res.text);
  });
});
