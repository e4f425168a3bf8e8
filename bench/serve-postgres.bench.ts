import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { API_CHECKS, listPaths, seedApiChecks } from './api.bench.js';
import { HEARTBEAT_CHECKS, PING_BODY, seedHeartbeatChecks, storedPings } from './heartbeat.bench.js';
import { CLI, fmt, headline, percentOf, runIfMain, shuffled, table, tempDir } from './lib/harness.js';
import { acknowledged, CONNECTIONS, meanCpuPerRequest, roundCells, sideBySide, type ServeSpec } from './lib/side-by-side.js';
import { LOAD_CORE, SERVER_CORE, type AlternatingResult } from './lib/wrk.js';
import { openDatabase } from '../src/store/db.js';
import { PgDb } from '../src/store/postgres/db.js';
import { copySqliteToPostgres } from '../src/store/postgres/copy-sqlite.js';
import { startPostgres, type PgCluster } from '../test/helpers/postgres.js';

/**
 * Issue 26 item 6, as a user meets it: `vigil serve` on PostgreSQL beside `vigil serve` on
 * SQLite, in one run, on the same data (seeded through the services in SQLite, copied into
 * PostgreSQL by `vigil store migrate`'s copier):
 * - durable heartbeat pings (1,000 heartbeat checks, POST with metadata, each answered after the
 *   commit that stores it): PostgreSQL at >= 50% of SQLite's rate, 0 lost (acknowledged against
 *   ping rows stored, on each store);
 * - GET /v1/public/checks (every page, three sizes, filters) and GET /v1/public/checks/{id}
 *   (every id) with 10,000 checks, beside SQLite's.
 * Thread budget (2 cores): each server (every thread) held to core SERVER_CORE with taskset;
 * wrk (one thread, 200 connections) and PostgreSQL 15 (postmaster and every backend) on the
 * other, as the store-level bench pins it. PostgreSQL runs durable as shipped (fsync and
 * synchronous_commit on), SQLite as `vigil serve` runs it (WAL, synchronous NORMAL). Both
 * servers are up side by side and wrk rounds take turns between them.
 */
const ROUNDS = Number(process.env.BENCH_SERVE_PG_ROUNDS ?? 4);
const ROUND_SECONDS = Number(process.env.BENCH_SERVE_PG_ROUND_SECONDS ?? 4);
const WARMUP_SECONDS = 3;
const PG_CORE = LOAD_CORE;
const SETTINGS = { probes: { threads: 1 }, rateLimits: { perKeyPerMinute: 1e9 } };
const PING_TARGET = 50;

interface Measure {
  name: string;
  pair: AlternatingResult;
}

interface ServePgReport {
  list: Measure;
  get: Measure;
  ping: Measure & { acknowledged: { sqlite: number; postgres: number }; stored: { sqlite: number; postgres: number } };
}

const progress = (line: string) => process.stderr.write(`serve-postgres: ${line}\n`);

/** A PostgreSQL database holding what the SQLite data directory `seeded` holds. */
async function copied(cluster: PgCluster, seeded: string): Promise<string> {
  const url = await cluster.createDatabase();
  const source = openDatabase(seeded);
  const target = new PgDb(url, { max: 2 });
  try {
    await copySqliteToPostgres(source, seeded, target);
  } finally {
    await target.close();
    source.close();
  }
  return url;
}

/** The two servers of one measure: SQLite on a copy of `seeded`, PostgreSQL on `url`. */
function specs(seeded: string, url: string, scratch: string, tag: string): { sqlite: ServeSpec; postgres: ServeSpec } {
  const sqliteDir = join(scratch, `${tag}-sqlite`);
  cpSync(seeded, sqliteDir, { recursive: true });
  const pgDir = join(scratch, `${tag}-postgres`);
  mkdirSync(pgDir);
  return {
    sqlite: { cli: CLI, dataDir: sqliteDir, config: SETTINGS },
    postgres: { cli: CLI, dataDir: pgDir, config: { ...SETTINGS, store: { url }, instance: { name: 'bench-postgres' } } },
  };
}

