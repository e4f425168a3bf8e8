import type { Delivery } from '../store/alert-store.js';

/** What one attempt at one delivery came to, as a channel reports it. */
export type AttemptOutcome =
  | { kind: 'delivered'; status: number | null }
  /**
   * `retryable`: worth another attempt (no answer, 5xx, 408, 429); otherwise final.
   * `retryAfterMs`: the receiver's Retry-After, which replaces the backoff.
   */
  | { kind: 'failed'; status: number | null; error: string; retryable: boolean; retryAfterMs?: number }
  /** The target is gone (webhook deleted or disabled): nothing to send to. */
  | { kind: 'cancelled'; error: string };

/** A way alerts leave Vigil (email, webhooks): the sender drives every channel alike. */
export interface AlertChannel {
  attempt(delivery: Delivery, signal: AbortSignal): Promise<AttemptOutcome>;
}
