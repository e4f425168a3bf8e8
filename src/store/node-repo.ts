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
  insert(node: NodeRecord, tokenHash: Buffer): void;
  byTokenHash(hash: Buffer): NodeRecord | null;
  byId(id: string): NodeRow | null;
  /** Every node, revoked ones included, oldest first. */
  list(): NodeRow[];
  revoke(id: string, at: number): void;
  /** Ids among `ids` that are revoked (the server polls this: the CLI is another process). */
  revokedAmong(ids: string[]): string[];
  /** Regions that have at least one node not revoked, sorted. */
  regions(): Array<{ region: string; nodes: number }>;
  saveLive(id: string, live: NodeLiveFigures): void;
  /** At start nobody is connected yet, whatever the last run left. */
  markAllDisconnected(): void;
  cursor(id: string): NodeCursor;
  setCursor(id: string, cursor: NodeCursor): void;
}
