import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { waitFor } from '../helpers/fixtures/probe-task.js';

/** Heartbeat pings acknowledged by the real server process survive kill -9 (spec: a 200 means written). */

describe('durability', () => {
  test('pings acknowledged before kill -9 are all in history after restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-crash-'));
    const cli = fileURLToPath(new URL('../../src/cli.js', import.meta.url));
    const env = { ...process.env, VIGIL_DATA_DIR: dataDir, VIGIL_PORT: '0', VIGIL_CONFIG: '' };
    const child = spawn(process.execPath, [cli, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      const started = await new Promise<{ url: string; key: string }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 20_000);
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          const url = /listening on (http:\/\/[\d.:]+)/.exec(out)?.[1];
          const key = /vigil_live_[0-9a-f]{64}/.exec(out)?.[0];
          if (url && key) {
            clearTimeout(timer);
            resolve({ url, key });
          }
        });
      });
      const headers = { 'x-api-key': started.key, 'idempotency-key': 'crash-1' };
      const created = await fetch(`${started.url}/v1/public/checks`, { method: 'POST', headers, body: JSON.stringify({ type: 'heartbeat' }) });
      const { data } = (await created.json()) as { data: { id: string } };
      const check = (await (await fetch(`${started.url}/v1/public/checks/${data.id}`, { headers })).json()) as { data: { url: string } };
      const path = new URL(check.data.url).pathname;
      let acknowledged = 0;
      const sender = async () => {
        for (;;) {
          const res = await fetch(started.url + path, { method: 'POST', body: '{"message":"tick"}' }).catch(() => null);
          if (!res || res.status !== 200) return;
          await res.arrayBuffer();
          acknowledged++;
        }
      };
      const senders = Array.from({ length: 8 }, sender);
      // Killed mid-stream: once a few hundred pings are acknowledged, with eight more in flight.
      await waitFor(() => acknowledged >= 300, '300 acknowledged pings', 30_000);
      child.kill('SIGKILL');
      await Promise.all(senders);

      const again = await startServer({}, undefined, { dispatcher: new ScriptedDispatcher(), autoTick: false, dataDir });
      try {
        const seq = (await again.app.store.checks.byId(data.id))!.seq;
        const stored = (await again.app.store.history.forCheck(seq, 1_000_000)).filter((h) => h.kind === 'ping').length;
        assert.ok(stored >= acknowledged, `stored ${stored} < acknowledged ${acknowledged}`);
      } finally {
        await again.stop();
      }
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
