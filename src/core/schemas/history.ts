import { Type } from '@sinclair/typebox';
import { IsoDate, ListMeta, Pagination, StringEnum } from './common.js';

export const HistoryQuerySchema = Type.Object({
  ...Pagination,
  from: Type.Optional(Type.String({ description: 'ISO 8601, inclusive' })),
  to: Type.Optional(Type.String({ description: 'ISO 8601, inclusive' })),
  status: Type.Optional(StringEnum(['up', 'down', 'error'] as const)),
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring of the error message or response snippet' })),
});

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const HistoryEntry = Type.Object(
  {
    id: Type.String(),
    checkId: Type.String(),
    type: StringEnum(['probe', 'ping', 'event'] as const),
    status: Type.String({ description: 'up or down for results; for events the state the check entered (paused, resumed, maintenance, maintenance_end)' }),
    statusCode: Nullable(Type.Integer()),
    responseTime: Nullable(Type.Number()),
    region: Nullable(Type.String()),
    timing: Nullable(Type.Object({ dns: Type.Number(), connect: Type.Number(), tls: Type.Number(), ttfb: Type.Number(), total: Type.Number() })),
    error: Nullable(Type.String()),
    snippet: Nullable(Type.String({ description: 'The start of the response body, kept for failed probes' })),
    createdAt: IsoDate,
    details: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'Event reason, redirect location or heartbeat metadata' })),
  },
  { $id: 'HistoryEntry' },
);

export const HistoryResponse = Type.Object({ data: Type.Array(HistoryEntry), meta: ListMeta });
