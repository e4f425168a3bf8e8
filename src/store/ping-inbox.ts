import type { Answer } from './answer.js';

/**
 * A heartbeat ping one central received for a check another owns (several centrals): kept until
 * the owner records it, so a ping to any central counts and the owner alone moves the state.
 */
export interface InboxPing {
  seq: number;
  checkId: string;
  /** The check's slot (`domain/leases.ts`): the owner takes the pings of the slots it holds. */
  slot: number;
  /** When the receiving central got it. */
  at: number;
  signal: 'ping' | 'fail' | 'start';
  error: string | null;
  details: Record<string, unknown>;
  region: string | null;
  /** The central that received it. */
  receivedBy: string;
}

export type NewInboxPing = Omit<InboxPing, 'seq'>;

export interface PingInboxRepo {
  /** In a batch of monitoring writes (`ping-inbox`): acknowledged once that batch commits. */
  add(ping: NewInboxPing): void;
  /** In the batch that records the ping (`ObservationWrite.inboxSeq`): recorded exactly once. */
  remove(seq: number): void;
  /** The oldest pings of checks in these slots. */
  take(slots: readonly number[], limit: number): Answer<InboxPing[]>;
}
