import { fileURLToPath } from 'node:url';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { THIS_BUILD, type SeedingBuild } from './lib/seed.js';
import { CLI, fmt, freePort, headline, LOAD_COLUMNS, loadRow, percentOf, runIfMain, shuffled, spawnUntil, stop, table, tempDir, type LoadResult } from './lib/harness.js';
import { SERVER_CORE, wrkRequests } from './lib/wrk.js';

/**
 * Issue 13 targets, with 10,000 checks in the database: GET /v1/public/checks (many pages,
 * sizes and filters) at >= 30% and GET /v1/public/checks/{id} (every id) at >= 50% of a uWS
 * hello world's requests per second. Server on one core (taskset), wrk on the other, 200
 * connections; the baseline gets the same request sequence on the same core.
 */
export const API_CHECKS = Number(process.env.BENCH_API_CHECKS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 200;
const HELLO = fileURLToPath(new URL('./fixtures/hello-uws.js', import.meta.url));

/** API_CHECKS paused HTTP checks in `dataDir` (this bench measures the API, not probes); the API key and the ids. */
export async function seedApiChecks(dataDir: string, build: SeedingBuild = THIS_BUILD): Promise<{ key: string; ids: string[] }> {
  const { key, ids } = await build.seedChecks(dataDir, API_CHECKS, (i) => ({ url: `https://site-${i}.example.com/health`, name: `Site ${i}`, checkFrequency: 5 }));
  const store = build.openSqliteStore(dataDir);
  for (const id of ids) await store.checks.setDisabled(id, true, 'bench', Date.now());
  await store.close();
  return { key, ids };
}

/** Every page at three page sizes, with and without a status filter, some with the total. */
export function listPaths(): string[] {
  const paths: string[] = [];
  for (const limit of [10, 25, 100]) {
    for (let page = 1; page <= Math.ceil(API_CHECKS / limit); page++) {
      paths.push(`/v1/public/checks?limit=${limit}&page=${page}`);
      paths.push(`/v1/public/checks?limit=${limit}&page=${page}&status=paused`);
      if (page % 10 === 1) paths.push(`/v1/public/checks?limit=${limit}&page=${page}&includeTotal=true`);
    }
  }
  for (const status of ['up', 'down']) paths.push(`/v1/public/checks?status=${status}`);
  return shuffled(paths, 7);
}

export interface ApiBenchReport {
  checks: number;
  seconds: number;
  connections: number;
  rows: Array<{ name: string; target: number | null; distinct: number; r: LoadResult; baseline: LoadResult }>;
}

export async function runApiBench(): Promise<ApiBenchReport> {
  const dir = tempDir('api');
  try {
    const { key, ids } = await seedApiChecks(dir.path);
    const configFile = join(dir.path, 'bench.json');
    writeFileSync(configFile, JSON.stringify({ rateLimits: { perKeyPerMinute: 1e9 }, logLevel: 'info' }));
    const headers = { 'x-api-key': key };
    const runs = [
      { name: 'GET /v1/public/checks (pages, sizes, filters)', target: 30, paths: listPaths() },
      { name: 'GET /v1/public/checks/{id} (every id)', target: 50, paths: shuffled(ids.map((id) => `/v1/public/checks/${id}`), 11) },
    ];
    const rows: ApiBenchReport['rows'] = [];
    for (const run of runs) {
      // The baseline answers the very same requests (any path), under the same pinning.
      const helloPort = await freePort();
      const hello = await spawnUntil([HELLO], { PORT: String(helloPort) }, /listening/, 30_000, SERVER_CORE);
      const baseline = await wrkRequests(`http://127.0.0.1:${helloPort}`, { connections: CONNECTIONS, seconds: SECONDS, paths: run.paths, headers, serverPid: hello.pid, dir: dir.path });
      await stop(hello);
      const port = await freePort();
      const vigil = await spawnUntil([CLI, 'serve', '--config', configFile], { VIGIL_DATA_DIR: dir.path, VIGIL_PORT: String(port) }, /listening on/, 30_000, SERVER_CORE);
      const r = await wrkRequests(`http://127.0.0.1:${port}`, { connections: CONNECTIONS, seconds: SECONDS, paths: run.paths, headers, serverPid: vigil.pid, dir: dir.path });
      await stop(vigil);
      rows.push({ name: run.name, target: run.target, distinct: run.paths.length, r, baseline });
    }
    return { checks: API_CHECKS, seconds: SECONDS, connections: CONNECTIONS, rows };
  } finally {
    dir.remove();
  }
}

export function apiMarkdown(a: ApiBenchReport): string {
  const rows: Array<Array<string | number>> = [];
  const headlines: string[] = [];
  for (const { name, target, distinct, r, baseline } of a.rows) {
    const goal = target === null ? '-' : `≥ ${target}%`;
    rows.push(loadRow(`uWS hello world, same ${fmt(distinct)} requests (baseline)`, baseline, baseline, '-'));
    rows.push(loadRow(`${name}: ${fmt(distinct)} distinct URLs`, r, baseline, goal));
    headlines.push(headline({
      measure: `${name}, ${fmt(a.checks)} checks, ${fmt(distinct)} distinct URLs`,
      figure: `${fmt(r.requestsPerSec)} req/s`,
      baseline: `uWS hello world ${fmt(baseline.requestsPerSec)} req/s`,
      ratio: percentOf(r.requestsPerSec, baseline.requestsPerSec),
      target: goal,
    }));
  }
  return [
    `### Checks API (${fmt(a.checks)} checks in the database; server on core ${SERVER_CORE}, wrk on the other, ${a.connections} connections, ${a.seconds} s each)`,
    '',
    table(LOAD_COLUMNS, rows),
    ...headlines,
  ].join('\n');
}

runIfMain(import.meta.url, async () => apiMarkdown(await runApiBench()));
