import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFile } from 'node:child_process';
import { serveFresh, stopServing, type Serving } from '../helpers/serve-process.js';

/**
 * Issue 35 item 5: `vigil apply --prune` beside a running `vigil serve` on the same data
 * directory deletes what the file does not name, through the server (which then stops serving
 * and probing those checks at once), with the plan and exit codes of an apply without a server.
 */

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));
const TIMEOUT = { timeout: 60_000 };

/**
 * `vigil <args>` on the data directory, without blocking this process: a blocked test would not
 * see the server close an idle keep-alive connection, and its next fetch would fail on it.
 */
function runCli(args: string[], dataDir: string): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, VIGIL_DATA_DIR: dataDir, VIGIL_CONFIG: '' } }, (err, stdout, stderr) => {
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

describe('vigil apply --prune beside a running server', () => {
  let dir: string;
  let dataDir: string;
  let port: number;
  let serving: Serving;
  let key: string;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { 'x-api-key': key, 'idempotency-key': randomUUID(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: any } };
  };
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-apply-beside-'));
    dataDir = join(dir, 'data');
    ({ serving, port, key } = await serveFresh(CLI, ROOT, dataDir));
  });
  after(async () => {
    if (serving) await stopServing(serving);
    rmSync(dir, { recursive: true, force: true });
  });

  test('the first start names one address in the lines it prints for people (issue 35 item 11)', () => {
    const printed = serving.stdout().split('\n').filter((l) => !l.startsWith('{'));
    const hosts = new Set(printed.flatMap((l) => [...l.matchAll(/https?:\/\/([^/:\s]+)/g)].map((m) => m[1])));
    assert.deepEqual([...hosts], ['localhost'], printed.join('\n'));
  });

  test('the deletion is made by the server: the check is gone from its API, the plan printed as usual, exit 0', TIMEOUT, async () => {
    const made = await api('POST', '/v1/public/checks', { type: 'heartbeat', name: 'Made in the dashboard', checkFrequency: 5 });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const outside = made.body.data.id as string;
    // Read once, so the server holds it in its caches: a deletion beside it would leave it there.
    assert.equal((await api('GET', `/v1/public/checks/${outside}`)).status, 200);
    const keysBefore = (await api('GET', '/v1/public/keys')).body.data as Array<{ id: string }>;
    const text = file('monitoring.yaml', 'version: 1\nchecks:\n  nightly:\n    type: heartbeat\n    name: Nightly job\n    checkFrequency: 60\n');

    const dry = await runCli(['apply', text, '--account', 'admin@localhost', '--prune', '--dry-run', '--detailed-exitcode'], dataDir);
    assert.equal(dry.status, 3, dry.stderr);

    const run = await runCli(['apply', text, '--account', 'admin@localhost', '--prune'], dataDir);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^- delete checks\.made-in-the-dashboard\n\+ create checks\.nightly \(.*\)\nPlan: 1 to create, 0 to update, 1 to delete, 0 unchanged\.\nApplied\.\n$/);
    assert.equal((await api('GET', `/v1/public/checks/${outside}`)).status, 404, 'the running server dropped the check');
    const listed = (await api('GET', '/v1/public/checks')).body.data as Array<{ name: string }>;
    assert.deepEqual(listed.map((c) => c.name), ['Nightly job']);

    // The key the CLI made for the hand-off is revoked once the server answered.
    const keysAfter = (await api('GET', '/v1/public/keys')).body.data as Array<{ id: string; name: string | null; revokedAt?: string | null; status?: string }>;
    const made2 = keysAfter.filter((k) => !keysBefore.some((b) => b.id === k.id));
    for (const k of made2) assert.notEqual(k.status ?? (k.revokedAt ? 'revoked' : 'active'), 'active', JSON.stringify(k));

    const again = await runCli(['apply', text, '--account', 'admin@localhost', '--prune', '--json'], dataDir);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(JSON.parse(again.stdout).applied, false, 'a second apply changes nothing');
  });

  test('a file the plan refuses exits 2 beside the server too, and nothing changes', TIMEOUT, async () => {
    const text = file('bad.yaml', 'version: 1\nchecks:\n  nightly:\n    type: heartbeat\n    checkFrequncy: 60\n');
    const run = await runCli(['apply', text, '--account', 'admin@localhost', '--prune'], dataDir);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /did you mean checkFrequency\?/);
    assert.equal(((await api('GET', '/v1/public/checks')).body.data as unknown[]).length, 1);
  });
});
