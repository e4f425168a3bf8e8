import type { ProbeResult } from '../domain/probe-types.js';

/**
 * The inbox of several centrals: an observation one central received for a check another owns
 * (a heartbeat ping, a prober node's result), kept until the owner records it, so whichever
 * central a ping or a node reaches, the owner alone moves the state and records it once.
 */
interface InboxEntry {
  seq: number;
  checkId: string;
  /** The check's slot (`domain/leases.ts`): the owner takes the entries of the slots it holds. */
  slot: number;
  /** When the receiving central got it (a result: when its probe started, on the receiver's clock). */
  at: number;
  /** The central that received it. */
  receivedBy: string;
}

/** A heartbeat ping. */
export interface InboxPing extends InboxEntry {
  signal: 'ping' | 'fail' | 'start';
  error: string | null;
  details: Record<string, unknown>;
  region: string | null;
}

/** A prober node's result: the owner records it as the node's (its region), with the peer re-check and the late-result rule. */
export interface InboxResult extends InboxEntry {
  signal: 'result';
  result: ProbeResult;
  /** The node's region. */
  region: string;
}

export type InboxItem = InboxPing | InboxResult;

type New<T> = T extends InboxItem ? Omit<T, 'seq'> : never;
export type NewInboxItem = New<InboxItem>;
export type NewInboxPing = Omit<InboxPing, 'seq'>;

export interface PingInboxRepo {
  /**
   * In a batch of monitoring writes (`ping-inbox`): acknowledged once that batch commits (a
   * node's cursor moves in the same write).
   */
  add(item: NewInboxItem): void;
  /** In the batch that records the entry (`ObservationWrite.inboxSeq`): recorded exactly once. */
  remove(seq: number): void;
  /** The oldest entries of checks in these slots. */
  take(slots: readonly number[], limit: number): Promise<InboxItem[]>;
}

/** How an entry is kept in a row: a result's `details` column holds the result. */
export function inboxColumns(item: NewInboxItem): { error: string | null; details: string; region: string | null } {
  return item.signal === 'result'
    ? { error: item.result.error, details: JSON.stringify(item.result), region: item.region }
    : { error: item.error, details: JSON.stringify(item.details), region: item.region };
}

/** An entry from its row's columns. */
export function inboxItem(row: Omit<InboxEntry, 'seq'> & { seq: number; signal: string; error: string | null; details: string; region: string | null }): InboxItem {
  const base = { seq: row.seq, checkId: row.checkId, slot: row.slot, at: row.at, receivedBy: row.receivedBy };
  if (row.signal === 'result') return { ...base, signal: 'result', result: JSON.parse(row.details) as ProbeResult, region: row.region ?? '' };
  return { ...base, signal: row.signal as InboxPing['signal'], error: row.error, details: JSON.parse(row.details) as Record<string, unknown>, region: row.region };
}
