import type { ClusterRepo, Holder, InstanceRow } from '../cluster-repo.js';
import { inboxColumns, inboxItem, type PingInboxRepo } from '../ping-inbox.js';
import type { PgDb, Row } from './db.js';
import type { Async } from './types.js';

const instance = (r: Row): InstanceRow => ({
  name: r.name as string, epoch: r.epoch as number, version: r.version as string, startedAt: r.started_at as number,
  lastSeenAt: r.last_seen_at as number, leaseUntil: r.lease_until as number, checks: r.checks as number, renewals: r.renewals as number,
});

/** The leases of several centrals (store/cluster-repo.ts), the same statements as SQLite's. */
export function pgCluster(db: PgDb): Async<ClusterRepo> {
  const current = async (h: Holder) => (await db.one('SELECT 1 FROM cluster_instances WHERE name = $1 AND epoch = $2 FOR UPDATE', [h.name, h.epoch])) !== null;
  return {
    async join(name, version, now, leaseMs) {
      const r = await db.one(
        `INSERT INTO cluster_instances (name, epoch, version, started_at, last_seen_at, lease_until) VALUES ($1, 1, $2, $3, $3, $4)
         ON CONFLICT (name) DO UPDATE SET epoch = cluster_instances.epoch + 1, version = excluded.version, started_at = excluded.started_at,
           last_seen_at = excluded.last_seen_at, lease_until = excluded.lease_until, checks = 0, renewals = 0
         RETURNING epoch`,
        [name, version, now, now + leaseMs],
      );
      return r!.epoch as number;
    },
    // One statement: a central paused between two statements of a renewal would hold its slots' row locks.
    renew: async (h, now, leaseMs, checks) => {
      const r = await db.one(
        `WITH i AS (UPDATE cluster_instances SET last_seen_at = $1, lease_until = $2, checks = $3, renewals = renewals + 1
                    WHERE name = $4 AND epoch = $5 RETURNING 1),
              s AS (UPDATE cluster_slots SET lease_until = $2 WHERE owner = $4 AND owner_epoch = $5 AND EXISTS (SELECT 1 FROM i) RETURNING slot)
         SELECT EXISTS (SELECT 1 FROM i) AS renewed, array(SELECT slot FROM s ORDER BY slot) AS slots`,
        [now, now + leaseMs, checks, h.name, h.epoch],
      );
      return r!.renewed ? (r!.slots as unknown[]).map(Number) : null;
    },
    live: async (now) => (await db.query('SELECT * FROM cluster_instances WHERE lease_until > $1 ORDER BY name', [now])).map(instance),
    all: async () => (await db.query('SELECT * FROM cluster_instances ORDER BY name')).map(instance),
    claimable: async (now) =>
      (await db.query('SELECT slot FROM cluster_slots WHERE owner IS NULL OR lease_until <= $1 ORDER BY slot', [now])).map((r) => r.slot as number),
    claim: (h, slots, now, leaseMs) =>
      db.transaction(async () => {
        if (!(await current(h))) return [];
        const rows = await db.query(
          `UPDATE cluster_slots SET owner = $1, owner_epoch = $2, lease_until = $3
           WHERE slot = ANY($4::int[]) AND (owner IS NULL OR lease_until <= $5) RETURNING slot`,
          [h.name, h.epoch, now + leaseMs, [...slots], now],
        );
        return rows.map((r) => r.slot as number).sort((a, b) => a - b);
      }),
    release: (h, slots) =>
      db.transaction(async () => {
        if (!(await current(h))) return;
        await db.run(
          'UPDATE cluster_slots SET owner = NULL, owner_epoch = 0, lease_until = 0 WHERE slot = ANY($1::int[]) AND owner = $2 AND owner_epoch = $3',
          [[...slots], h.name, h.epoch],
        );
      }),
    leave: (h, now) =>
      db.transaction(async () => {
        await db.run('UPDATE cluster_slots SET owner = NULL, owner_epoch = 0, lease_until = 0 WHERE owner = $1 AND owner_epoch = $2', [h.name, h.epoch]);
        await db.run('UPDATE cluster_instances SET last_seen_at = $1, lease_until = $1, checks = 0 WHERE name = $2 AND epoch = $3', [now, h.name, h.epoch]);
      }),
    holds: async (h, now) => (await db.one('SELECT 1 FROM cluster_instances WHERE name = $1 AND epoch = $2 AND lease_until > $3', [h.name, h.epoch, now])) !== null,
  };
}

/**
 * The fence in a batch's transaction: the writer's row is locked FOR SHARE, so a renewal or a
 * takeover waits for the batch, and a batch after the lease ended finds no row.
 */
export async function fenceHolds(db: PgDb, h: Holder, now: number): Promise<boolean> {
  return (await db.one(FENCE_QUERY, [h.name, h.epoch, now])) !== null;
}

/** The fence's query ($1 name, $2 epoch, $3 now): a row while the lease holds, locked until the transaction ends. */
export const FENCE_QUERY = 'SELECT 1 FROM cluster_instances WHERE name = $1 AND epoch = $2 AND lease_until > $3 FOR SHARE';

export function pgPingInbox(db: PgDb): Async<PingInboxRepo> {
  return {
    add: async (item) => {
      const c = inboxColumns(item);
      await db.run(
        'INSERT INTO ping_inbox (check_id, slot, at, signal, error, details, region, received_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [item.checkId, item.slot, item.at, item.signal, c.error, c.details, c.region, item.receivedBy],
      );
    },
    remove: async (seq) => void (await db.run('DELETE FROM ping_inbox WHERE seq = $1', [seq])),
    take: async (slots, limit) => {
      if (slots.length === 0) return [];
      const rows = await db.query('SELECT * FROM ping_inbox WHERE slot = ANY($1::int[]) ORDER BY seq LIMIT $2', [[...slots], limit]);
      return rows.map((r) => inboxItem({
        seq: Number(r.seq), checkId: r.check_id as string, slot: r.slot as number, at: Number(r.at), signal: r.signal as string,
        error: r.error as string | null, details: r.details as string, region: r.region as string | null, receivedBy: r.received_by as string,
      }));
    },
  };
}