export async function runServePostgres(): Promise<ServePgReport> {
  const cluster = await startPostgres({ durable: true, cpu: PG_CORE });
  const scratch = tempDir('serve-pg');
  try {
    const rounds = { rounds: ROUNDS, roundSeconds: ROUND_SECONDS, warmupSeconds: WARMUP_SECONDS, dir: scratch.path };
    const api = join(scratch.path, 'api-seed');
    mkdirSync(api);
    const { key, ids } = await seedApiChecks(api);
    const apiUrl = await copied(cluster, api);
    const headers = { 'x-api-key': key };
    progress(`list: ${ROUNDS} rounds of each store`);
    const listServers = specs(api, apiUrl, scratch.path, 'list');
    const list = { name: 'GET /v1/public/checks (pages, sizes, filters)', pair: await sideBySide(listServers.sqlite, listServers.postgres, { paths: listPaths(), headers }, rounds) };
    progress(`get: ${ROUNDS} rounds of each store`);
    const getServers = specs(api, apiUrl, scratch.path, 'get');
    const idPaths = shuffled(ids.map((id) => `/v1/public/checks/${id}`), 11);
    const get = { name: 'GET /v1/public/checks/{id} (every id)', pair: await sideBySide(getServers.sqlite, getServers.postgres, { paths: idPaths, headers }, rounds) };

    const beats = join(scratch.path, 'heartbeat-seed');
    mkdirSync(beats);
    const pingPaths = await seedHeartbeatChecks(beats);
    const beatsUrl = await copied(cluster, beats);
    const before = await pgPings(cluster, beatsUrl);
    progress(`durable pings: ${ROUNDS} rounds of each store`);
    const pingServers = specs(beats, beatsUrl, scratch.path, 'ping');
    const pair = await sideBySide(pingServers.sqlite, pingServers.postgres, { paths: pingPaths, method: 'POST', body: PING_BODY }, rounds);
    const ping = {
      name: 'durable heartbeat ping (answered after its commit)',
      pair,
      acknowledged: { sqlite: acknowledged([pair.baselineWarmup, ...pair.baselineRounds]), postgres: acknowledged([pair.subjectWarmup, ...pair.subjectRounds]) },
      stored: { sqlite: await storedPings(pingServers.sqlite.dataDir), postgres: (await pgPings(cluster, beatsUrl)) - before },
    };
    return { list, get, ping };
  } finally {
    scratch.remove();
    await cluster.stop();
  }
}

async function pgPings(cluster: PgCluster, url: string): Promise<number> {
  const [row] = await cluster.sql<{ n: number }>(new URL(url).pathname.slice(1), "SELECT count(*)::int AS n FROM history WHERE kind = 'ping'");
  return row!.n;
}

export function servePostgresMarkdown(r: ServePgReport): string {
  const lost = (store: 'sqlite' | 'postgres') => Math.max(0, r.ping.acknowledged[store] - r.ping.stored[store]);
  const rows: Array<Array<string | number>> = [];
  const perRound: Array<Array<string | number>> = [];
  for (const m of [r.ping, r.list, r.get]) {
    const { baseline: sqlite, subject: postgres } = m.pair;
    const target = m === r.ping ? `≥ ${PING_TARGET}%, 0 lost` : '-';
    rows.push([m.name, fmt(sqlite.requestsPerSec), fmt(postgres.requestsPerSec), percentOf(postgres.requestsPerSec, sqlite.requestsPerSec), target,
      `${fmt(meanCpuPerRequest(m.pair.baselineRounds), 1)} µs`, `${fmt(meanCpuPerRequest(m.pair.subjectRounds), 1)} µs`,
      `${fmt(sqlite.non2xx + sqlite.errors)} / ${fmt(postgres.non2xx + postgres.errors)}`]);
    perRound.push([m.name, 'SQLite', ...roundCells(m.pair.baselineRounds)]);
    perRound.push([m.name, 'PostgreSQL', ...roundCells(m.pair.subjectRounds)]);
  }
  const { baseline: sqlitePing, subject: pgPing } = r.ping.pair;
  return [
    `### \`vigil serve\` on PostgreSQL beside SQLite (${fmt(HEARTBEAT_CHECKS)} heartbeat checks; ${fmt(API_CHECKS)} checks for list and get; server on core ${SERVER_CORE}, wrk and PostgreSQL 15 on core ${PG_CORE}; ${CONNECTIONS} connections; a ${WARMUP_SECONDS} s warm-up of each, then ${ROUNDS} rounds of ${fmt(ROUND_SECONDS)} s taking turns)`,
    '',
    table(['measure (mean of the rounds)', 'SQLite req/s', 'PostgreSQL req/s', 'PostgreSQL of SQLite', 'target', 'server CPU per request, SQLite', 'PostgreSQL', 'non-2xx and socket errors (SQLite / PostgreSQL)'], rows),
    '',
    `Durable pings acknowledged (2xx, warm-up included) and stored: SQLite ${fmt(r.ping.acknowledged.sqlite)} and ${fmt(r.ping.stored.sqlite)} (lost ${fmt(lost('sqlite'))}); ` +
      `PostgreSQL ${fmt(r.ping.acknowledged.postgres)} and ${fmt(r.ping.stored.postgres)} (lost ${fmt(lost('postgres'))}). PostgreSQL runs with fsync and synchronous_commit on; SQLite in WAL, synchronous NORMAL.`,
    '',
    'Each round, as measured (rate and server CPU per request):',
    '',
    table(['measure', 'store', ...Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1}`)], perRound),
    headline({
      measure: `Durable heartbeat pings through \`vigil serve\` on PostgreSQL, ${fmt(HEARTBEAT_CHECKS)} checks (${fmt(lost('postgres'))} lost)`,
      figure: `${fmt(pgPing.requestsPerSec)} req/s`,
      baseline: `\`vigil serve\` on SQLite ${fmt(sqlitePing.requestsPerSec)} req/s`,
      ratio: percentOf(pgPing.requestsPerSec, sqlitePing.requestsPerSec),
      target: `≥ ${PING_TARGET}%`,
    }),
  ].join('\n');
}

runIfMain(import.meta.url, async () => servePostgresMarkdown(await runServePostgres()));
