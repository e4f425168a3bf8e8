import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parse as parseYaml } from 'yaml';
import { startServer, type TestServer } from '../helpers/server.js';
import { newAccount, newKey, NO_PROBES, type Actor } from './util.js';

/**
 * Monitoring as code (issue 30): `vigil export` and `vigil apply` beside a running server (real
 * processes on its data directory), the same plan over HTTP and MCP, all-or-nothing applies.
 * No probe runs (the wheel is not ticked): nothing leaves 127.0.0.1.
 */

const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));
const ALL = ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'];
const SLACK = 'https://hooks.slack.com/services/T000/B000/SLACKSECRETPATH123';
const SIGNING = 'signing-secret-abc-123';
const BEARER = 'Bearer token-in-a-header-456';
const SECRETS = [SLACK, 'SLACKSECRETPATH123', SIGNING, BEARER, 'token-in-a-header-456'];

let server: TestServer;
const dirs: string[] = [];

before(async () => {
  server = await startServer({}, undefined, NO_PROBES);
});
after(async () => {
  await server.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}, input?: string): Run {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, VIGIL_DATA_DIR: server.dataDir, VIGIL_CONFIG: '', ...env },
    encoding: 'utf8',
    input,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function fileOf(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-config-'));
  dirs.push(dir);
  const path = join(dir, 'monitoring.yaml');
  writeFileSync(path, text);
  return path;
}

const api = (actor: Actor, method: string, path: string, body?: unknown) => server.request(method, path, { key: actor.key, body });

async function created(actor: Actor, body: Record<string, unknown>): Promise<string> {
  const res = await api(actor, 'POST', '/v1/public/checks', body);
  assert.equal(res.status, 201, res.text);
  return res.body.data.id as string;
}

/** Every check of the account as GET /checks/{id} shows it, by name. */
async function details(actor: Actor): Promise<Map<string, Record<string, unknown>>> {
  const list = await api(actor, 'GET', '/v1/public/checks?limit=100');
  const out = new Map<string, Record<string, unknown>>();
  for (const { id } of list.body.data as Array<{ id: string }>) {
    const res = await api(actor, 'GET', `/v1/public/checks/${id}`);
    out.set(res.body.data.name as string, res.body.data);
  }
  return out;
}

/** The account's maintenance windows as GET shows them, checks by name, without ids, dates of record or the computed fields. */
async function windowsOf(actor: Actor): Promise<Array<Record<string, unknown>>> {
  const names = new Map([...(await details(actor)).values()].map((c) => [c.id as string, c.name as string]));
  const list = await api(actor, 'GET', '/v1/public/maintenance-windows');
  return (list.body.data as Array<Record<string, unknown>>).map(({ id: _id, createdAt: _c, updatedAt: _u, active: _a, nextStartsAt: _s, nextEndsAt: _e, checkIds, ...w }) => ({
    ...w, checks: (checkIds as string[]).map((id) => names.get(id)),
  }) as Record<string, unknown>).sort((a, b) => String(a.title).localeCompare(String(b.title)));
}

