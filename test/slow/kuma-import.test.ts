import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { runCli, type CliResult } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';
import type { ImportReport } from '../../src/import/kuma-import.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';

/**
 * `vigil import kuma` against the real Kuma databases in test/fixtures/kuma (issue 18): every
 * manifest entry is found mapped as docs/kuma-import.md says, or listed as skipped with its
 * reason; dry runs and second runs write nothing; foreign and truncated files are refused; and
 * imported checks really probe local targets.
 */

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/kuma/', import.meta.url));
const VERSIONS = ['1.23.17', '2.5.3'];

interface ManifestMonitor {
  id: number;
  name: string;
  type: string;
  active: boolean;
  parent_name?: string | null;
  settings: Record<string, unknown>;
  notifications: { id: number }[];
  tags: { name: string; value: string }[];
}
interface Manifest {
  notifications: { id: number; name: string; type: string; config: Record<string, unknown> }[];
  monitors: ManifestMonitor[];
  maintenance: {
    id: number; title: string; description: string; strategy: string; timezone: string; weekdays?: number[]; start_time?: string; end_time?: string;
    start?: string; end?: string; monitors: { id: number }[];
  }[];
  status_pages: { id: number; slug: string; title: string; footer_text?: string; show_tags?: boolean; groups: { monitors: { id: number }[] }[] }[];
  push: { monitor_id: number; token: string };
}

const manifest = (v: string): Manifest => JSON.parse(readFileSync(join(FIXTURES, `kuma-${v}.manifest.json`), 'utf8')) as Manifest;
const dbFile = (v: string) => join(FIXTURES, `kuma-${v}.db`);
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

const dirs: string[] = [];
function tmp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-kuma-'));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function ok(r: CliResult): unknown {
  assert.equal(r.status, 0, `exit 0 (stderr: ${r.stderr})`);
  return JSON.parse(r.stdout);
}

/** A data directory with a pro account and a full-scope key, made through the CLI. */
function account(tier = 'pro'): { dataDir: string; email: string; key: string } {
  const dataDir = tmp();
  const email = `kuma-${tier}@example.com`;
  ok(runCli(['account', 'create', '--email', email, '--tier', tier], dataDir));
  const key = ok(runCli(['key', 'create', '--account', email, '--scopes', 'checks:read,checks:write,checks:delete,alerts:read,alerts:write'], dataDir)) as { key: string };
  return { dataDir, email, key: key.key };
}

/** How many audit entries of each action the account has, each with who made them. */
async function audited(dataDir: string, email: string): Promise<Map<string, string[]>> {
  const store = openSqliteStore(dataDir);
  try {
    const account = (await store.accounts.byEmail(email))!;
    const out = new Map<string, string[]>();
    for (const e of await store.audit.list({ accountId: account.id }, { limit: 10_000, beforeSeq: null })) out.set(e.action, [...(out.get(e.action) ?? []), e.actor.kind]);
    return out;
  } finally {
    await store.close();
  }
}

function importKuma(v: string, dataDir: string, email: string, ...flags: string[]): ImportReport {
  return ok(runCli(['import', 'kuma', dbFile(v), '--account', email, ...flags], dataDir)) as ImportReport;
}

/** The Vigil type each Kuma monitor type becomes (docs/kuma-import.md, "Monitors"). */
function expectedType(m: ManifestMonitor): string {
  const s = m.settings;
  if (m.type === 'http' && s.maxredirects === 0) {
    return (s.accepted_statuscodes as string[]).every((c) => c.startsWith('3')) ? 'redirect' : 'rest_endpoint';
  }
  return ({ http: 'website', keyword: 'website', 'json-query': 'rest_endpoint', port: 'tcp', ping: 'ping', dns: 'dns', push: 'heartbeat', 'websocket-upgrade': 'websocket', smtp: 'smtp' } as Record<string, string>)[m.type]!;
}

