import type { Synchronous } from '../synchronous.js';
import type { Db } from '../db.js';
import type { ClusterRepo, Holder, InstanceRow } from '../cluster-repo.js';

interface Row {
  name: string;
  epoch: number;
  version: string;
  started_at: number;
  last_seen_at: number;
  lease_until: number;
  checks: number;
  renewals: number;
}

const instance = (r: Row): InstanceRow => ({
  name: r.name, epoch: r.epoch, version: r.version, startedAt: r.started_at, lastSeenAt: r.last_seen_at,
  leaseUntil: r.lease_until, checks: r.checks, renewals: r.renewals,
});

export function sqliteCluster(db: Db): Synchronous<ClusterRepo> {
  const join = db.prepare<[string, string, number, number, number], number>(
    `INSERT INTO cluster_instances (name, epoch, version, started_at, last_seen_at, lease_until) VALUES (?, 1, ?, ?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET epoch = epoch + 1, version = excluded.version, started_at = excluded.started_at,
       last_seen_at = excluded.last_seen_at, lease_until = excluded.lease_until, checks = 0, renewals = 0
     RETURNING epoch`,
  ).pluck();
  const renewInstance = db.prepare<[number, number, number, string, number]>(
    'UPDATE cluster_instances SET last_seen_at = ?, lease_until = ?, checks = ?, renewals = renewals + 1 WHERE name = ? AND epoch = ?',
  );
  const renewSlots = db.prepare<[number, string, number], number>(
    'UPDATE cluster_slots SET lease_until = ? WHERE owner = ? AND owner_epoch = ? RETURNING slot',
  ).pluck();
  const live = db.prepare<[number], Row>('SELECT * FROM cluster_instances WHERE lease_until > ? ORDER BY name');
  const all = db.prepare<[], Row>('SELECT * FROM cluster_instances ORDER BY name');
  const claimable = db.prepare<[number], number>('SELECT slot FROM cluster_slots WHERE owner IS NULL OR lease_until <= ? ORDER BY slot').pluck();
  // Claims and releases count only from the name's current epoch: a superseded process changes nothing.
  const current = db.prepare<[string, number], number>('SELECT 1 FROM cluster_instances WHERE name = ? AND epoch = ?').pluck();
  const claim = db.prepare<[string, number, number, number, number]>(
    'UPDATE cluster_slots SET owner = ?, owner_epoch = ?, lease_until = ? WHERE slot = ? AND (owner IS NULL OR lease_until <= ?)',
  );
  const release = db.prepare<[number, string, number]>(
    'UPDATE cluster_slots SET owner = NULL, owner_epoch = 0, lease_until = 0 WHERE slot = ? AND owner = ? AND owner_epoch = ?',
  );
  const releaseAll = db.prepare<[string, number]>('UPDATE cluster_slots SET owner = NULL, owner_epoch = 0, lease_until = 0 WHERE owner = ? AND owner_epoch = ?');
  const leave = db.prepare<[number, number, string, number]>(
    'UPDATE cluster_instances SET last_seen_at = ?, lease_until = ?, checks = 0 WHERE name = ? AND epoch = ?',
  );
  const holds = db.prepare<[string, number, number], number>(
    'SELECT 1 FROM cluster_instances WHERE name = ? AND epoch = ? AND lease_until > ?',
  ).pluck();

  return {
    join: (name, version, now, leaseMs) => join.get(name, version, now, now, now + leaseMs)!,
    renew: db.transaction((h: Holder, now: number, leaseMs: number, checks: number) => {
      if (renewInstance.run(now, now + leaseMs, checks, h.name, h.epoch).changes === 0) return null;
      return renewSlots.all(now + leaseMs, h.name, h.epoch).sort((a, b) => a - b);
    }),
    live: (now) => live.all(now).map(instance),
    all: () => all.all().map(instance),
    claimable: (now) => claimable.all(now),
    claim: db.transaction((h: Holder, slots: readonly number[], now: number, leaseMs: number) =>
      current.get(h.name, h.epoch) === 1 ? slots.filter((slot) => claim.run(h.name, h.epoch, now + leaseMs, slot, now).changes === 1) : [],
    ),
    release: db.transaction((h: Holder, slots: readonly number[]) => {
      if (current.get(h.name, h.epoch) === 1) for (const slot of slots) release.run(slot, h.name, h.epoch);
    }),
    leave: db.transaction((h: Holder, now: number) => {
      releaseAll.run(h.name, h.epoch);
      leave.run(now, now, h.name, h.epoch);
    }),
    holds: (h, now) => holds.get(h.name, h.epoch, now) === 1,
  };
}
