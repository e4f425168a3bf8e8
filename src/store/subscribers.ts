
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
  /**
   * When the email address was confirmed, or the webhook's receiver answered its verification
   * challenge (issue 34); null while pending.
   */
  confirmedAt: number | null;
  createdAt: number;
}

export interface SubscriberCounts {
  email: number;
  webhook: number;
  /** Email addresses and webhooks not confirmed yet (not counted in `email` or `webhook`). */
  pending: number;
}

export type SubscribeOutcome =
  | { kind: 'added'; subscriber: Subscriber }
  /** The address already follows the page (or waits for its confirmation). */
  | { kind: 'exists'; subscriber: Subscriber }
  /** The page has `max` subscribers already. */
  | { kind: 'full' };

/** Per kind, the creation time before which a subscriber still pending has expired. */
export type PendingCutoffs = Readonly<Record<SubscriberKind, number>>;

export interface SubscriberRepo {
  /**
   * Adds the subscriber unless the address already follows the page or the page has `max`
   * subscribers (pending ones count), as one unit. The page's pending subscribers past their
   * cutoff are dropped first.
   */
  add(subscriber: Subscriber, max: number, expireBefore: PendingCutoffs): Promise<SubscribeOutcome>;
  byToken(token: string): Promise<Subscriber | null>;
  byId(id: string): Promise<Subscriber | null>;
  /** True when this call confirmed it (false: gone, or confirmed already). */
  confirm(id: string, at: number): Promise<boolean>;
  delete(id: string): Promise<void>;
  /** Oldest first. */
  list(pageId: string, page: { limit: number; offset: number }): Promise<Subscriber[]>;
  counts(pageId: string): Promise<SubscriberCounts>;
  /**
   * Drops subscribers of this kind, on every page, still pending and created before `before`; how
   * many. A conditional delete: safe to run twice, and on several centrals at once.
   */
  expirePending(kind: SubscriberKind, before: number): Promise<number>;
  /** Confirmed subscribers: who is told of a notice. */
  confirmed(pageId: string): Promise<Subscriber[]>;
}
