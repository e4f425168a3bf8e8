import { Type } from '@sinclair/typebox';
import { IsoDate } from './common.js';
import { MAX_WINDOW_MINUTES } from '../../domain/maintenance-windows.js';

/** Request and response shapes of the maintenance windows API (issue 27; beyond the spec). */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const fields = {
  title: Type.String({ minLength: 1, maxLength: 200, description: 'One line of plain text' }),
  description: Nullable(Type.String({ maxLength: 2000, description: 'Plain text' })),
  checkIds: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 500, description: 'Checks of your account in the window' }),
  folders: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, description: 'Checks in these folders are in the window' }),
  tags: Type.Array(Type.String({ minLength: 1, maxLength: 129 }), { maxItems: 20, description: 'Checks with one of these tags are in the window (key matches any value)' }),
  allChecks: Type.Boolean({ description: 'Every check of the account is in the window' }),
  startsAt: Nullable(IsoDate),
  endsAt: Nullable(IsoDate),
  schedule: Nullable(Type.String({ minLength: 1, maxLength: 100, description: 'Recurring: a 5-field cron expression (minute hour day-of-month month day-of-week) in timezone; each run opens the window for durationMinutes' })),
  durationMinutes: Nullable(Type.Integer({ minimum: 1, maximum: MAX_WINDOW_MINUTES, description: 'Recurring: how long each occurrence lasts' })),
  timezone: Nullable(Type.String({ minLength: 1, maxLength: 64, description: 'Recurring: IANA time zone of the schedule (default UTC)' })),
};

const Partial = Type.Partial(Type.Object(fields));
const optional = Partial.properties;

export const CreateMaintenanceWindowBody = Type.Object(
  { ...optional, title: fields.title },
  {
    additionalProperties: false,
    $id: 'CreateMaintenanceWindow',
    description: 'Which checks (checkIds, folders, tags, or allChecks: true; at least one) and when: startsAt and endsAt, or schedule with durationMinutes (and timezone), optionally bounded by startsAt/endsAt',
  },
);
export type CreateMaintenanceWindowInput = (typeof CreateMaintenanceWindowBody)['static'];

export const UpdateMaintenanceWindowBody = Type.Object(optional, { additionalProperties: false, $id: 'UpdateMaintenanceWindow' });
export type UpdateMaintenanceWindowInput = (typeof UpdateMaintenanceWindowBody)['static'];

export const MaintenanceWindowObject = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    description: Nullable(Type.String()),
    checkIds: Type.Array(Type.String()),
    folders: Type.Array(Type.String()),
    tags: Type.Array(Type.String()),
    allChecks: Type.Boolean(),
    startsAt: Nullable(IsoDate),
    endsAt: Nullable(IsoDate),
    schedule: Nullable(Type.String()),
    durationMinutes: Nullable(Type.Integer()),
    timezone: Nullable(Type.String()),
    active: Type.Boolean({ description: 'An occurrence is in force now' }),
    nextStartsAt: Nullable(IsoDate),
    nextEndsAt: Nullable(IsoDate),
    createdAt: IsoDate,
    updatedAt: IsoDate,
  },
  { $id: 'MaintenanceWindow', description: 'nextStartsAt/nextEndsAt: the occurrence in force now, else the next one; null when none is left' },
);

export const MaintenanceWindowResponse = Type.Object({ data: MaintenanceWindowObject });
export const MaintenanceWindowListResponse = Type.Object({ data: Type.Array(MaintenanceWindowObject), meta: Type.Object({ total: Type.Integer() }) });
export const MaintenanceWindowDeletedResponse = Type.Object({ data: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }) });
