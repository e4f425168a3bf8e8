import type { Tier } from '../../domain/plans.js';
import { DAY_MS } from '../../domain/cover.js';
import type { OpenBuckets, RetentionStore } from '../rollup-store.js';
import type { PgDb } from './db.js';
import type { Async } from './types.js';

/**
 * Time partitions of history and the rollups. History and minute rollups get one partition per
 * UTC day, hour and day rollups one per UTC month; partitions are created a few days (months)
 * ahead by the store's own job, and whatever lands outside them (an old row copied from SQLite,
 * a test's fixed dates) goes to the DEFAULT partition, whose rows move into a partition created
 * later for their range. Retention drops a whole day partition once it is older than every
 * plan's retention (after raising the horizons of the checks it held, in the same transaction);
 * rows of plans with shorter retention in younger partitions are deleted row by row (pruneRaw).
 */

type Span = 'day' | 'month';
const TABLES: Array<[table: string, span: Span]> = [
  ['history', 'day'],
  ['rollup_minute', 'day'],
  ['rollup_hour', 'month'],
  ['rollup_day', 'month'],
];
/** pg_advisory_xact_lock key: one central at a time changes partitions. */
const PARTITION_LOCK = '7320537162440011778';
const DAYS_AHEAD = 3;

const pad = (n: number) => String(n).padStart(2, '0');

/** The partition holding `at`: its name suffix and [from, to). */
function partitionOf(span: Span, at: number): { suffix: string; from: number; to: number } {
  const d = new Date(at);
  if (span === 'day') {
    const from = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    return { suffix: `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`, from, to: from + DAY_MS };
  }
  const from = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  return { suffix: `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}`, from, to: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

/** Creates the partitions of yesterday to a few days ahead (this month and the next). */
export async function ensurePartitions(db: PgDb, now: number): Promise<number> {
  let created = 0;
  await db.transaction(async () => {
    await db.run(`SELECT pg_advisory_xact_lock(${PARTITION_LOCK})`);
    for (const [table, span] of TABLES) {
      const starts = span === 'day'
        ? Array.from({ length: DAYS_AHEAD + 2 }, (_, i) => now + (i - 1) * DAY_MS)
        : [now, partitionOf('month', now).to];
      for (const at of starts) if (await createPartition(db, table, partitionOf(span, at))) created++;
    }
  });
  return created;
}

async function createPartition(db: PgDb, table: string, p: { suffix: string; from: number; to: number }): Promise<boolean> {
  const name = `${table}_p${p.suffix}`;
  const exists = await db.one<{ r: string | null }>('SELECT to_regclass($1)::text AS r', [name]);
  if (exists?.r) return false;
  // Rows of this range in the default partition move into the new one (it could not be created over them).
  await db.run(
    `CREATE TEMP TABLE vigil_moved ON COMMIT DROP AS
     WITH d AS (DELETE FROM ${table}_default WHERE at >= ${p.from} AND at < ${p.to} RETURNING *) SELECT * FROM d`,
  );
  await db.run(`CREATE TABLE ${name} PARTITION OF ${table} FOR VALUES FROM (${p.from}) TO (${p.to})`);
  await db.run(`INSERT INTO ${table} SELECT * FROM vigil_moved`);
  await db.run('DROP TABLE vigil_moved');
  return true;
}

/** The day partitions of a table, with their ranges, oldest first. */
async function dayPartitions(db: PgDb, table: string): Promise<Array<{ name: string; to: number }>> {
  const rows = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
     WHERE p.relname = $1 AND c.relname ~ '_p[0-9]{8}$' ORDER BY c.relname`,
    [table],
  );
  return rows.map(({ name }) => {
    const s = name.slice(-8);
    return { name, to: Date.UTC(Number(s.slice(0, 4)), Number(s.slice(4, 6)) - 1, Number(s.slice(6, 8))) + DAY_MS };
  });
}

/**
 * Drops history partitions wholly before `rawBefore` and minute-rollup partitions wholly before
 * `minutesBefore`, raising the horizons of the checks they held first. Returns partitions dropped.
 */
export async function dropExpiredPartitions(db: PgDb, rawBefore: number, minutesBefore: number): Promise<number> {
  let dropped = 0;
  const plan: Array<[table: string, column: 'raw_from' | 'minutes_from', before: number]> = [
    ['history', 'raw_from', rawBefore],
    ['rollup_minute', 'minutes_from', minutesBefore],
  ];
  for (const [table, column, before] of plan) {
    for (const p of await dayPartitions(db, table)) {
      if (p.to > before) break;
      await db.transaction(async () => {
        await db.run(`SELECT pg_advisory_xact_lock(${PARTITION_LOCK})`);
        await db.run(
          `INSERT INTO retention_horizons (check_seq, ${column}) SELECT DISTINCT check_seq, ${p.to}::bigint FROM ${p.name}
           ON CONFLICT (check_seq) DO UPDATE SET ${column} = greatest(coalesce(retention_horizons.${column}, excluded.${column}), excluded.${column})`,
        );
        await db.run(`DROP TABLE ${p.name}`);
      });
      dropped++;
    }
  }
  return dropped;
}

export type PgRetentionStore = Async<Omit<RetentionStore, 'transaction' | 'dropExpired'>> & {
  transaction<T>(fn: () => T | Promise<T>): Promise<T>;
  dropExpired(rawBefore: number, minutesBefore: number): Promise<number>;
};

/** Row-by-row pruning (plans whose retention is shorter than the oldest partition kept), as SQLite's. */
export function pgRetention(db: PgDb, openBuckets: () => Promise<OpenBuckets>): PgRetentionStore {
  const raise = (column: 'raw_from' | 'minutes_from') =>
    `INSERT INTO retention_horizons (check_seq, ${column}) VALUES ($1, $2)
     ON CONFLICT (check_seq) DO UPDATE SET ${column} = greatest(coalesce(retention_horizons.${column}, excluded.${column}), excluded.${column})`;
  return {
    transaction: (fn) => db.transaction(fn),
    dropExpired: (rawBefore, minutesBefore) => dropExpiredPartitions(db, rawBefore, minutesBefore),
    openBuckets: async () => openBuckets(),
    checkTiers: () => db.query<{ seq: number; tier: Tier }>('SELECT c.seq, a.tier FROM checks c JOIN accounts a ON a.id = c.account_id ORDER BY c.seq'),
    async pruneRaw(seq, before, limit) {
      const deleted = await db.run(
        `DELETE FROM history WHERE check_seq = $1 AND at < $2
           AND id IN (SELECT id FROM history WHERE check_seq = $1 AND at < $2 ORDER BY at, id LIMIT $3)`,
        [seq, before, limit],
      );
      if (deleted > 0) await db.run(raise('raw_from'), [seq, before]);
      return deleted;
    },
    async pruneMinutes(seq, before, limit) {
      const deleted = await db.run(
        `DELETE FROM rollup_minute WHERE check_seq = $1 AND at < $2
           AND at IN (SELECT at FROM rollup_minute WHERE check_seq = $1 AND at < $2 ORDER BY at LIMIT $3)`,
        [seq, before, limit],
      );
      if (deleted > 0) await db.run(raise('minutes_from'), [seq, before]);
      return deleted;
    },
  };
}
