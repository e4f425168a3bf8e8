import { execFileSync } from 'node:child_process';
import { pino } from 'pino';
import { seedChecks } from './lib/seed.js';
import { fmt, headline, percentOf, runIfMain, table, tempDir } from './lib/harness.js';
import { SERVER_CORE } from './lib/wrk.js';
import { openDatabase } from '../src/store/db.js';
import { BatchWriter } from '../src/store/batch-writer.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { openPgStore, type PgStore } from '../src/store/postgres/index.js';
import { PgDb } from '../src/store/postgres/db.js';
import { copySqliteToPostgres } from '../src/store/postgres/copy-sqlite.js';
import type { Check } from '../src/domain/records.js';
import type { Store } from '../src/store/store.js';
import type { WriteRecord } from '../src/store/writes.js';
import { startPostgres } from '../test/helpers/postgres.js';

/**
 * Issue 26 item 6, the store's share: the PostgreSQL store beside the SQLite store in one run,
 * on the same data (SQLite seeded through the services, then copied with `vigil store migrate`'s
 * copier). Durable heartbeat pings: each waits for the group commit that stores it (the batched
 * writer, as ingest does), 200 in flight, every acknowledged ping counted against the rows
 * stored afterwards; then a page of 100 checks (checks.list) and one check (checks.byId).
 *
 * Thread budget (2 cores): this process (the store's caller: the batched writer, the driver of
 * the load and, for SQLite, the database itself) is pinned to core SERVER_CORE with taskset;
 * PostgreSQL (postmaster and every backend) to the other core. PostgreSQL is durable as
 * shipped (fsync on, synchronous_commit on); SQLite runs as `vigil serve` runs it (WAL,
 * synchronous NORMAL: a commit survives a crash of the process).
 */
const CHECKS = Number(process.env.BENCH_HEARTBEAT_CHECKS ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12) / 3;
const IN_FLIGHT = 200;
const READ_LANES = 8;
const PG_CORE = SERVER_CORE === '0' ? '1' : '0';

interface Figures {
  pingsPerSec: number;
  acknowledged: number;
  stored: number;
  listPerSec: number;
  getPerSec: number;
}

function pingRecord(c: Check, at: number): WriteRecord {
  return {
    kind: 'observation', checkId: c.id, checkSeq: c.seq, at,
    result: { checkSeq: c.seq, at, kind: 'ping', status: 'up', statusCode: null, responseTime: 12, timing: null, error: null, region: null, snippet: null, meta: { duration: 12 } },
    event: null, sample: { ok: true, responseTime: 12, timing: null }, sampleAt: at,
    runtime: {
      status: 'up', consecutiveFailures: 0, degraded: false, lastError: null, lastStatusChange: c.createdAt, probesTotal: 1, probesUp: 1,
      ssl: null, regions: null, errorAlerted: false, sslAlerts: null, sync: { lastChecked: at, lastResponseTime: 12, lastStatusCode: null }, statusChanged: false,
    },
    statusChange: null, verifyStatus: null, endMaintenance: null, domain: null, domainMemory: null,
  };
}

