import type { Subscriber, SubscriberKind } from '../subscribers.js';

/** A row of `status_page_subscribers` as either store reads it. */
export interface SubscriberRowDb {
  id: string;
  page_id: string;
  kind: string;
  address: string;
  secret: string | null;
  token: string;
  confirmed_at: number | null;
  created_at: number;
}

export const rowToSubscriber = (r: SubscriberRowDb): Subscriber => ({
  id: r.id,
  pageId: r.page_id,
  kind: r.kind as SubscriberKind,
  address: r.address,
  secret: r.secret,
  token: r.token,
  confirmedAt: r.confirmed_at,
  createdAt: r.created_at,
});
