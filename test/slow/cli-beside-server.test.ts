import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { runCli, type CliResult } from '../helpers/cli.js';
import { serveFresh, stopServing, type Serving } from '../helpers/serve-process.js';
import type { ImportReport } from '../../src/import/kuma-import.js';

/**
 * The CLI beside a running `vigil serve` on the same data directory (issue 23): a CLI write does
 * not make rollups count results twice (1); a Kuma push URL and Kuma's push parameters work
 * (4); an import applies the email routing it reports, its checks appear in the server's API
 * and start probing at once, and a status page's settings without an equivalent are reported
 * (5); printed URLs name the port the server serves on (9). Real processes, real HTTP.
 */

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));
const KUMA = fileURLToPath(new URL('../../../test/fixtures/kuma/', import.meta.url));
const TIMEOUT = { timeout: 60_000 };

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function ok(r: CliResult): unknown {
  assert.equal(r.status, 0, `exit 0 (stderr: ${r.stderr})`);
  return JSON.parse(r.stdout);
}

/** Polls `probe` until it returns a value (bounded: about 20 s), for what the server does in its own time. */
async function eventually<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await probe();
    if (value !== null) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never happened: ${what}`);
}

/**
 * The 2.5.3 fixture, copied and trimmed so that this test touches only 127.0.0.1: every monitor
 * but the local TCP one (and the push one, which probes nothing) is paused in it, and only the
 * email notification stays routed (to paused monitors; no SMTP server is configured).
 */
function kumaCopy(dir: string): string {
  const file = join(dir, 'kuma.db');
  copyFileSync(join(KUMA, 'kuma-2.5.3.db'), file);
  const db = new Database(file);
  try {
    const tcp = db.prepare("SELECT id FROM monitor WHERE name = 'Local TCP 18080'").pluck().get() as number;
    db.prepare("UPDATE monitor SET active = 0 WHERE id != ? AND type NOT IN ('group', 'push')").run(tcp);
    db.prepare("DELETE FROM monitor_notification WHERE notification_id NOT IN (SELECT id FROM notification WHERE json_extract(config, '$.type') = 'smtp')").run();
  } finally {
    db.close();
  }
  return file;
}

describe('the CLI beside a running server on the same data directory', () => {
  let dataDir: string;
  let port: number;
  let serving: Serving;
  let key: string;
  const base = () => `http://127.0.0.1:${port}`;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: { 'x-api-key': key, 'idempotency-key': randomUUID(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
    return (JSON.parse(text) as { data: any }).data;
  };
  const history = async (checkId: string) => (await api('GET', `/v1/public/checks/${checkId}/history?limit=100`)) as Array<{ type: string; status: string; error: string | null; details: Record<string, unknown> | null }>;
  const cli = (...args: string[]) => ok(runCli(args, dataDir));
  /** A new heartbeat check and its ping URL (on the address the server listens on). */
  const heartbeat = async (name: string) => {
    const { id } = await api('POST', '/v1/public/checks', { type: 'heartbeat', name, checkFrequency: 5 });
    const { url } = await api('GET', `/v1/public/checks/${id}`);
    return { id: id as string, url: `${base()}${new URL(url as string).pathname}` };
  };

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-beside-'));
    dirs.push(dir);
    dataDir = join(dir, 'data');
    ({ serving, port, key } = await serveFresh(CLI, ROOT, dataDir));
  });
  after(async () => {
    if (serving) await stopServing(serving);
  });

  test('1: login-link and key create between pings: the rollups count each ping once, as history does', TIMEOUT, async () => {
    const { id, url } = await heartbeat('rollup witness');
    const ping = async () => assert.equal((await fetch(url)).status, 200);
    await ping();
    await ping();
    cli('login-link');
    cli('key', 'create', '--account', 'admin@localhost', '--name', 'beside');
    await ping();
    cli('login-link');
    const rows = await history(id);
    assert.equal(rows.filter((r) => r.type === 'ping').length, 3);
    // The series sums written minute rows and the minutes the server still holds: before the
    // fix, the CLI rebuilt the open minute from history and wrote it, and the server later added
    // the same pings again.
    const series = await api('GET', `/v1/public/checks/${id}/series?range=1h`);
    assert.equal((series.total as number[]).reduce((a, b) => a + b, 0), 3, `series totals ${JSON.stringify(series.total)}`);
    const stats = await api('GET', `/v1/public/checks/${id}/stats`);
    assert.equal(stats.uptime.totalChecks, 3, JSON.stringify(stats.uptime));
  });

  test('9: login-link prints the address the server serves on, not the default port', TIMEOUT, () => {
    const link = cli('login-link') as { url: string };
    assert.ok(link.url.startsWith(`http://localhost:${port}/`), link.url);
  });

  test('4: the ping URL reads Kuma\'s status=down, msg and ping', TIMEOUT, async () => {
    const { id, url } = await heartbeat('kuma-style job');
    assert.equal((await fetch(`${url}?status=down&msg=backup%20failed&ping=12`)).status, 200);
    assert.equal((await fetch(`${url}?status=up&msg=backup%20ok&ping=7`)).status, 200);
    const [up, down] = (await history(id)).filter((r) => r.type === 'ping');
    assert.equal(down!.status, 'down');
    assert.equal(down!.error, 'backup failed');
    assert.equal(down!.details?.duration, 12);
    assert.equal(up!.status, 'up');
    assert.equal(up!.details?.message, 'backup ok');
    assert.equal(up!.details?.duration, 7);
  });

  test('5, 4, 9: an import beside the server: email routing applied, checks served and probing at once, the Kuma push URL answered', TIMEOUT, async () => {
    const manifest = JSON.parse(readFileSync(join(KUMA, 'kuma-2.5.3.manifest.json'), 'utf8')) as {
      notifications: Array<{ type: string; config: Record<string, string> }>;
      push: { token: string };
    };
    const smtp = manifest.notifications.find((n) => n.type === 'smtp')!.config;
    const addresses = [smtp.smtpTo, smtp.smtpCC, smtp.smtpBCC].flatMap((v) => String(v).split(',')).map((a) => a.trim()).filter(Boolean);
    // The account already mails these addresses about one check.
    const { id: witness } = await heartbeat('already routed');
    await api('PATCH', '/v1/public/alerts/email', { recipients: addresses, checkIds: [witness] });

    const report = cli('import', 'kuma', kumaCopy(join(dataDir, '..')), '--account', 'admin@localhost') as ImportReport;

    const email = report.notifications.find((n) => n.kumaType === 'smtp')!;
    assert.equal(email.result, 'email', email.reason);
    const settings = await api('GET', '/v1/public/alerts/email');
    assert.deepEqual([...settings.checkIds].sort(), [...email.checkIds!].sort(), 'the routing the report shows is the routing applied');
    assert.ok(settings.checkIds.includes(witness) && settings.checkIds.length > 1);

    const page = report.statusPages[0]!;
    assert.ok(page.notImported.some((n) => /footer text/.test(n)), JSON.stringify(page.notImported));
    assert.ok(page.notImported.some((n) => /show tags/.test(n)), JSON.stringify(page.notImported));

    // Served at once, with no restart.
    const created = report.monitors.filter((m) => m.result === 'created');
    const listed = new Set(((await api('GET', '/v1/public/checks?limit=100')) as Array<{ id: string }>).map((c) => c.id));
    for (const m of created) assert.ok(listed.has(m.checkId!), `${m.name} is listed`);
    const tcp = created.find((m) => m.name.startsWith('Local TCP'))!;
    await eventually('the imported TCP check is probed', async () => {
      const check = await api('GET', `/v1/public/checks/${tcp.checkId}`);
      return check.lastChecked ? check : null;
    });

    const push = report.monitors.find((m) => m.kumaType === 'push')!;
    assert.equal(push.pushToken, manifest.push.token);
    assert.ok(push.pingUrl!.startsWith(`http://localhost:${port}/heartbeat/`), push.pingUrl);
    assert.equal(push.pushUrl, `http://localhost:${port}/api/push/${manifest.push.token}`);
    // The cron job keeps its Kuma URL and only changes the host.
    const kumaUrl = `${base()}/api/push/${manifest.push.token}`;
    assert.equal((await fetch(`${kumaUrl}?status=down&msg=backup%20failed&ping=`)).status, 200);
    assert.equal((await fetch(`${kumaUrl}?status=up&msg=OK&ping=41`)).status, 200);
    const [up, down] = (await history(push.checkId!)).filter((r) => r.type === 'ping');
    assert.deepEqual([down!.status, down!.error], ['down', 'backup failed']);
    assert.deepEqual([up!.status, up!.details?.duration], ['up', 41]);
    const unknown = await fetch(`${base()}/api/push/not-a-kuma-token`);
    assert.equal(unknown.status, 404);
    assert.deepEqual(await unknown.json(), { ok: false, error: 'not_found' });

    // A regenerated ping URL retires the Kuma one with it.
    await api('POST', `/v1/public/checks/${push.checkId}/regenerate-token`);
    assert.equal((await fetch(kumaUrl)).status, 404);
  });

  test('after the server stops: every check\'s minute rollups hold exactly the results history holds', TIMEOUT, async () => {
    const { code } = await stopServing(serving);
    assert.equal(code, 0);
    const db = new Database(join(dataDir, 'vigil.db'), { readonly: true });
    try {
      const rows = db.prepare(
        `SELECT c.seq, c.name,
           (SELECT count(*) FROM history h WHERE h.check_seq = c.seq AND h.kind != 'event' AND h.status IN ('up', 'down')) AS results,
           (SELECT coalesce(sum(total), 0) FROM rollup_minute r WHERE r.check_seq = c.seq) AS rolled
         FROM checks c`,
      ).all() as Array<{ name: string; results: number; rolled: number }>;
      assert.ok(rows.some((r) => r.results > 0));
      for (const r of rows) assert.equal(r.rolled, r.results, `${r.name}: ${r.rolled} in minute rollups, ${r.results} in history`);
    } finally {
      db.close();
    }
  });
});
