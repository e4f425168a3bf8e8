import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { NodeRegistry } from '../../src/nodes/node-registry.js';
import { Prober } from '../../src/prober/prober.js';
import { refusalMessage } from '../../src/domain/outbound-policy.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { startDnsServer, type DnsFixture, type Zone } from '../helpers/fixtures/dns-server.js';
import { asBearer, fakeMailDns, signUp, type AgentSession } from '../helpers/fixtures/oauth-client.js';
import { until } from '../helpers/until.js';
import { assertError, assertStatus, newAccount, NO_PROBES } from './util.js';

/*
 * Issue 34 item 1: the outbound policy is applied where the connection is made, to the address
 * actually connected to. A local DNS server (probes.dnsServers) answers a name with a public
 * address when a check or webhook is created and with 127.0.0.1 afterwards: the create is
 * accepted, and the probe (on the central and on a prober node) and the deliveries are refused
 * at connect, each with the policy's own message where the user reads it.
 */

const PUBLIC = '93.184.215.14';
const SIGNUP_REFUSAL = refusalMessage('signup');
const EDGE = 'vps-edge-1';

/** A plain http receiver on loopback that counts what reaches it and answers 418 (an answer no refusal could be mistaken for). */
async function startReceiver(): Promise<{ port: number; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    req.resume();
    res.writeHead(418, { 'content-type': 'text/plain' }).end('internal receiver body');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  server.keepAliveTimeout = 100;
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

describe('the outbound policy at connect time (a name that turns private after it was checked)', () => {
  const zone: Zone = {};
  let dns: DnsFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let server: TestServer;
  let agent: AgentSession;
  /** Points `name` at `address` from now on (the DNS server reads the zone at every query). */
  const point = (name: string, address: string) => void (zone[name] = { A: [address] });

  before(async () => {
    dns = await startDnsServer(zone);
    receiver = await startReceiver();
    server = await startServer(
      {
        probes: { dnsServers: [`127.0.0.1:${dns.port}`] },
        alerts: { allowHttpWebhooks: true, retryBaseMs: 60_000, timeoutMs: 2_000 },
        plans: { free: { minCheckIntervalMinutes: 0.05, regionChoice: true } },
      },
      undefined,
      { ...NO_PROBES, mailDomainResolver: fakeMailDns() },
    );
    agent = await signUp(server);
    // Alerts and the webhook test are for claimed accounts: the owner has claimed this one.
    const account = await server.app.store.accounts.byEmail(agent.email);
    await server.app.store.accounts.setClaimed(account!.id);
  });
  after(async () => {
    await server.stop();
    await receiver.close();
    await dns.close();
  });

  test("the webhook test endpoint tells a refused receiver only the policy's message, never its status or body", async () => {
    point('hook-test.test', PUBLIC);
    const url = `http://hook-test.test:${receiver.port}/internal`;
    const made = await asBearer(server, agent.accessToken, 'POST', '/v1/public/alerts/webhooks', { body: { url, name: 'looks public' } });
    assertStatus(made, 201);
    point('hook-test.test', '127.0.0.1');
    const tested = await asBearer(server, agent.accessToken, 'POST', `/v1/public/alerts/webhooks/${made.body.data.id}/test`);
    assertError(tested, 502);
    assert.equal(tested.body.error.message, `Webhook http://hook-test.test:${receiver.port} could not be reached: ${SIGNUP_REFUSAL}`);
    assert.ok(!tested.text.includes('418') && !tested.text.includes('internal receiver body'), tested.text);
    assert.deepEqual(receiver.hits, [], 'nothing reached the internal receiver');

    // The same name for an account the operator made: it reaches the receiver, whose answer is reported.
    const operator = await newAccount(server, { tier: 'pro', scopes: ['alerts:read', 'alerts:write'] });
    const theirs = await server.request('POST', '/v1/public/alerts/webhooks', { key: operator.key, body: { url, name: 'intranet' } });
    assertStatus(theirs, 201);
    const reached = await server.request('POST', `/v1/public/alerts/webhooks/${theirs.body.data.id}/test`, { key: operator.key });
    assertError(reached, 502, /answered 418$/);
    assert.deepEqual(receiver.hits, ['/internal'], 'the probes.dnsServers resolver answered the delivery worker');
    receiver.hits.length = 0;
  });

  test('a literal private address in any spelling is still refused at create', async () => {
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://[::ffff:127.0.0.1]/', 'http://169.254.169.254/']) {
      assertError(await asBearer(server, agent.accessToken, 'POST', '/v1/public/checks', { body: { url, checkFrequency: 5 } }), 400, /signup\.allowPrivateTargets/);
    }
    for (const url of ['tcp://2130706433:22', 'tcp://0177.0.0.1:22', 'tcp://127.1:22']) {
      const res = await asBearer(server, agent.accessToken, 'POST', '/v1/public/checks', { body: { type: 'tcp', url, checkFrequency: 5 } });
      assertError(res, 400, /signup\.allowPrivateTargets/);
    }
    for (const url of ['2130706433', '0x7f000001', '127.1']) {
      const res = await asBearer(server, agent.accessToken, 'POST', '/v1/public/checks', { body: { type: 'ping', url, checkFrequency: 5 } });
      assertError(res, 400, /signup\.allowPrivateTargets/);
    }
  });

  test('a name that does not resolve at create is accepted, and refused when the probe connects', async () => {
    const made = await asBearer(server, agent.accessToken, 'POST', '/v1/public/checks', {
      body: { type: 'tcp', url: `tcp://later.test:${receiver.port}`, checkFrequency: 5 },
    });
    assertStatus(made, 201);
    point('later.test', '127.0.0.1');
    server.app.engine.tick();
    await server.app.engine.idle();
    const history = await asBearer(server, agent.accessToken, 'GET', `/v1/public/checks/${made.body.data.id}/history`);
    assert.equal(history.body.data[0]?.error, SIGNUP_REFUSAL, history.text);
  });

  test("a probe and the alert it raises are refused at connect; the policy's message is in the check's history and the delivery log", async () => {
    point('app.test', PUBLIC);
    point('hook.test', PUBLIC);
    const hook = await asBearer(server, agent.accessToken, 'POST', '/v1/public/alerts/webhooks', {
      body: { url: `http://hook.test:${receiver.port}/alerts`, name: 'looks public' },
    });
    assertStatus(hook, 201);
    const check = await asBearer(server, agent.accessToken, 'POST', '/v1/public/checks', {
      body: { url: `http://app.test:${receiver.port}/health`, checkFrequency: 0.05, downConfirmationAttempts: 1 },
    });
    assertStatus(check, 201);
    const id = check.body.data.id as string;
    point('app.test', '127.0.0.1');
    point('hook.test', '127.0.0.1');
    server.app.engine.tick();
    await server.app.engine.idle();
    await server.app.alerts.idle();

    const history = await asBearer(server, agent.accessToken, 'GET', `/v1/public/checks/${id}/history`);
    assert.equal(history.body.data[0]?.error, SIGNUP_REFUSAL, history.text);
    assert.ok(!history.text.includes('internal receiver body'), 'nothing of the internal answer reaches the account');
    const status = await asBearer(server, agent.accessToken, 'GET', `/v1/public/checks/${id}`);
    assert.equal(status.body.data.status, 'down', 'a refused probe is a failed probe, not a crash');

    const log = await asBearer(server, agent.accessToken, 'GET', '/v1/public/alerts/deliveries');
    assertStatus(log, 200);
    const delivery = log.body.data.find((d: { checkId: string }) => d.checkId === id);
    assert.ok(delivery, log.text);
    assert.equal(delivery.lastError, SIGNUP_REFUSAL, log.text);
    assert.equal(delivery.lastStatus, null);
    assert.deepEqual(receiver.hits, [], 'neither the probe nor the delivery reached the internal receiver');
  });
});

