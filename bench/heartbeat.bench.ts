import { fileURLToPath } from 'node:url';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { THIS_BUILD, type SeedingBuild } from './lib/seed.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { CLI, fmt, freePort, headline, LOAD_COLUMNS, loadRow, percentOf, runIfMain, shuffled, spawnUntil, stop, table, tempDir, type LoadResult } from './lib/harness.js';
import { SERVER_CORE, wrkAlternating } from './lib/wrk.js';

/**
 * Issue 13 target: durable ping ingest (answered only after the group commit) at >= 25% of a
 * uWS hello world's requests per second, server on one core and wrk on the other, 200
 * connections, POSTs with metadata spread over every heartbeat check, and nothing lost:
 * every acknowledged ping is a stored row.
 */
const ROUNDS = 3;
const ROUND_SECONDS = Number(process.env.BENCH_SECONDS ?? 12) / ROUNDS;
const WARMUP_SECONDS = 3;
export const HEARTBEAT_CHECKS = Number(process.env.BENCH_HEARTBEAT_CHECKS ?? 1000);
const CONNECTIONS = 200;
export const PING_BODY = '{"status":"ok","duration":12}';
const HELLO = fileURLToPath(new URL('./fixtures/hello-uws.js', import.meta.url));

/** HEARTBEAT_CHECKS heartbeat checks in `dataDir`; their ping paths, shuffled. */
export async function seedHeartbeatChecks(dataDir: string, build: SeedingBuild = THIS_BUILD): Promise<string[]> {
  const { ids } = await build.seedChecks(dataDir, HEARTBEAT_CHECKS, () => ({ type: 'heartbeat', checkFrequency: 60 }));
  const store = build.openSqliteStore(dataDir);
  const paths: string[] = [];
  for (const id of ids) paths.push(`/heartbeat/${(await store.checks.byId(id))!.heartbeatToken}`);
  await store.close();
  return shuffled(paths, 3);
}

/** Ping rows in a data directory's history. */
export async function storedPings(dataDir: string): Promise<number> {
  const store = openSqliteStore(dataDir);
  try {
    return store.db.prepare("SELECT count(*) FROM history WHERE kind = 'ping'").pluck().get() as number;
  } finally {
    await store.close();
  }
}

export interface HeartbeatBenchReport {
  checks: number;
  rounds: number;
  roundSeconds: number;
  connections: number;
  baseline: LoadResult;
  ping: LoadResult;
  acknowledged: number;
  stored: number;
}

export async function runHeartbeatBench(): Promise<HeartbeatBenchReport> {
  const dir = tempDir('heartbeat');
  try {
    const paths = await seedHeartbeatChecks(dir.path);
    const configFile = join(dir.path, 'bench.json');
    writeFileSync(configFile, JSON.stringify({ logLevel: 'info' }));
    const load = { connections: CONNECTIONS, paths, method: 'POST', body: PING_BODY, dir: dir.path, rounds: ROUNDS, roundSeconds: ROUND_SECONDS, warmupSeconds: WARMUP_SECONDS };
    const helloPort = await freePort();
    const hello = await spawnUntil([HELLO], { PORT: String(helloPort) }, /listening/, 30_000, SERVER_CORE);
    const port = await freePort();
    const vigil = await spawnUntil([CLI, 'serve', '--config', configFile], { VIGIL_DATA_DIR: dir.path, VIGIL_PORT: String(port) }, /listening on/, 30_000, SERVER_CORE);
    try {
      const { baseline, subject: ping, subjectWarmup } = await wrkAlternating(
        { url: `http://127.0.0.1:${helloPort}`, pid: hello.pid! }, { url: `http://127.0.0.1:${port}`, pid: vigil.pid! }, load,
      );
      const acknowledged = ping.total - ping.non2xx + subjectWarmup.total - subjectWarmup.non2xx;
      await stop(vigil);
      return { checks: HEARTBEAT_CHECKS, rounds: ROUNDS, roundSeconds: ROUND_SECONDS, connections: CONNECTIONS, baseline, ping, acknowledged, stored: await storedPings(dir.path) };
    } finally {
      await stop(hello);
      await stop(vigil);
    }
  } finally {
    dir.remove();
  }
}

export function heartbeatMarkdown(h: HeartbeatBenchReport): string {
  return [
    `### Heartbeat ingest (${fmt(h.checks)} heartbeat checks, POST with metadata; server on core ${SERVER_CORE}, wrk on the other, ${h.connections} connections; after a ${WARMUP_SECONDS} s warm-up of each, ${h.rounds} rounds of ${fmt(h.roundSeconds)} s taking turns with the baseline)`,
    '',
    table(LOAD_COLUMNS, [
      loadRow('uWS hello world, same requests (baseline)', h.baseline, h.baseline, '-'),
      loadRow('durable ping (answered after its group commit)', h.ping, h.baseline, '≥ 25%, nothing lost'),
    ]),
    '',
    `Pings acknowledged (2xx, warm-up included): ${fmt(h.acknowledged)}; ping rows stored: ${fmt(h.stored)}; lost: ${fmt(Math.max(0, h.acknowledged - h.stored))}.`,
    headline({
      measure: `Durable heartbeat pings, ${fmt(h.checks)} checks (answered after their commit; ${fmt(Math.max(0, h.acknowledged - h.stored))} lost)`,
      figure: `${fmt(h.ping.requestsPerSec)} req/s`,
      baseline: `uWS hello world ${fmt(h.baseline.requestsPerSec)} req/s`,
      ratio: percentOf(h.ping.requestsPerSec, h.baseline.requestsPerSec),
      target: '≥ 25%',
    }),
  ].join('\n');
}

runIfMain(import.meta.url, async () => heartbeatMarkdown(await runHeartbeatBench()));