/** The URL each Kuma monitor becomes (api-spec §2 url formats). */
function expectedUrl(m: ManifestMonitor): string | null {
  const s = m.settings;
  switch (m.type) {
    case 'port': return `tcp://${s.hostname}:${s.port}`;
    case 'ping': return String(s.hostname);
    case 'dns': return `dns://${s.dns_resolve_server}/${s.hostname}?type=${s.dns_resolve_type}`;
    case 'smtp': return `smtp://${s.hostname}:${s.port}`;
    case 'push': return null;
    default: return String(s.url);
  }
}

const VIGIL_WEBHOOK_TYPE: Record<string, string> = { webhook: 'generic', PagerDuty: 'pagerduty', Opsgenie: 'opsgenie', 'rocket.chat': 'rocketchat', GoogleChat: 'googlechat' };

for (const version of VERSIONS) {
  describe(`Kuma ${version}: every manifest entry mapped as documented`, () => {
    const m = manifest(version);
    let world: { dataDir: string; email: string; key: string };
    let report: ImportReport;
    let srv: TestServer;
    const get = async (path: string) => {
      const res = await srv.request('GET', path, { key: world.key });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return res.body.data;
    };

    before(async () => {
      world = account();
      const before = sha(dbFile(version));
      report = importKuma(version, world.dataDir, world.email);
      assert.equal(sha(dbFile(version)), before, 'the Kuma file is never changed');
      srv = await startServer({}, undefined, { dataDir: world.dataDir, autoTick: false });
    });
    after(() => srv.stop(true));

    test('monitors: a check of the documented type and settings, a folder, or skipped with a reason', async () => {
      assert.equal(report.monitors.length, m.monitors.length);
      for (const km of m.monitors) {
        const row = report.monitors.find((r) => r.kumaId === km.id);
        assert.ok(row, `monitor ${km.id} ${km.name} is in the report`);
        const s = km.settings;
        if (km.type === 'group') {
          assert.deepEqual([row.result, row.folder], ['folder', km.name]);
          continue;
        }
        if (s.upsideDown === true) {
          assert.equal(row.result, 'skipped');
          assert.match(row.reason!, /upside-down/);
          continue;
        }
        if (row.result === 'skipped') {
          // The only other skip: Vigil keeps one check per URL, and another monitor has this one.
          assert.match(row.reason!, /already exists/, `${km.name}: ${row.reason}`);
          assert.ok(m.monitors.some((o) => o.id !== km.id && o.settings.url === s.url && report.monitors.find((r) => r.kumaId === o.id)?.result === 'created'));
          continue;
        }
        assert.equal(row.result, 'created', `${km.name}: ${row.reason}`);
        const check = await get(`/v1/public/checks/${row.checkId}`);
        assert.equal(check.type, expectedType(km), km.name);
        const url = expectedUrl(km);
        if (url !== null) assert.equal(check.url, url, km.name);
        assert.equal(check.name, km.name, 'the name is kept as it is');
        assert.deepEqual(check.tags, km.tags.map((tag) => (tag.value ? `${tag.name}:${tag.value}` : tag.name)), `${km.name}: tags carried as tags`);
        assert.equal(check.folder, km.parent_name ?? null);
        assert.equal(check.disabled, !km.active, `${km.name} paused as in Kuma`);
        assert.equal(check.downConfirmationAttempts, Number(s.maxretries) + 1);
        if (['http', 'keyword', 'json-query'].includes(km.type)) {
          assert.equal(check.method, s.method);
          for (const code of s.accepted_statuscodes as string[]) {
            const first = Number(code.split('-')[0]);
            assert.ok(check.expectedStatusCodes.includes(first), `${km.name} accepts ${first}`);
          }
          if (s.body) assert.equal(check.body, s.body);
          if (s.headers) assert.deepEqual(check.headers, JSON.parse(String(s.headers)));
          if (s.basic_auth_user) assert.equal(check.headers.Authorization, `Basic ${Buffer.from(`${s.basic_auth_user}:${s.basic_auth_pass}`).toString('base64')}`);
        }
        if (km.type === 'keyword' && !s.invertKeyword) assert.deepEqual(check.responseValidation, { containsText: [s.keyword] });
        if (km.type === 'keyword' && s.invertKeyword) assert.ok(row.notImported.some((n) => /inverted keyword/.test(n)));
        if (km.type === 'json-query') assert.deepEqual(check.responseValidation, { jsonPath: `$.${s.jsonPath}`, expectedValue: s.expectedValue });
        if (s.ignoreTls) assert.ok(row.notImported.some((n) => /ignore TLS/.test(n)));
        if (km.type === 'push') {
          assert.equal(row.pushToken, m.push.token);
          assert.match(row.pingUrl!, /\/heartbeat\/[0-9a-f]{64}$/);
        }
      }
    });

    test('tags survive the import: the list filters by them (every tag must match; a key matches any value)', async () => {
      const tagged = m.monitors.filter((km) => km.tags.length > 0 && report.monitors.find((r) => r.kumaId === km.id)?.result === 'created');
      assert.ok(tagged.length > 0, 'the fixture has tagged monitors');
      const listed = async (query: string) =>
        ((await get(`/v1/public/checks?limit=100&${query}`)) as { id: string }[]).map((c) => c.id).sort();
      const checkOf = (km: ManifestMonitor) => report.monitors.find((r) => r.kumaId === km.id)!.checkId!;
      const has = (km: ManifestMonitor, name: string, value?: string) =>
        km.tags.some((t) => t.name.toLowerCase() === name && (value === undefined || t.value.toLowerCase() === value));
      const first = tagged[0]!.tags[0]!;
      assert.deepEqual(await listed(`tag=${encodeURIComponent(first.name.toUpperCase())}`), tagged.filter((km) => has(km, first.name.toLowerCase())).map(checkOf).sort());
      const both = tagged.find((km) => km.tags.length > 1);
      if (both) {
        const [a, b] = both.tags as [ManifestMonitor['tags'][number], ManifestMonitor['tags'][number]];
        const q = (t: typeof a) => encodeURIComponent(t.value ? `${t.name}:${t.value}` : t.name);
        const expected = tagged.filter((km) => has(km, a.name.toLowerCase(), a.value ? a.value.toLowerCase() : undefined) && has(km, b.name.toLowerCase(), b.value ? b.value.toLowerCase() : undefined));
        assert.deepEqual(await listed(`tag=${q(a)}&tag=${q(b)}`), expected.map(checkOf).sort());
      }
    });

    test('notifications: a webhook of the matching type routed to its monitors\' checks, the email recipients, or skipped', async () => {
      const hooks = (await get('/v1/public/alerts/webhooks')) as { id: string; webhookType: string; checkIds: string[] }[];
      const email = await get('/v1/public/alerts/email');
      for (const n of m.notifications) {
        const row = report.notifications.find((r) => r.kumaId === n.id);
        assert.ok(row, `notification ${n.id} ${n.name} is in the report`);
        const routed = m.monitors.filter((mon) => mon.notifications.some((x) => x.id === n.id))
          .map((mon) => report.monitors.find((r) => r.kumaId === mon.id)!)
          .filter((r) => r.result === 'created').map((r) => r.checkId!);
        if (routed.length === 0) {
          assert.equal(row.result, 'skipped');
          assert.match(row.reason!, /no imported monitor uses it/);
          continue;
        }
        if (n.type === 'smtp') {
          assert.equal(row.result, 'email');
          const addresses = ['smtpTo', 'smtpCC', 'smtpBCC'].flatMap((f) => String(n.config[f] ?? '').split(',')).map((a) => a.trim()).filter(Boolean);
          assert.deepEqual([...email.recipients].sort(), [...addresses].sort());
          assert.deepEqual([...email.checkIds].sort(), [...routed].sort());
          assert.ok(row.notImported.some((x) => /operator sets Vigil's own SMTP server/.test(x)));
          continue;
        }
        assert.equal(row.result, 'webhook', `${n.name}: ${row.reason}`);
        const hook = hooks.find((h) => h.id === row.webhookId);
        assert.ok(hook, `webhook ${row.webhookId} exists`);
        assert.equal(hook.webhookType, VIGIL_WEBHOOK_TYPE[n.type] ?? n.type);
        assert.deepEqual([...hook.checkIds].sort(), [...routed].sort());
      }
    });

    test('maintenance windows become Vigil windows (one-off, weekly in their zone) of the imported checks; status pages keep slug, title and monitors', async () => {
      for (const w of m.maintenance) {
        const row = report.maintenance.find((r) => r.kumaId === w.id);
        assert.equal(row?.result, 'created', `${w.title}: ${row?.reason}`);
        const window = await get(`/v1/public/maintenance-windows/${row.maintenanceWindowId}`);
        const checks = w.monitors.map((mon) => report.monitors.find((r) => r.kumaId === mon.id)!.checkId).filter(Boolean);
        assert.deepEqual([window.title, window.description, [...window.checkIds].sort()], [w.title, w.description, [...checks].sort()]);
        if (w.strategy === 'recurring-weekday') {
          const [h, min] = w.start_time!.split(':').map(Number) as [number, number];
          const [eh, emin] = w.end_time!.split(':').map(Number) as [number, number];
          assert.deepEqual([window.schedule, window.timezone, window.durationMinutes], [`${min} ${h} * * ${w.weekdays!.join(',')}`, w.timezone, eh * 60 + emin - (h * 60 + min)]);
        } else {
          assert.equal(w.strategy, 'single');
          assert.deepEqual([window.startsAt, window.endsAt, window.schedule], [new Date(`${w.start}:00Z`).toISOString(), new Date(`${w.end}:00Z`).toISOString(), null], 'the fixture\'s one-off window is in UTC');
        }
      }
      const pages = (await get('/v1/public/status-pages')) as { id: string; slug: string; title: string; checkIds: string[] }[];
      for (const p of m.status_pages) {
        const row = report.statusPages.find((r) => r.kumaId === p.id);
        assert.equal(row?.result, 'created');
        const page = pages.find((x) => x.id === row.statusPageId)!;
        assert.deepEqual([page.slug, page.title], [p.slug, p.title]);
        const expected = p.groups.flatMap((g) => g.monitors).map((mon) => report.monitors.find((r) => r.kumaId === mon.id)!.checkId).filter(Boolean);
        assert.deepEqual(page.checkIds, expected);
        // docs/kuma-import.md "Status pages": settings without an equivalent are named.
        if (p.footer_text) assert.ok(row.notImported.some((n) => n.includes(`footer text "${p.footer_text}"`)), JSON.stringify(row.notImported));
        if (p.show_tags) assert.ok(row.notImported.some((n) => /show tags/.test(n)), JSON.stringify(row.notImported));
      }
    });
  });
}

describe('runs that must write nothing', () => {
  test('a dry run prints the plan and writes nothing; a real run then a second run creates nothing new', async () => {
    const { dataDir, email } = account();
    const before = await audited(dataDir, email);
    const dry = importKuma('2.5.3', dataDir, email, '--dry-run');
    assert.deepEqual(await audited(dataDir, email), before, 'a dry run leaves no audit entry');
    assert.equal(dry.dryRun, true);
    assert.ok(dry.summary.checksCreated! > 0);
    assert.ok(dry.monitors.every((r) => r.checkId === undefined), 'a dry run shows no ids (they were rolled back)');
    const count = () => (ok(runCli(['account', 'list'], dataDir)) as { checks: number }[])[0]!.checks;
    assert.equal(count(), 0);

    const first = importKuma('2.5.3', dataDir, email);
    assert.equal(first.summary.checksCreated, dry.summary.checksCreated);
    // Each object the import made is one entry of the API's action, by the CLI.
    const log = await audited(dataDir, email);
    const made = (action: string) => log.get(action) ?? [];
    assert.equal(made('check.create').length, first.summary.checksCreated);
    assert.equal(made('webhook.create').length, first.summary.webhooksCreated);
    assert.equal(made('status_page.create').length, first.summary.statusPagesCreated);
    assert.equal(made('maintenance_window.create').length, first.summary.maintenanceWindowsCreated);
    for (const action of ['check.create', 'webhook.create', 'status_page.create', 'maintenance_window.create']) {
      assert.ok(made(action).every((kind) => kind === 'cli'), `${action} by the CLI`);
    }
    assert.equal(count(), first.summary.checksCreated);
    const second = importKuma('2.5.3', dataDir, email);
    assert.deepEqual([second.summary.checksCreated, second.summary.webhooksCreated, second.summary.statusPagesCreated, second.summary.maintenanceWindowsCreated], [0, 0, 0, 0]);
    assert.ok(first.summary.maintenanceWindowsCreated! > 0);
    assert.ok(second.maintenance.every((r) => r.result === 'already_imported'), 'windows are not imported twice');
    assert.ok(dry.maintenance.every((r) => r.maintenanceWindowId === undefined && r.result === 'created'), 'a dry run plans the windows');
    assert.equal(second.summary.checksAlreadyImported, first.summary.checksCreated);
    assert.equal(count(), first.summary.checksCreated);
    const push = second.monitors.find((r) => r.kumaType === 'push')!;
    assert.equal(push.pingUrl, first.monitors.find((r) => r.kumaType === 'push')!.pingUrl, 'the ping URL is shown again');
  });

  test('--with-history: Kuma heartbeats become the new checks\' history through the recorder; a second run adds none', async () => {
    const { dataDir, email, key } = account();
    const m = manifest('2.5.3');
    const report = importKuma('2.5.3', dataDir, email, '--with-history');
    assert.ok(report.summary.historyRows! > 0);
    assert.deepEqual(report.notImported, []);
    const again = importKuma('2.5.3', dataDir, email, '--with-history');
    assert.equal(again.summary.historyRows, 0);
    const srv = await startServer({}, undefined, { dataDir, autoTick: false });
    try {
      for (const name of ['Shop Homepage', 'Flaky Backend']) {
        const row = report.monitors.find((r) => r.name === name)!;
        const beats = m.monitors.find((x) => x.name === name)! as unknown as { heartbeats: { total: number; up: number } };
        assert.equal(row.historyRows, beats.heartbeats.total);
        const res = await srv.request('GET', `/v1/public/checks/${row.checkId}/history?limit=100`, { key });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.data.length, beats.heartbeats.total, `${name}: one history row per Kuma heartbeat`);
        assert.equal(res.body.data.filter((h: { status: string }) => h.status === 'up').length, beats.heartbeats.up);
      }
    } finally {
      await srv.stop(true);
    }
  });

  test('--paused creates every check paused', () => {
    const { dataDir, email } = account();
    const report = importKuma('1.23.17', dataDir, email, '--paused');
    const created = report.monitors.filter((r) => r.result === 'created');
    assert.ok(created.length > 0 && created.every((r) => r.paused === true));
  });

  test('more monitors than the plan allows: stops before writing and says how many fit', () => {
    const { dataDir, email } = account('free');
    const r = runCli(['import', 'kuma', dbFile('2.5.3'), '--account', email], dataDir);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /plan allows 10 more checks .*nothing was imported/);
    assert.equal((ok(runCli(['account', 'list'], dataDir)) as { checks: number }[])[0]!.checks, 0);
  });

  test('a foreign SQLite file, a non-database and a truncated Kuma file are refused with one line, exit 2', () => {
    const { dataDir, email } = account();
    const dir = tmp();
    const truncated = join(dir, 'truncated.db');
    writeFileSync(truncated, readFileSync(dbFile('2.5.3')).subarray(0, 100_000));
    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, 'not a database at all, just text\n'.repeat(20));
    const foreign = join(dir, 'vigil.db');
    copyFileSync(join(dataDir, 'vigil.db'), foreign);
    for (const [file, message] of [[truncated, /not a readable SQLite database/], [garbage, /not a readable SQLite database/], [foreign, /not an Uptime Kuma database/], [join(dir, 'missing.db'), /cannot open/]] as const) {
      const r = runCli(['import', 'kuma', file, '--account', email], dataDir);
      assert.equal(r.status, 2, r.stderr);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr.trimEnd().split('\n').length, 1);
      assert.match(r.stderr, message);
    }
    const usage = runCli(['import', 'kuma', dbFile('2.5.3')], dataDir);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /--account/);
  });
});

