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
  insert(node: NodeRecord, tokenHash: Buffer): Promise<void>;
  byTokenHash(hash: Buffer): Promise<NodeRecord | null>;
  byId(id: string): Promise<NodeRow | null>;
  /** Every node, revoked ones included, oldest first. */
  list(): Promise<NodeRow[]>;
  revoke(id: string, at: number): Promise<void>;
  /** Ids among `ids` that are revoked (the server polls this: the CLI is another process). */
  revokedAmong(ids: string[]): Promise<string[]>;
  /** Regions that have at least one node not revoked, sorted. */
  regions(): Promise<Array<{ region: string; nodes: number }>>;
  /**
   * What a central sees of a node it has heard from. Several centrals may write one node (it
   * moved): the write that heard from it last wins, so a central the node left does not mark
   * it disconnected over the one it is connected to now.
   */
  saveLive(id: string, live: NodeLiveFigures): Promise<void>;
  /**
   * At start: nodes last heard from before `seenBefore` are not connected, whatever the last run
   * left (a single server passes its start; several centrals leave the others' nodes alone).
   */
  markDisconnected(seenBefore: number): Promise<void>;
  /** Nodes not revoked that a central heard from, connected, at or after `seenSince` (several centrals: where each region's nodes are). */
  connectedSince(seenSince: number): Promise<Array<{ id: string; region: string; lastSeenAt: number }>>;
  cursor(id: string): Promise<NodeCursor>;
  setCursor(id: string, cursor: NodeCursor): Promise<void>;
}
