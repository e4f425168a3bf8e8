import type { Synchronous } from '../synchronous.js';
import type { Db } from '../db.js';
import type { NodeCursor, NodeLiveFigures, NodeRepo } from '../node-repo.js';
import { fromBool } from '../rows/values.js';
import { rowToNode as toRow, rowToNodeRecord as toRecord, type NodeRowDb } from '../rows/nodes.js';

export function sqliteNodes(db: Db): Synchronous<NodeRepo> {
  const insert = db.prepare('INSERT INTO nodes (id, name, region, token_hash, created_at) VALUES (?, ?, ?, ?, ?)');
  const byHash = db.prepare('SELECT * FROM nodes WHERE token_hash = ?');
  const byId = db.prepare('SELECT * FROM nodes WHERE id = ?');
  const all = db.prepare('SELECT * FROM nodes ORDER BY created_at, id');
  const revoke = db.prepare('UPDATE nodes SET revoked_at = ?, connected = 0 WHERE id = ? AND revoked_at IS NULL');
  const revoked = db.prepare('SELECT id FROM nodes WHERE revoked_at IS NOT NULL AND id IN (SELECT value FROM json_each(?))').pluck();
  const regions = db.prepare('SELECT region, count(*) AS nodes FROM nodes WHERE revoked_at IS NULL GROUP BY region ORDER BY region');
  const saveLive = db.prepare(
    `UPDATE nodes SET connected = ?, last_seen_at = ?, version = ?, assigned = ?, probes_per_second = ?, outbox_depth = ?,
       clock_offset_ms = ?, rejected_results = ?, dropped_results = ? WHERE id = ? AND (last_seen_at IS NULL OR last_seen_at <= ?)`,
  );
  const disconnect = db.prepare('UPDATE nodes SET connected = 0 WHERE connected = 1 AND (last_seen_at IS NULL OR last_seen_at < ?)');
  const connectedSince = db.prepare<[number], { id: string; region: string; lastSeenAt: number }>(
    'SELECT id, region, last_seen_at AS lastSeenAt FROM nodes WHERE connected = 1 AND revoked_at IS NULL AND last_seen_at >= ? ORDER BY id',
  );
  const cursor = db.prepare('SELECT epoch, last_seq AS seq FROM nodes WHERE id = ?');
  const setCursor = db.prepare('UPDATE nodes SET epoch = ?, last_seq = ? WHERE id = ?');
  return {
    insert: (n, hash) => void insert.run(n.id, n.name, n.region, hash, n.createdAt),
    byTokenHash: (hash) => {
      const r = byHash.get(hash) as NodeRowDb | undefined;
      return r ? toRecord(r) : null;
    },
    byId: (id) => {
      const r = byId.get(id) as NodeRowDb | undefined;
      return r ? toRow(r) : null;
    },
    list: () => (all.all() as NodeRowDb[]).map(toRow),
    revoke: (id, at) => void revoke.run(at, id),
    revokedAmong: (ids) => (ids.length === 0 ? [] : (revoked.all(JSON.stringify(ids)) as string[])),
    regions: () => regions.all() as Array<{ region: string; nodes: number }>,
    saveLive: (id, l: NodeLiveFigures) =>
      void saveLive.run(
        fromBool(l.connected), l.lastSeenAt, l.version, l.assigned, l.probesPerSecond, l.outboxDepth,
        l.clockOffsetMs, l.rejectedResults, l.droppedResults, id, l.lastSeenAt ?? 0,
      ),
    markDisconnected: (seenBefore) => void disconnect.run(seenBefore),
    connectedSince: (seenSince) => connectedSince.all(seenSince),
    cursor: (id) => (cursor.get(id) as NodeCursor | undefined) ?? { epoch: null, seq: 0 },
    setCursor: (id, c) => void setCursor.run(c.epoch, c.seq, id),
  };
}