/** One check of every type, with the fields each takes, dependencies and maintenance windows, through the API. */
async function buildAccount(actor: Actor): Promise<void> {
  await created(actor, { name: 'Home page', url: 'http://127.0.0.1:9/', folder: 'web', tags: ['env:prod', 'team'], checkFrequency: 1, expectedStatusCodes: [200, 301] });
  const apiHealth = await created(actor, {
    name: 'API health', type: 'rest_endpoint', url: 'http://127.0.0.1:9/health', httpMethod: 'POST',
    requestHeaders: { Authorization: BEARER, 'X-Trace': 'config-test ${literal}' }, requestBody: '{"ping":true}',
    responseValidation: { jsonPath: '$.status', expectedValue: 'ok' }, responseTimeLimit: 1500, downConfirmationAttempts: 3, cacheControlNoCache: true,
  });
  await created(actor, { name: 'Old address', type: 'redirect', url: 'http://127.0.0.1:9/old' });
  const gateway = await created(actor, { name: 'Gateway', type: 'ping', url: '127.0.0.1', pingPackets: 2 });
  const database = await created(actor, { name: 'Database', type: 'tcp', url: 'tcp://127.0.0.1:5432', immediateRecheckEnabled: false, dependsOn: [gateway] });
  await created(actor, { name: 'Syslog', type: 'udp', url: 'udp://127.0.0.1:514', requestBody: 'hello' });
  await created(actor, { name: 'Resolver', type: 'dns', url: 'dns://127.0.0.1/example.com?type=A' });
  await created(actor, { name: 'Live feed', type: 'websocket', url: 'ws://127.0.0.1:9/feed' });
  await created(actor, { name: 'Mail', type: 'smtp', url: 'smtp://127.0.0.1:25' });
  await created(actor, { name: 'Mailbox', type: 'imap', url: 'imaps://127.0.0.1:993' });
  await created(actor, { name: 'POP', type: 'pop3', url: 'pop3://127.0.0.1:110' });
  const nightly = await created(actor, { name: 'Nightly backup', type: 'heartbeat', schedule: '0 3 * * *', timezone: 'Europe/Paris', gracePeriod: 600 });
  await created(actor, { name: 'Domain', type: 'domain', url: 'example.org' });
  const paused = await created(actor, { name: 'Home page', url: 'http://127.0.0.1:9/second' }); // a duplicate name: keys are made unique
  assert.equal((await api(actor, 'POST', `/v1/public/checks/${paused}/toggle`, { disabled: true })).status, 200);
  // A dependency on a check created after it: in the exported file, a key further down.
  assert.equal((await api(actor, 'PATCH', `/v1/public/checks/${apiHealth}`, { dependsOn: [database, gateway] })).status, 200);
  const windows = [
    { title: 'Database upgrade', description: 'Moving to the new host', checkIds: [database, apiHealth], startsAt: '2030-01-05T22:00:00Z', endsAt: '2030-01-06T01:30:00Z' },
    { title: 'Nightly backups', folders: ['web'], tags: ['team'], schedule: '0 3 * * *', durationMinutes: 20, timezone: 'Europe/Paris', startsAt: '2030-01-01T00:00:00Z' },
  ];
  for (const body of windows) {
    const res = await api(actor, 'POST', '/v1/public/maintenance-windows', body);
    assert.equal(res.status, 201, res.text);
  }
  const hook = await api(actor, 'POST', '/v1/public/alerts/webhooks', { name: 'Ops Slack', url: SLACK, secret: SIGNING, events: ['website_down', 'website_up', 'ssl_error'] });
  assert.equal(hook.status, 201, hook.text);
  const routed = await api(actor, 'PATCH', `/v1/public/alerts/webhooks/${hook.body.data.id}`, { checkIds: [nightly], folders: ['web'], tags: ['team'], remindEveryMinutes: 30 });
  assert.equal(routed.status, 200, routed.text);
  assert.equal((await api(actor, 'PATCH', '/v1/public/alerts/email', { recipients: ['ops@example.com'], emailFormat: 'text' })).status, 200);
  const page = await api(actor, 'POST', '/v1/public/status-pages', { slug: `public-${actor.accountId.slice(-6)}`, title: 'Our status', checkIds: [nightly], tags: ['team'], autoIncidents: true, webhookSubscriptions: true, accentColor: '#36D', footerText: 'Run by ops\nSince 2026', logoUrl: 'https://example.com/logo.png' });
  assert.equal(page.status, 201, page.text);
}

const env = { VIGIL_WEBHOOK_OPS_SLACK_URL: SLACK, VIGIL_WEBHOOK_OPS_SLACK_SECRET: SIGNING, VIGIL_CHECK_API_HEALTH_HEADER_AUTHORIZATION: BEARER };

/** The YAML with every reference replaced by its value (what a CI job sends over HTTP). */
const substituted = (text: string) => text.replace(/\$\{(VIGIL_[A-Z0-9_]+)\}/g, (_, name: string) => env[name as keyof typeof env]);