describe('imported checks really probe local targets', () => {
  let target: Server;
  let port: number;
  let srv: TestServer;
  let world: { dataDir: string; email: string; key: string };
  let report: ImportReport;

  before(async () => {
    // The fixture's local test server, on a free port: the imported checks are pointed at it.
    target = createServer((req, res) => {
      const path = req.url ?? '/';
      if (path === '/') return void res.end('<h1>Welcome to the shop</h1>');
      if (path === '/health') return void res.end('OK');
      if (path === '/api/status') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      if (path === '/api/orders') {
        const good = req.method === 'POST' && req.headers['x-api-key'] === 'fixture-key-123';
        return void res.writeHead(good ? 201 : 401).end();
      }
      if (path === '/secure') {
        const good = req.headers.authorization === `Basic ${Buffer.from('monitor:s3cret-Pass').toString('base64')}`;
        return void res.writeHead(good ? 200 : 401).end();
      }
      if (path === '/old-path') return void res.writeHead(301, { location: '/new-path' }).end();
      res.writeHead(404).end();
    });
    const wss = new WebSocketServer({ server: target, path: '/ws' });
    wss.on('connection', (socket) => socket.close(1000));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    port = (target.address() as AddressInfo).port;
    world = account();
    report = importKuma('2.5.3', world.dataDir, world.email);
    srv = await startServer({}, undefined, { dataDir: world.dataDir });
  });
  after(async () => {
    await srv.stop(true);
    target.close();
  });

  test('http (keyword, POST with headers and body, basic auth, json-query, 3xx), tcp and websocket checks go up against the local target', async () => {
    const names = ['Shop Homepage', 'Orders API', 'Health Endpoint', 'Status JSON', 'Admin Area (basic auth)', 'Legacy Redirect', 'Local TCP 18080', 'Realtime WebSocket'];
    const ids: string[] = [];
    for (const name of names) {
      const row = report.monitors.find((r) => r.name === name);
      assert.equal(row?.result, 'created', name);
      const check = (await srv.request('GET', `/v1/public/checks/${row.checkId}`, { key: world.key })).body.data;
      // Same path, the local target's port instead of the fixture's 18080.
      const url = String(check.url).replace(':18080', `:${port}`);
      const res = await srv.request('PATCH', `/v1/public/checks/${row.checkId}`, { key: world.key, body: { url } });
      assert.equal(res.status, 200, res.text);
      ids.push(row.checkId!);
    }
    const deadline = Date.now() + 30_000;
    let statuses: string[] = [];
    while (Date.now() < deadline) {
      statuses = await Promise.all(ids.map(async (id) => (await srv.request('GET', `/v1/public/checks/${id}`, { key: world.key })).body.data.status as string));
      if (statuses.every((s) => s === 'up')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(Object.fromEntries(names.map((n, i) => [n, statuses[i]])), Object.fromEntries(names.map((n) => [n, 'up'])));
  });
});
