import { fileURLToPath } from 'node:url';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seedChecks } from './lib/seed.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { CLI, fmt, freePort, load, runIfMain, spawnUntil, stop, table, tempDir } from './lib/harness.js';

/**
 * Issue 2 target: with 10,000 checks in the database, GET /v1/public/checks?limit=25 at
 * >= 25% and GET /v1/public/checks/{id} at >= 50% of a uWS hello-world's requests per second.
 */
const CHECKS = 10_000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;
const HELLO = fileURLToPath(new URL('./fixtures/hello-uws.js', import.meta.url));

function seed(dataDir: string): { key: string; someId: string } {
  // Paused: this bench measures the API, not probes to hosts that do not exist.
  const { key, ids } = seedChecks(dataDir, CHECKS, (i) => ({ url: `https://site-${i}.example.com/health`, name: `Site ${i}`, checkFrequency: 5 }));
  const store = openSqliteStore(dataDir);
  store.transaction(() => ids.forEach((id) => store.checks.setDisabled(id, true, 'bench', Date.now())));
  store.close();
  return { key, someId: ids[CHECKS / 2]! };
}

export async function runApiBench(): Promise<string> {
  const dir = tempDir('api');
  try {
    const { key, someId } = seed(dir.path);
    const configFile = join(dir.path, 'bench.json');
    writeFileSync(configFile, JSON.stringify({ rateLimits: { perKeyPerMinute: 1e9 }, logLevel: 'info' }));

    const helloPort = await freePort();
    const hello = await spawnUntil([HELLO], { PORT: String(helloPort) }, /listening/);
    const base = await load(`http://127.0.0.1:${helloPort}/`, { connections: CONNECTIONS, seconds: SECONDS, serverPid: hello.pid });
    await stop(hello);

    const port = await freePort();
    const vigil = await spawnUntil([CLI, 'serve', '--config', configFile], { VIGIL_DATA_DIR: dir.path, VIGIL_PORT: String(port) }, /listening on/);
    const headers = { 'x-api-key': key };
    const list = await load(`http://127.0.0.1:${port}/v1/public/checks?limit=25`, { connections: CONNECTIONS, seconds: SECONDS, headers, serverPid: vigil.pid });
    const get = await load(`http://127.0.0.1:${port}/v1/public/checks/${someId}`, { connections: CONNECTIONS, seconds: SECONDS, headers, serverPid: vigil.pid });
    await stop(vigil);

    const row = (name: string, r: typeof base, target: string) => [
      name, fmt(r.requestsPerSec), fmt(r.p50Ms, 1), fmt(r.p99Ms, 1), `${fmt((r.requestsPerSec / base.requestsPerSec) * 100, 1)}%`, target,
      `${fmt(r.serverCpuPct ?? 0)}%`, r.non2xx + r.errors,
    ];
    return [
      `### Checks API (${fmt(CHECKS)} checks in the database, ${CONNECTIONS} connections, ${SECONDS} s each)`,
      '',
      table(['endpoint', 'req/s', 'p50 ms', 'p99 ms', 'of baseline', 'target', 'server CPU', 'non-2xx/errors'], [
        row('uWS hello world (baseline)', base, '-'),
        row('GET /v1/public/checks?limit=25', list, '>= 25%'),
        row('GET /v1/public/checks/{id}', get, '>= 50%'),
      ]),
    ].join('\n');
  } finally {
    dir.remove();
  }
}

runIfMain(import.meta.url, runApiBench);