describe('export, then apply: a round trip that changes nothing', () => {
  let actor: Actor;
  let exported: string;

  before(async () => {
    actor = await newAccount(server, { tier: 'pro', scopes: ALL });
    await buildAccount(actor);
  });

  test('export writes every check under a key, secrets as ${VIGIL_…} references, and the schema line', async () => {
    const run = cli(['export', '--account', actor.accountId]);
    assert.equal(run.status, 0, run.stderr);
    exported = run.stdout;
    assert.match(exported, /^# yaml-language-server: \$schema=http:\/\/.+\/v1\/config-schema\.json\n/);
    for (const key of ['home-page:', 'home-page-2:', 'api-health:', 'nightly-backup:', 'domain:', 'ops-slack:', 'database-upgrade:', 'nightly-backups:']) assert.ok(exported.includes(key), `${key} in\n${exported}`);
    const file = parseYaml(exported);
    assert.deepEqual(file.checks['api-health'].dependsOn, ['database', 'gateway'], 'dependencies by key, never by id');
    assert.deepEqual(file.checks.database.dependsOn, ['gateway']);
    assert.deepEqual(file.maintenanceWindows['database-upgrade'], {
      title: 'Database upgrade', description: 'Moving to the new host', checks: ['database', 'api-health'], startsAt: '2030-01-05T22:00:00.000Z', endsAt: '2030-01-06T01:30:00.000Z',
    });
    assert.deepEqual(file.maintenanceWindows['nightly-backups'], {
      title: 'Nightly backups', folders: ['web'], tags: ['team'], startsAt: '2030-01-01T00:00:00.000Z', schedule: '0 3 * * *', durationMinutes: 20, timezone: 'Europe/Paris',
    });
    assert.ok(!/chk_[a-z0-9]/i.test(exported), 'no check id in the file');
    for (const secret of SECRETS) assert.ok(!exported.includes(secret) && !run.stderr.includes(secret), `secret ${secret} not written`);
    assert.ok(exported.includes('${VIGIL_WEBHOOK_OPS_SLACK_URL}') && exported.includes('${VIGIL_WEBHOOK_OPS_SLACK_SECRET}'));
    assert.ok(exported.includes('${VIGIL_CHECK_API_HEALTH_HEADER_AUTHORIZATION}'));
    assert.ok(exported.includes('config-test $${literal}'), 'a literal ${ is escaped');
    assert.match(run.stderr, /VIGIL_WEBHOOK_OPS_SLACK_URL/);
    const json = cli(['export', '--account', actor.accountId, '--format', 'json']);
    assert.equal(json.status, 0, json.stderr);
    assert.match(JSON.parse(json.stdout).$schema, /\/v1\/config-schema\.json$/);
  });

  test('the exported file plans no change, and applying it changes nothing', async () => {
    const before = await details(actor);
    const file = fileOf(exported);
    const dry = cli(['apply', file, '--account', actor.accountId, '--dry-run', '--detailed-exitcode'], env);
    assert.equal(dry.status, 0, dry.stdout + dry.stderr);
    assert.match(dry.stdout, /No changes\./);
    assert.match(dry.stdout, /= 19 unchanged/);
    const windows = await api(actor, 'GET', '/v1/public/maintenance-windows');
    const run = cli(['apply', file, '--account', actor.accountId], env);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(await details(actor), before, 'every check as it was (ids, updatedAt, ping URLs, dependencies)');
    assert.deepEqual((await api(actor, 'GET', '/v1/public/maintenance-windows')).body, windows.body, 'every window as it was');
  });

  test('a variable that is not set is an error naming it: exit 2, nothing written', () => {
    const unset = spawnSync(process.execPath, [CLI, 'apply', fileOf(exported), '--account', actor.accountId], {
      env: { ...process.env, VIGIL_DATA_DIR: server.dataDir, VIGIL_CONFIG: '', VIGIL_WEBHOOK_OPS_SLACK_URL: SLACK, VIGIL_CHECK_API_HEALTH_HEADER_AUTHORIZATION: BEARER },
      encoding: 'utf8',
    });
    assert.equal(unset.status, 2);
    assert.match(unset.stderr, /webhooks\.ops-slack\.secret \(line \d+, column \d+\): environment variable VIGIL_WEBHOOK_OPS_SLACK_SECRET is not set/);
  });
});

describe('apply', () => {
  test('a file applied to an empty account gives the checks the API gives', async () => {
    const byApi = await newAccount(server, { tier: 'pro', scopes: ALL });
    const byFile = await newAccount(server, { tier: 'pro', scopes: ALL });
    await buildAccount(byApi);
    const exported = cli(['export', '--account', byApi.accountId]).stdout;
    // The other account's status page slug is taken: this one gets its own.
    const text = exported.replace(/public-[a-z0-9]{6}/g, `public-${byFile.accountId.slice(-6)}`);
    const run = cli(['apply', fileOf(text), '--account', byFile.accountId], env);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /\+ create checks\.api-health/);
    assert.match(run.stdout, /Plan: 19 to create, 0 to update, 0 to delete/);
    assert.match(run.stdout, /\+ create maintenanceWindows\.database-upgrade \(title: Database upgrade, description: Moving to the new host, checks: \["database","api-health"\]/);
    const a = await details(byApi);
    const b = await details(byFile);
    const strip = (d: Record<string, unknown>, all: Map<string, Record<string, unknown>>) => {
      // A check paused by the file says so in its reason; dependencies are compared by name.
      const { id: _id, createdAt: _c, updatedAt: _u, url, lastChecked: _l, disabledReason: _r, dependsOn, ...rest } = d;
      const nameOf = (id: string) => [...all.values()].find((c) => c.id === id)?.name;
      return { ...rest, url: d.type === 'heartbeat' ? 'ping URL' : url, dependsOn: (dependsOn as string[]).map(nameOf) };
    };
    assert.deepEqual([...b.keys()].sort(), [...a.keys()].sort());
    for (const [name, check] of a) assert.deepEqual(strip(b.get(name)!, b), strip(check, a), name);
    assert.deepEqual(strip(b.get('API health')!, b).dependsOn, ['Database', 'Gateway'], 'a dependency on a check created further down the file');
    assert.deepEqual(await windowsOf(byFile), await windowsOf(byApi), 'the maintenance windows, naming the same checks');
    const pageOf = async (actor: Actor) => {
      const { id: _id, slug: _slug, url: _url, createdAt: _c, updatedAt: _u, checkIds, ...page } = (await api(actor, 'GET', '/v1/public/status-pages')).body.data[0];
      return { ...page, checks: checkIds.length };
    };
    assert.deepEqual(await pageOf(byFile), await pageOf(byApi), 'the status page with its look');
    const hooks = await api(byFile, 'GET', '/v1/public/alerts/webhooks');
    assert.equal(hooks.body.data[0].name, 'Ops Slack');
    assert.equal(hooks.body.data[0].remindEveryMinutes, 30);
    const again = cli(['apply', fileOf(text), '--account', byFile.accountId, '--dry-run', '--detailed-exitcode'], env);
    assert.equal(again.status, 0, 'a second apply of the same file plans no change');
  });

  test('renamedFrom keeps the check (id, history, ping URL); a key renamed without it is a create', async () => {
    const actor = await newAccount(server, { tier: 'pro', scopes: ALL });
    const first = `version: 1\nchecks:\n  backup:\n    type: heartbeat\n    name: Backup\n    checkFrequency: 60\n`;
    assert.equal(cli(['apply', fileOf(first), '--account', actor.accountId]).status, 0);
    const [before] = (await details(actor)).values();
    const renamed = `version: 1\nchecks:\n  nightly-backup:\n    renamedFrom: backup\n    type: heartbeat\n    name: Nightly backup\n    checkFrequency: 60\n`;
    const run = cli(['apply', fileOf(renamed), '--account', actor.accountId]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /~ update checks\.nightly-backup \(renamed from checks\.backup\): name: Backup → Nightly backup/);
    const [after] = (await details(actor)).values();
    assert.equal(after!.id, before!.id);
    assert.equal(after!.url, before!.url, 'the ping URL stays');
    const again = cli(['apply', fileOf(renamed), '--account', actor.accountId, '--dry-run']);
    assert.match(again.stdout, /No changes\./);
    const noHint = renamed.replace('nightly-backup:\n    renamedFrom: backup', 'backup-2:');
    const dry = cli(['apply', fileOf(noHint), '--account', actor.accountId, '--dry-run', '--detailed-exitcode']);
    assert.equal(dry.status, 3, 'changes, with --detailed-exitcode');
    assert.match(dry.stdout, /\+ create checks\.backup-2/);
    assert.match(dry.stdout, /not in the file, left alone: 1 check \(/);
    const pruned = cli(['apply', fileOf(noHint), '--account', actor.accountId, '--dry-run', '--prune']);
    assert.match(pruned.stdout, /- delete checks\.nightly-backup/);
  });

  test('prune deletes what the file does not name; without it, those are left alone', async () => {
    const actor = await newAccount(server, { tier: 'pro', scopes: ALL });
    const outside = await created(actor, { name: 'Made in the dashboard', url: 'http://127.0.0.1:9/dash' });
    const text = `version: 1\nchecks:\n  web:\n    url: http://127.0.0.1:9/web\n`;
    const kept = cli(['apply', fileOf(text), '--account', actor.accountId]);
    assert.equal(kept.status, 0, kept.stderr);
    assert.equal((await api(actor, 'GET', `/v1/public/checks/${outside}`)).status, 200);
    // The CLI beside a running `vigil serve` hands a prune to its API: test/slow/cli-apply-beside-server.test.ts.
    const pruned = await server.request('POST', '/v1/public/config/apply?prune=true', { key: actor.key, rawBody: text, headers: { 'content-type': 'application/yaml' } });
    assert.equal(pruned.status, 200, pruned.text);
    assert.match(pruned.body.data.text, /- delete checks\.made-in-the-dashboard/);
    assert.equal((await api(actor, 'GET', `/v1/public/checks/${outside}`)).status, 404);
    const noDelete = await newKey(server, actor.accountId, { scopes: ['checks:read', 'checks:write', 'alerts:write'] });
    await created(actor, { name: 'Another one', url: 'http://127.0.0.1:9/another' });
    const withoutScope = await server.request('POST', '/v1/public/config/apply?prune=true', { key: noDelete.key, rawBody: text, headers: { 'content-type': 'application/yaml' } });
    assert.equal(withoutScope.status, 403, 'deleting checks needs checks:delete');
    assert.deepEqual([...(await details(actor)).keys()], ['http://127.0.0.1:9/web', 'Another one']);
  });

  test('dependencies by key: on a check further down the file, then turned around in one apply', async () => {
    const actor = await newAccount(server, { tier: 'pro', scopes: ALL });
    const text = (web: string, db: string) =>
      `version: 1\nchecks:\n  db:\n    url: http://127.0.0.1:9/db\n    dependsOn: [${db}]\n  web:\n    url: http://127.0.0.1:9/web\n    dependsOn: [${web}]\n  lb:\n    url: http://127.0.0.1:9/lb\n`;
    const first = cli(['apply', fileOf(text('db, lb', '')), '--account', actor.accountId]);
    assert.equal(first.status, 0, first.stderr);
    const ids = async () => new Map([...(await details(actor)).values()].map((c) => [String(c.url).split('/').pop(), c]));
    const before = await ids();
    assert.deepEqual(before.get('web')!.dependsOn, [before.get('db')!.id, before.get('lb')!.id]);
    // db (first in the file) now depends on web, which no longer depends on db: web's is dropped first, so no step closes a cycle.
    const turned = cli(['apply', fileOf(text('lb', 'web')), '--account', actor.accountId]);
    assert.equal(turned.status, 0, turned.stderr);
    assert.match(turned.stdout, /~ update checks\.db: dependsOn: \[\] → \["web"\]\n~ update checks\.web: dependsOn: \["db","lb"\] → \["lb"\]\n/);
    const after = await ids();
    assert.deepEqual(after.get('web')!.dependsOn, [before.get('lb')!.id]);
    assert.deepEqual(after.get('db')!.dependsOn, [before.get('web')!.id]);
    assert.match(cli(['apply', fileOf(text('lb', 'web')), '--account', actor.accountId, '--dry-run']).stdout, /No changes\./);
  });

  test('maintenance windows: created after the checks they name, kept across renames, deleted only with prune', async () => {
    const actor = await newAccount(server, { tier: 'pro', scopes: ALL });
    const made = await api(actor, 'POST', '/v1/public/maintenance-windows', { title: 'Made in the dashboard', allChecks: true, startsAt: '2030-02-01T00:00:00Z', endsAt: '2030-02-01T02:00:00Z' });
    assert.equal(made.status, 201, made.text);
    const text = [
      'version: 1',
      'maintenanceWindows:',
      '  release:',
      '    title: Release',
      '    checks: [web]',
      '    schedule: 30 1 * * 1',
      '    durationMinutes: 45',
      'checks:',
      '  web:',
      '    url: http://127.0.0.1:9/web',
      '',
    ].join('\n');
    const first = cli(['apply', fileOf(text), '--account', actor.accountId]);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /\+ create maintenanceWindows\.release \(title: Release, checks: \["web"\], allChecks: false, schedule: 30 1 \* \* 1, durationMinutes: 45, timezone: UTC\)/);
    assert.match(first.stdout, /not in the file, left alone: 1 maintenance window \(--prune deletes them\)/);
    const [web] = (await details(actor)).values();
    const listed = async () => (await api(actor, 'GET', '/v1/public/maintenance-windows')).body.data as Array<{ id: string; title: string; checkIds: string[]; durationMinutes: number | null }>;
    const release = (await listed()).find((w) => w.title === 'Release')!;
    assert.deepEqual(release.checkIds, [web!.id]);
    const renamed = text.replace('  release:\n', '  weekly-release:\n    renamedFrom: release\n').replace('durationMinutes: 45', 'durationMinutes: 60');
    const update = cli(['apply', fileOf(renamed), '--account', actor.accountId, '--dry-run', '--detailed-exitcode']);
    assert.equal(update.status, 3);
    assert.match(update.stdout, /~ update maintenanceWindows\.weekly-release \(renamed from maintenanceWindows\.release\): durationMinutes: 45 → 60\n/);
    assert.equal(cli(['apply', fileOf(renamed), '--account', actor.accountId]).status, 0);
    const after = (await listed()).find((w) => w.title === 'Release')!;
    assert.deepEqual([after.id, after.checkIds, after.durationMinutes], [release.id, release.checkIds, 60], 'the same window, changed');
    assert.match(cli(['apply', fileOf(renamed), '--account', actor.accountId, '--dry-run']).stdout, /No changes\./);
    // No check is deleted: the CLI may prune beside the running server (its scheduler looks at the windows every minute).
    const pruned = cli(['apply', fileOf(renamed), '--account', actor.accountId, '--prune']);
    assert.equal(pruned.status, 0, pruned.stderr);
    assert.match(pruned.stdout, /- delete maintenanceWindows\.made-in-the-dashboard\n/);
    assert.deepEqual((await listed()).map((w) => w.title), ['Release']);
  });

  test('an invalid file names the place with line and column, and writes nothing', async () => {
    const actor = await newAccount(server, { tier: 'free', scopes: ALL });
    const text = [
      'version: 1',
      'checks:',
      '  first:',
      '    url: http://127.0.0.1:9/one',
      '  api-health:',
      '    url: http://127.0.0.1:9/health',
      '    checkFrequency: 0.5',
      '',
    ].join('\n');
    const run = cli(['apply', fileOf(text), '--account', actor.accountId]);
    assert.equal(run.status, 2, run.stdout);
    assert.match(run.stderr, /checks\.api-health\.checkFrequency \(line 7, column 5\): checkFrequency must be at least 5 minutes/);
    assert.equal((await details(actor)).size, 0, 'the valid entry before it was not written either');
    const unknown = cli(['apply', fileOf(text.replace('checkFrequency: 0.5', 'checkFrequncy: 5')), '--account', actor.accountId]);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /checks\.api-health\.checkFrequncy \(line 7, column 5\): is not a known field/);
    const broken = cli(['apply', fileOf('version: 1\nchecks:\n  a: [\n'), '--account', actor.accountId]);
    assert.equal(broken.status, 2);
    assert.match(broken.stderr, /^vigil: \(line \d+, column \d+\): /);
    const missingRef = cli(['apply', fileOf('version: 1\nstatusPages:\n  p:\n    title: P\n    checks: [nope]\n'), '--account', actor.accountId]);
    assert.equal(missingRef.status, 2);
    assert.match(missingRef.stderr, /statusPages\.p\.checks\.0 \(line 5, column 14\): names no check of this file or the account: nope/);
    const cycle = [
      'version: 1',
      'checks:',
      '  web:',
      '    url: http://127.0.0.1:9/web',
      '    dependsOn: [db]',
      '  db:',
      '    url: http://127.0.0.1:9/db',
      '    dependsOn:',
      '      - web',
      'maintenanceWindows:',
      '  upgrade:',
      '    title: Upgrade',
      '    checks: [db, cache]',
      '    startsAt: 2030-01-01T00:00:00Z',
      '    endsAt: 2030-01-01T01:00:00Z',
      '',
    ].join('\n');
    const cyclic = cli(['apply', fileOf(cycle), '--account', actor.accountId]);
    assert.equal(cyclic.status, 2);
    assert.match(cyclic.stderr, /checks\.web\.dependsOn\.0 \(line 5, column 17\): dependsOn: web -> db -> web would be a cycle/);
    const unknown2 = cli(['apply', fileOf(cycle.replace('      - web', '      - cache')), '--account', actor.accountId]);
    assert.equal(unknown2.status, 2);
    assert.match(unknown2.stderr, /checks\.db\.dependsOn\.0 \(line 9, column 9\): names no check of this file or the account: cache/);
    const window = cli(['apply', fileOf(cycle.replace('      - web', '      - web2')), '--account', actor.accountId]);
    assert.match(window.stderr, /checks\.db\.dependsOn\.0 \(line 9, column 9\): names no check of this file or the account: web2/);
    const acyclic = cycle.replace('    dependsOn:\n      - web\n', '');
    const windowCheck = cli(['apply', fileOf(acyclic), '--account', actor.accountId]);
    assert.equal(windowCheck.status, 2, windowCheck.stdout);
    assert.match(windowCheck.stderr, /maintenanceWindows\.upgrade\.checks\.1 \(line 11, column 18\): names no check of this file or the account: cache/);
    const timing = cli(['apply', fileOf(acyclic.replace('db, cache', 'db').replace('01:00:00Z', '00:00:00Z')), '--account', actor.accountId]);
    assert.equal(timing.status, 2, timing.stdout);
    assert.match(timing.stderr, /maintenanceWindows\.upgrade\.endsAt \(line 13, column 5\): endsAt must be after startsAt/);
    assert.equal((await details(actor)).size, 0, 'the checks before the error were not written either');
    assert.equal((await api(actor, 'GET', '/v1/public/maintenance-windows')).body.data.length, 0);
  });

  test('a file beyond the plan\'s checks writes nothing (checked before any write)', async () => {
    const actor = await newAccount(server, { tier: 'free', scopes: ALL });
    const entries = Array.from({ length: 11 }, (_, i) => `  c${i}:\n    url: http://127.0.0.1:9/${i}\n`).join('');
    const run = cli(['apply', fileOf(`version: 1\nchecks:\n${entries}`), '--account', actor.accountId]);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /checks \(line 2, column 1\): the account would have 11 checks but its plan allows 10: nothing was written/);
    assert.equal((await details(actor)).size, 0);
  });

  test('stdin, and the exit status of a failed apply', async () => {
    const actor = await newAccount(server, { tier: 'pro', scopes: ALL });
    const run = cli(['apply', '-', '--account', actor.accountId, '--json'], {}, 'version: 1\nchecks:\n  s:\n    url: http://127.0.0.1:9/stdin\n');
    assert.equal(run.status, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.applied, true);
    assert.equal(result.created[0].key, 's');
    assert.equal(cli(['apply', '/nonexistent/file.yaml', '--account', actor.accountId]).status, 2);
    // A store that cannot be opened is a failure, not an invalid file: exit 1.
    const notADirectory = fileOf('not a directory');
    const failed = cli(['apply', '-', '--account', actor.accountId], { VIGIL_DATA_DIR: notADirectory }, 'version: 1\n');
    assert.equal(failed.status, 1, failed.stderr);
  });
});

