import type { Answer } from './answer.js';

/** Issue 29: who follows a status page, by email (after double opt-in) or by webhook. */
export type SubscriberKind = 'email' | 'webhook';

export interface Subscriber {
  id: string;
  pageId: string;
  kind: SubscriberKind;
  /** The email address (lower-cased) or the webhook URL. */
  address: string;
  /** Webhooks: the HMAC secret their notices are signed with. */
  secret: string | null;
  /**
   * The subscriber's own link secret (64 hex characters): the confirmation and unsubscribe
   * links carry it. It lets its holder confirm or end this one subscription, nothing else.
   */
  token: string;
  /** When the email address was confirmed (webhooks: when they subscribed); null while pending. */
  confirmedAt: number | null;
  createdAt: number;
}

export interface SubscriberCounts {
  email: number;
  webhook: number;
  /** Email addresses not confirmed yet (not counted in `email`). */
  pending: number;
}

export type SubscribeOutcome =
  | { kind: 'added'; subscriber: Subscriber }
  /** The address already follows the page (or waits for its confirmation). */
  | { kind: 'exists'; subscriber: Subscriber }
  /** The page has `max` subscribers already. */
  | { kind: 'full' };

export interface SubscriberRepo {
  /**
   * Adds the subscriber unless the address already follows the page or the page has `max`
   * subscribers (pending ones count), as one unit. Pending addresses created before
   * `expireBefore` are dropped first.
   */
  add(subscriber: Subscriber, max: number, expireBefore: number): Answer<SubscribeOutcome>;
  byToken(token: string): Answer<Subscriber | null>;
  byId(id: string): Answer<Subscriber | null>;
  confirm(id: string, at: number): Answer<void>;
  delete(id: string): Answer<void>;
  /** Oldest first. */
  list(pageId: string, page: { limit: number; offset: number }): Answer<Subscriber[]>;
  counts(pageId: string): Answer<SubscriberCounts>;
  /** Confirmed subscribers: who is told of a notice. */
  confirmed(pageId: string): Answer<Subscriber[]>;
}
