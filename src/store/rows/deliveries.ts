import type { DeliveryFilter, DeliveryStatus } from '../alert-store.js';

/** The delivery log's status filter: `pending` covers rows being sent. */
export const DELIVERY_FILTER_STATUSES: Record<NonNullable<DeliveryFilter['status']>, readonly DeliveryStatus[]> = {
  pending: ['pending', 'sending'],
  delivered: ['delivered'],
  failed: ['failed'],
  cancelled: ['cancelled'],
};
