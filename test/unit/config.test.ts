import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, instanceName, loadConfig, resolveConfig } from '../../src/config.js';

const dir = mkdtempSync(join(tmpdir(), 'vigil-cfg-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const file = (content: unknown) => {
  const path = join(dir, `c${files++}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
};

test('defaults match decisions §3', () => {
  const c = resolveConfig(loadConfig({ env: {}, warn: () => {} }));
  assert.equal(c.server.host, '127.0.0.1');
  assert.equal(c.server.port, 8080);
  assert.equal(c.publicUrl, 'http://localhost:8080');
  assert.equal(c.heartbeatUrl, c.publicUrl);
  assert.equal(c.region, 'vps-eu-1');
  assert.equal(c.smtp.url, null);
  assert.equal(c.rateLimits.perKeyPerMinute, 300);
  assert.deepEqual(c.plans.free, {
    maxChecks: 10, minCheckIntervalMinutes: 5, maxWebhooks: 2, maxApiKeys: 1, regionChoice: false, domainIntel: false, minHeartbeatIntervalSeconds: 300,
  });
  assert.equal(c.plans.pro.minCheckIntervalMinutes, 0.5);
});

test('a config file is deep-merged and env vars override single keys', () => {
  const c = loadConfig({ file: file({ plans: { free: { maxChecks: 3 } }, region: 'vps-us-1' }), env: { VIGIL_PORT: '9999', VIGIL_REGION: 'x' }, warn: () => {} });
  assert.equal(c.plans.free.maxChecks, 3);
  assert.equal(c.plans.free.maxWebhooks, 2, 'siblings keep their defaults');
  assert.equal(c.server.port, 9999);
  assert.equal(c.region, 'x');
  assert.equal(resolveConfig(c, 4321).publicUrl, 'http://localhost:4321', 'port 0 resolves to the bound port');
});

test('a value of the wrong type names the key; unknown keys only warn', () => {
  assert.throws(() => loadConfig({ file: file({ plans: { free: { maxChecks: 'ten' } } }), env: {} }), (e: unknown) =>
    e instanceof ConfigError && e.message === 'plans.free.maxChecks must be a number');
  assert.throws(() => loadConfig({ env: { VIGIL_PORT: 'eighty' } }), /VIGIL_PORT must be a number/);
  // Issue 34: subscriber webhooks reach private targets only when this is exactly true.
  assert.equal(loadConfig({ env: {}, warn: () => {} }).statusPages.subscriberWebhooks.allowPrivateTargets, false);
  assert.throws(() => loadConfig({ env: {}, overrides: { statusPages: { subscriberWebhooks: { allowPrivateTargets: 'yes' } } } }),
    /statusPages\.subscriberWebhooks\.allowPrivateTargets must be a boolean/);
  const warnings: string[] = [];
  loadConfig({ file: file({ colour: 'blue' }), env: {}, warn: (m) => warnings.push(m) });
  assert.deepEqual(warnings, ['unknown config key colour (ignored)']);
});

test('an unknown key that looks like a known one says which', () => {
  const warningsFor = (config: unknown) => {
    const warnings: string[] = [];
    loadConfig({ file: file(config), env: {}, warn: (m) => warnings.push(m) });
    return warnings;
  };
  assert.deepEqual(warningsFor({ server: { prot: 9000 } }), ['unknown config key server.prot (ignored); did you mean server.port?']);
  assert.deepEqual(warningsFor({ port: 9000 }), ['unknown config key port (ignored); did you mean server.port?']);
  assert.deepEqual(warningsFor({ datadir: '/srv' }), ['unknown config key datadir (ignored); did you mean dataDir?']);
  assert.deepEqual(warningsFor({ smpt: { url: 'smtp://x' } }), ['unknown config key smpt (ignored); did you mean smtp?']);
  assert.deepEqual(warningsFor({ alerts: { timeOutMs: 5 } }), ['unknown config key alerts.timeOutMs (ignored); did you mean alerts.timeoutMs?']);
  assert.deepEqual(warningsFor({ timeoutMs: 5 }), ['unknown config key timeoutMs (ignored); did you mean alerts.timeoutMs or rdap.timeoutMs?']);
  assert.deepEqual(warningsFor({ plans: { pro: { maxCheck: 5 } } }), ['unknown config key plans.pro.maxCheck (ignored); did you mean plans.pro.maxChecks?']);
  assert.deepEqual(warningsFor({ rdap: { servers: { dev: 'https://rdap.example/' } } }), [], 'rdap.servers takes any TLD');
});

test('cluster.leaseMs and instance.name: defaults, VIGIL_INSTANCE, and their bounds', () => {
  const c = loadConfig({ env: {}, warn: () => {} });
  assert.equal(c.cluster.leaseMs, 15_000);
  assert.equal(c.instance.name, null);
  assert.equal(instanceName(c, 8081, 'vps-a'), 'vps-a:8081', 'hostname:port by default');
  const named = loadConfig({ env: { VIGIL_INSTANCE: 'central-b' }, warn: () => {} });
  assert.equal(instanceName(named, 8081, 'vps-a'), 'central-b');
  assert.throws(() => loadConfig({ env: {}, overrides: { cluster: { leaseMs: 500 } }, warn: () => {} }), /cluster\.leaseMs must be between 3000 and 600000/);
  assert.throws(() => loadConfig({ env: {}, overrides: { instance: { name: '' } }, warn: () => {} }), /instance\.name must not be empty/);
});

test('store.url (VIGIL_DATABASE_URL) selects PostgreSQL and must be a postgres:// URL', () => {
  assert.equal(loadConfig({ env: {} }).store.url, null, 'SQLite stays the default');
  assert.equal(loadConfig({ env: { VIGIL_DATABASE_URL: 'postgres://vigil@db.internal/vigil' } }).store.url, 'postgres://vigil@db.internal/vigil');
  assert.equal(loadConfig({ env: {}, overrides: { store: { url: 'postgresql://db.internal:5433/vigil?sslmode=require' } } }).store.url, 'postgresql://db.internal:5433/vigil?sslmode=require');
  assert.throws(() => loadConfig({ env: { VIGIL_DATABASE_URL: 'mysql://db/vigil' } }), /must start with postgres:\/\/ or postgresql:\/\/, not mysql:/);
  assert.throws(() => loadConfig({ env: { VIGIL_DATABASE_URL: 'db.internal/vigil' } }), /must be a URL/);
  assert.throws(() => loadConfig({ env: {}, overrides: { store: { url: 5 } } }), /store\.url must be a string or null/);
});

test('probes.dnsServers takes IP addresses with optional ports, and says what is wrong with anything else', () => {
  const load = (dnsServers: unknown) => loadConfig({ env: {}, warn: () => {}, overrides: { probes: { dnsServers } } });
  assert.deepEqual(load([]).probes.dnsServers, [], 'empty: the system resolver');
  assert.deepEqual(load(['127.0.0.1:5353', '192.0.2.53', '2001:db8::53', '[2001:db8::53]:5353']).probes.dnsServers, [
    '127.0.0.1:5353', '192.0.2.53', '2001:db8::53', '[2001:db8::53]:5353',
  ]);
  for (const bad of ['dns.example.com', '127.0.0.1:0', '127.0.0.1:70000', '127.0.0.1:', '[::1]x', 'tcp://1.1.1.1', '']) {
    assert.throws(() => load([bad]), (err) => err instanceof ConfigError && /^probes\.dnsServers\[0\] must be an IP address/.test(err.message), bad);
  }
  assert.throws(() => load('127.0.0.1'), /probes\.dnsServers must be a/);
  assert.throws(() => load([53]), /probes\.dnsServers\.0 must be a string/);
});