/** Durable pings for `seconds`, IN_FLIGHT at once, round-robin over the checks. */
async function pings(store: Pick<Store, 'applyWrites'>, checks: Check[], seconds: number, parallel: number): Promise<{ perSec: number; acknowledged: number }> {
  const writer = new BatchWriter(store, pino({ level: 'silent' }), 5000, 250, parallel);
  const started = performance.now();
  const until = started + seconds * 1000;
  let acknowledged = 0;
  let i = 0;
  const lane = async () => {
    while (performance.now() < until) {
      await writer.commit(pingRecord(checks[i++ % checks.length]!, Date.now()));
      acknowledged++;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  const perSec = acknowledged / ((performance.now() - started) / 1000);
  await writer.drained();
  writer.close();
  return { perSec, acknowledged };
}

/** How many times a read answers per second, READ_LANES awaiting at once. */
async function reads(read: (i: number) => unknown, seconds: number): Promise<number> {
  const started = performance.now();
  const until = started + seconds * 1000;
  let done = 0;
  const lane = async () => {
    while (performance.now() < until) {
      await read(done++);
    }
  };
  await Promise.all(Array.from({ length: READ_LANES }, lane));
  return done / ((performance.now() - started) / 1000);
}

export async function runPostgresBench(): Promise<{ sqlite: Figures; postgres: Figures }> {
  execFileSync('taskset', ['-a', '-cp', SERVER_CORE, String(process.pid)], { stdio: 'ignore' });
  const cluster = await startPostgres({ durable: true, cpu: PG_CORE });
  const dir = tempDir('postgres');
  try {
    const { ids } = await seedChecks(dir.path, CHECKS, () => ({ type: 'heartbeat', checkFrequency: 60 }));
    const url = await cluster.createDatabase();
    const source = openDatabase(dir.path);
    const copier = new PgDb(url, { max: 2 });
    await copySqliteToPostgres(source, dir.path, copier);
    await copier.close();
    source.close();

    const sqlite = openSqliteStore(dir.path, { checkpointInBackground: true });
    const pg: PgStore = await openPgStore(url, { pollMs: 0, maxConnections: 16 });
    try {
      const checks: Check[] = [];
      for (const id of ids) checks.push((await sqlite.checks.byId(id))!);
      const accountId = checks[0]!.accountId;
      const query = { accountId, access: null };
      const page = (i: number) => ({ limit: 100, offset: (i * 100) % Math.max(1, CHECKS - 100), afterSeq: null });
      const measure = async (store: Store | PgStore, count: () => Promise<number>): Promise<Figures> => {
        const parallel = store.parallelBatches ?? 1;
        await pings(store, checks, 1, parallel); // warm-up
        const before = await count();
        const ping = await pings(store, checks, SECONDS, parallel);
        const stored = (await count()) - before;
        const listPerSec = await reads((i) => store.checks.list(query, page(i)), SECONDS);
        const getPerSec = await reads((i) => store.checks.byId(ids[i % ids.length]!), SECONDS);
        return { pingsPerSec: ping.perSec, acknowledged: ping.acknowledged, stored, listPerSec, getPerSec };
      };
      const sqliteFigures = await measure(sqlite, async () => sqlite.db.prepare("SELECT count(*) FROM history WHERE kind = 'ping'").pluck().get() as number);
      const pgFigures = await measure(pg, async () => (await pg.db.one<{ n: number }>("SELECT count(*) AS n FROM history WHERE kind = 'ping'"))!.n);
      return { sqlite: sqliteFigures, postgres: pgFigures };
    } finally {
      await pg.close();
      await sqlite.close();
    }
  } finally {
    dir.remove();
    await cluster.stop();
  }
}

export function postgresMarkdown(r: { sqlite: Figures; postgres: Figures }): string {
  const lost = (f: Figures) => Math.max(0, f.acknowledged - f.stored);
  const row = (name: string, f: Figures, target: string) => [
    name, fmt(f.pingsPerSec), percentOf(f.pingsPerSec, r.sqlite.pingsPerSec), target, fmt(f.acknowledged), fmt(lost(f)), fmt(f.listPerSec), fmt(f.getPerSec),
  ];
  return [
    `### The PostgreSQL store beside SQLite (store level, ${fmt(CHECKS)} heartbeat checks; this process on core ${SERVER_CORE}, PostgreSQL 15 on core ${PG_CORE}; ${fmt(SECONDS)} s per figure)`,
    '',
    table(['store', 'durable pings/s', 'of SQLite', 'target', 'acknowledged', 'lost', 'list (100 checks)/s', 'get/s'], [
      row('SQLite (WAL, synchronous NORMAL)', r.sqlite, '-'),
      row('PostgreSQL (fsync, synchronous_commit on)', r.postgres, '≥ 50%, 0 lost'),
    ]),
    '',
    `Pings go through the batched writer (${IN_FLIGHT} waiting at once, each answered after the commit that stores it; on PostgreSQL up to 8 batches in flight, each check's in order); lost = acknowledged and not stored. Reads: ${READ_LANES} awaiting at once.`,
    headline({
      measure: `Durable heartbeat pings on the PostgreSQL store (store level; ${fmt(lost(r.postgres))} lost)`,
      figure: `${fmt(r.postgres.pingsPerSec)} pings/s`,
      baseline: `SQLite store ${fmt(r.sqlite.pingsPerSec)} pings/s`,
      ratio: percentOf(r.postgres.pingsPerSec, r.sqlite.pingsPerSec),
      target: '≥ 50%',
    }),
  ].join('\n');
}

runIfMain(import.meta.url, async () => postgresMarkdown(await runPostgresBench()));
