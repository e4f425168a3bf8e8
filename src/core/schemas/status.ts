import { Type } from '@sinclair/typebox';
import { StringEnum } from './common.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const StatusObject = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    status: StringEnum(['online', 'offline', 'degraded', 'unknown'] as const),
    lastStatusChange: Nullable(Type.Number({ description: 'Epoch milliseconds' })),
    lastError: Nullable(Type.String()),
    disabled: Type.Boolean(),
    maintenanceMode: Type.Boolean(),
    regions: Type.Object({
      primary: Nullable(Type.String()),
      peer: Nullable(Type.String()),
      regionsTotal: Type.Integer(),
      regionsDown: Type.Integer(),
      confirmedDown: Type.Boolean(),
    }),
    blockedBy: Type.Array(Type.String(), { description: 'Ids of the checks it depends on that are down now (its alerts are held meanwhile); empty otherwise' }),
  },
  { $id: 'StatusObject' },
);

export const StatusResponse = Type.Object({ data: Type.Array(StatusObject), meta: Type.Object({ total: Type.Integer() }) });
