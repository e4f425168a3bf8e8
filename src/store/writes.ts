import type { RollupSample } from '../domain/rollup.js';
import type { DomainInfo } from '../domain/probe-types.js';
import type { DomainMemory, NewAlert } from './alert-store.js';
import type { OutboxClaim, OutboxEvent } from './alert-outbox.js';
import type { HistoryEventInput, HistoryResultInput, LoggedStatus, RuntimeWrite } from './store.js';
import type { NodeCursor, NodeLiveFigures } from './node-repo.js';
import type { NewInboxItem } from './ping-inbox.js';

/**
 * What monitoring writes, as typed records the batched writer hands to the store in groups
 * (Store.applyWrites): data, not closures, so any store (SQLite now, PostgreSQL next) can
 * apply a batch in one transaction of its own.
 */
export type WriteRecord = ObservationWrite | DomainInfoWrite | AlertsWrite | NodeCursorWrite | NodeLiveWrite | PingInboxWrite;

/**
 * One observation of a check (probe result, ping, missed deadline, domain lookup) as the
 * recorder (monitor/recorder.ts) built it: every part is optional but the check.
 */
export interface ObservationWrite {
  kind: 'observation';
  checkId: string;
  checkSeq: number;
  /** When the transition happened (the state log's time). */
  at: number;
  /** The result as history keeps it; null for a missed deadline (see `event`). */
  result: HistoryResultInput | null;
  /** An event row instead of a result (a missed heartbeat deadline). */
  event: HistoryEventInput | null;
  /** The result for the rollups, at `sampleAt`; null when it is not a result (a job's start ping). */
  sample: RollupSample | null;
  sampleAt: number;
  /** The check row's runtime fields; null when nothing visible changed and nothing is due. */
  runtime: RuntimeWrite | null;
  /** The status entered, for the state-change log; null when it did not change. */
  statusChange: LoggedStatus | null;
  /** The status in force, appended unless the state-change log already ends with it (fresh start). */
  verifyStatus: LoggedStatus | null;
  /** A maintenance window that ran out, ended in the store as of this `until`. */
  endMaintenance: number | null;
  /** A domain lookup: what it found (only successful lookups write it), and the expiry memory. */
  domain: DomainInfo | null;
  domainMemory: DomainMemory | null;
  /** A second region's re-check of a failing probe, kept in history beside the primary's result. */
  peerResult?: HistoryResultInput | null;
  /** A prober node's result: its outbox cursor moves in the same transaction (exactly once). */
  nodeCursor?: NodeCursorWrite | null;
  /** A ping or a node's result another central received: it leaves the inbox in the same transaction (exactly once). */
  inboxSeq?: number | null;
  /** The alert events this observation raised, kept in the outbox in the same transaction (null on the hot path: none). */
  outbox?: OutboxEvent[] | null;
}

/**
 * A ping or a prober node's result received for a check another central owns, kept for it
 * (several centrals). A node's result moves the node's outbox cursor in the same transaction,
 * so it is handed over exactly once.
 */
export interface PingInboxWrite {
  kind: 'ping-inbox';
  item: NewInboxItem;
  nodeCursor?: NodeCursorWrite | null;
}

/** The newest result recorded from a prober node's outbox (with nothing else to write). */
export interface NodeCursorWrite {
  kind: 'node-cursor';
  nodeId: string;
  cursor: NodeCursor;
}

/** What the server knows of its prober nodes, for `vigil node list` (another process). */
export interface NodeLiveWrite {
  kind: 'node-live';
  nodes: Array<{ id: string; live: NodeLiveFigures }>;
}

/** The check's `domain` field, set or cleared outside a lookup (its URL moved to another domain). */
export interface DomainInfoWrite {
  kind: 'domain-info';
  checkId: string;
  domain: DomainInfo | null;
}

/** Alerts routed by the alert pipeline, queued for delivery. */
export interface AlertsWrite {
  kind: 'alerts';
  alerts: NewAlert[];
  at: number;
  /** The outbox events this drain routed, alerts or not: claimed (deleted) in the same transaction. */
  routed?: OutboxClaim[];
}

/** Called for each record of a batch that failed on its own (the rest of its batch still commits). */
export type WriteFailure = (record: WriteRecord, err: unknown) => void;
