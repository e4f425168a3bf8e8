import type { NodeRecord, NodeRow } from '../node-repo.js';
import { toBool } from './values.js';

/** A row of `nodes` as either store reads it. */
export interface NodeRowDb {
  id: string;
  name: string;
  region: string;
  created_at: number;
  revoked_at: number | null;
  connected: number | boolean;
  last_seen_at: number | null;
  version: string | null;
  assigned: number;
  probes_per_second: number;
  outbox_depth: number;
  clock_offset_ms: number | null;
  rejected_results: number;
  dropped_results: number;
}

export const rowToNodeRecord = (r: NodeRowDb): NodeRecord => ({ id: r.id, name: r.name, region: r.region, createdAt: r.created_at, revokedAt: r.revoked_at });

export const rowToNode = (r: NodeRowDb): NodeRow => ({
  ...rowToNodeRecord(r),
  connected: toBool(r.connected),
  lastSeenAt: r.last_seen_at,
  version: r.version,
  assigned: r.assigned,
  probesPerSecond: r.probes_per_second,
  outboxDepth: r.outbox_depth,
  clockOffsetMs: r.clock_offset_ms,
  rejectedResults: r.rejected_results,
  droppedResults: r.dropped_results,
});
