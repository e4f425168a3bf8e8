import { Type } from '@sinclair/typebox';
import { IsoDate, StringEnum } from './common.js';

/** The owner's view of a status page's subscribers (issue 29; beyond the spec). */

export const SubscriberListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  },
  { additionalProperties: false },
);

export const SubscriberObject = Type.Object(
  {
    id: Type.String(),
    kind: StringEnum(['email', 'webhook'] as const),
    address: Type.String({ description: 'The email address, or the webhook URL cut to scheme and host' }),
    confirmed: Type.Boolean({ description: 'False while an email address waits for its confirmation link to be used' }),
    createdAt: IsoDate,
  },
  { $id: 'Subscriber' },
);

export const SubscriberListResponse = Type.Object({
  data: Type.Array(SubscriberObject),
  meta: Type.Object({
    page: Type.Integer(),
    limit: Type.Integer(),
    email: Type.Integer({ description: 'Confirmed email subscribers' }),
    webhook: Type.Integer({ description: 'Webhook subscribers' }),
    pending: Type.Integer({ description: 'Email addresses not confirmed yet' }),
  }),
});