describe('over HTTP and MCP', () => {
  let actor: Actor;
  let exported: string;

  before(async () => {
    actor = await newAccount(server, { tier: 'pro', scopes: ALL });
    await buildAccount(actor);
    exported = cli(['export', '--account', actor.accountId]).stdout;
  });

  const post = (path: string, text: string, opts: { key?: string; type?: string; headers?: Record<string, string> } = {}) =>
    server.request('POST', path, { key: opts.key ?? actor.key, rawBody: text, headers: { 'content-type': opts.type ?? 'application/yaml', ...opts.headers } });

  test('the JSON Schema is served and describes every check field of the API', async () => {
    const res = await server.request('GET', '/v1/config-schema.json', { key: null });
    assert.equal(res.status, 200);
    const entry = Object.values(res.body.properties.checks.patternProperties)[0] as { properties: Record<string, unknown> };
    for (const field of ['url', 'type', 'checkFrequency', 'requestHeaders', 'folder', 'schedule', 'renamedFrom', 'paused', 'tags', 'dependsOn']) assert.ok(field in entry.properties, field);
    assert.match(JSON.stringify(entry.properties.dependsOn), /Keys of checks/, 'dependencies by key');
    const window = Object.values(res.body.properties.maintenanceWindows.patternProperties)[0] as { properties: Record<string, unknown>; required: string[] };
    for (const field of ['title', 'description', 'checks', 'folders', 'tags', 'allChecks', 'startsAt', 'endsAt', 'schedule', 'durationMinutes', 'timezone', 'renamedFrom']) assert.ok(field in window.properties, field);
    assert.ok(!('checkIds' in window.properties), 'checks by key, not id');
    assert.deepEqual(window.required, ['title']);
  });

  test('HTTP and the CLI give the same plan; secrets never appear in it', async () => {
    const changed = exported.replace('checkFrequency: 1\n', 'checkFrequency: 2\n').replace('${VIGIL_WEBHOOK_OPS_SLACK_SECRET}', 'a-new-signing-secret');
    const cliPlan = cli(['apply', fileOf(changed), '--account', actor.accountId, '--dry-run', '--prune'], env);
    assert.equal(cliPlan.status, 0, cliPlan.stderr);
    const res = await post('/v1/public/config/plan?prune=true', substituted(changed));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.text, cliPlan.stdout);
    assert.equal(res.body.data.applied, false);
    assert.match(cliPlan.stdout, /~ update checks\.home-page: checkFrequency: 1 → 2/);
    assert.match(cliPlan.stdout, /~ update webhooks\.ops-slack: secret\n/);
    for (const secret of [...SECRETS, 'a-new-signing-secret']) {
      assert.ok(!res.text.includes(secret) && !cliPlan.stdout.includes(secret), `${secret} not in the plan`);
    }
    const cliJson = cli(['apply', fileOf(changed), '--account', actor.accountId, '--dry-run', '--prune', '--json'], env);
    assert.equal(cliJson.status, 0, cliJson.stderr);
    assert.deepEqual(JSON.parse(cliJson.stdout).plan, res.body.data.plan, 'the same plan as JSON');
    for (const secret of [...SECRETS, 'a-new-signing-secret']) assert.ok(!cliJson.stdout.includes(secret), `${secret} not in --json`);
    const asJson = await post('/v1/public/config/plan?prune=true', JSON.stringify(parseYaml(substituted(changed))), { type: 'application/json' });
    assert.equal(asJson.status, 200, asJson.text);
    assert.equal(asJson.body.data.text, cliPlan.stdout, 'JSON gives the same plan');
  });

  test('apply over HTTP: scopes, unrestricted keys only, Idempotency-Key, errors with their place', async () => {
    const text = substituted(exported.replace('checkFrequency: 1\n', 'checkFrequency: 3\n'));
    const noAlerts = await newKey(server, actor.accountId, { scopes: ['checks:read', 'checks:write'] });
    assert.equal((await post('/v1/public/config/apply', text, { key: noAlerts.key })).status, 403);
    const restricted = await newKey(server, actor.accountId, { scopes: ALL, folders: ['web'] });
    assert.equal((await post('/v1/public/config/apply', text, { key: restricted.key })).status, 403);
    assert.equal((await post('/v1/public/config/apply', text, { type: 'application/xml' })).status, 400);
    const headers = { 'idempotency-key': `config-${actor.accountId}` };
    const first = await post('/v1/public/config/apply', text, { headers });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.data.applied, true);
    const replay = await post('/v1/public/config/apply', text, { headers });
    assert.equal(replay.text, first.text, 'a replay answers the first answer');
    assert.equal((await post('/v1/public/config/apply', `${text}\n# another body\n`, { headers })).status, 422);
    const again = await post('/v1/public/config/plan', text);
    assert.match(again.body.data.text, /No changes\./);
    const bad = await post('/v1/public/config/plan', 'version: 1\nchecks:\n  x:\n    url: ftp://nope\n');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.path, 'checks.x.url');
    assert.equal(bad.body.error.line, 4);
    assert.equal(bad.body.error.column, 5);
    const unset = await post('/v1/public/config/plan', 'version: 1\nwebhooks:\n  w:\n    name: W\n    url: ${HOME}\n');
    assert.equal(unset.status, 400, 'the server never reads its own environment');
    assert.match(unset.body.error.message, /environment variable HOME is not set/);
  });

  test('MCP: plan_config and apply_config', async () => {
    const client = new Client({ name: 'vigil-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/v1`), { requestInit: { headers: { 'x-api-key': actor.key } } }));
    try {
      const text = `${substituted(exported)}`.replace('checks:\n', 'checks:\n  from-mcp:\n    url: http://127.0.0.1:9/mcp\n');
      const plan = (await client.callTool({ name: 'plan_config', arguments: { file: text } })) as { isError?: boolean; structuredContent?: { data: { text: string } } };
      assert.notEqual(plan.isError, true, JSON.stringify(plan));
      assert.match(plan.structuredContent!.data.text, /\+ create checks\.from-mcp/);
      const applied = (await client.callTool({ name: 'apply_config', arguments: { file: text, idempotencyKey: 'mcp-apply-1' } })) as { isError?: boolean; structuredContent?: { data: { applied: boolean } } };
      assert.equal(applied.structuredContent!.data.applied, true, JSON.stringify(applied));
      assert.ok((await details(actor)).has('http://127.0.0.1:9/mcp'));
    } finally {
      await client.close();
    }
  });
});