describe('the outbound policy on a prober node (each task carries its account’s rule)', () => {
  const zone: Zone = {};
  const dir = mkdtempSync(join(tmpdir(), 'vigil-outbound-node-'));
  let dns: DnsFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let server: TestServer;
  let prober: Prober | null = null;

  before(async () => {
    dns = await startDnsServer(zone);
    receiver = await startReceiver();
    server = await startServer(
      { nodes: { pingMs: 200, failoverMs: 600_000 }, plans: { free: { minCheckIntervalMinutes: 0.05, regionChoice: true }, pro: { minCheckIntervalMinutes: 0.05 } } },
      undefined,
      { ...NO_PROBES, mailDomainResolver: fakeMailDns() },
    );
  });
  after(async () => {
    await prober?.stop();
    await server.stop();
    await receiver.close();
    await dns.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a signup account's check pinned to a node is refused on the node when its name leads to 127.0.0.1; an operator account's reaches it", async () => {
    const agent = await signUp(server);
    const { token } = await new NodeRegistry(server.app.store.nodes, 'vps-eu-1', server.app.clock).create({ region: EDGE });
    zone['edge-app.test'] = { A: [PUBLIC] };
    const body = { url: `http://edge-app.test:${receiver.port}/agent`, checkFrequency: 0.05, downConfirmationAttempts: 1, checkRegionOverride: EDGE };
    const theirs = await asBearer(server, agent.accessToken, 'POST', '/v1/public/checks', { body });
    assertStatus(theirs, 201);
    const operator = await newAccount(server, { tier: 'pro' });
    const ours = await server.request('POST', '/v1/public/checks', { key: operator.key, body: { ...body, url: `http://edge-app.test:${receiver.port}/operator` } });
    assertStatus(ours, 201);
    zone['edge-app.test'] = { A: ['127.0.0.1'] };

    // The node resolves through its own probes.dnsServers (the central's config has none).
    const config = loadConfig({ warn: () => {}, overrides: { dataDir: dir, logLevel: 'silent', probes: { dnsServers: [`127.0.0.1:${dns.port}`], threads: 1 } } });
    prober = new Prober({ servers: [server.url], token, config, log: createLogger('silent') });
    prober.start();

    const latest = async (id: string, as: (path: string) => Promise<{ body: { data: Array<{ error: string | null; region: string }> } }>) =>
      (await as(`/v1/public/checks/${id}/history`)).body.data.find((e) => e.region === EDGE);
    const agentHistory = (path: string) => asBearer(server, agent.accessToken, 'GET', path);
    const operatorHistory = (path: string) => server.request('GET', path, { key: operator.key });
    const refused = await until('the node’s result for the signup account’s check', () => latest(theirs.body.data.id, agentHistory));
    assert.equal(refused.error, SIGNUP_REFUSAL);
    const reached = await until('the node’s result for the operator’s check', () => latest(ours.body.data.id, operatorHistory));
    assert.equal(reached.error, 'Expected status 200, got 418', 'the operator’s check reached the receiver through the node’s resolver');
    assert.deepEqual(receiver.hits, ['/operator'], 'the signup account’s probe never reached 127.0.0.1');
  });
});
