import type { Answer } from './answer.js';
/** A registered prober node as the store keeps it (the token only as its hash). */
export interface NodeRecord {
  id: string;
  name: string;
  region: string;
  createdAt: number;
  revokedAt: number | null;
}

/** What the running server last reported about a node (for `vigil node list`). */
export interface NodeLiveFigures {
  connected: boolean;
  lastSeenAt: number | null;
  version: string | null;
  assigned: number;
  probesPerSecond: number;
  outboxDepth: number;
  clockOffsetMs: number | null;
  rejectedResults: number;
  droppedResults: number;
}

export type NodeRow = NodeRecord & NodeLiveFigures;

/** The newest outbox entry recorded from a node: `epoch` names the outbox, `seq` counts in it. */
export interface NodeCursor {
  epoch: string | null;
  seq: number;
}

export interface NodeRepo {
  insert(node: NodeRecord, tokenHash: Buffer): Answer<void>;
  byTokenHash(hash: Buffer): Answer<NodeRecord | null>;
  byId(id: string): Answer<NodeRow | null>;
  /** Every node, revoked ones included, oldest first. */
  list(): Answer<NodeRow[]>;
  revoke(id: string, at: number): Answer<void>;
  /** Ids among `ids` that are revoked (the server polls this: the CLI is another process). */
  revokedAmong(ids: string[]): Answer<string[]>;
  /** Regions that have at least one node not revoked, sorted. */
  regions(): Answer<Array<{ region: string; nodes: number }>>;
  saveLive(id: string, live: NodeLiveFigures): Answer<void>;
  /** At start nobody is connected yet, whatever the last run left. */
  markAllDisconnected(): Answer<void>;
  cursor(id: string): Answer<NodeCursor>;
  setCursor(id: string, cursor: NodeCursor): Answer<void>;
}
