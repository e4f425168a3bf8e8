import { ErrorBody } from '../core/schemas/common.js';
import {
  CreateMaintenanceWindowBody, MaintenanceWindowDeletedResponse, MaintenanceWindowListResponse, MaintenanceWindowResponse,
  UpdateMaintenanceWindowBody,
} from '../core/schemas/maintenance-windows.js';
import { defineRoute, ok, type Route } from './http-types.js';
import { publicApi } from './route-presets.js';
import type { MonitoringServices } from './services.js';

const errorsFor = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorBody]));
const base = { ...publicApi, tag: 'maintenance-windows' } as const;
const WINDOWS = '/v1/public/maintenance-windows';

/** Scheduled maintenance windows (issue 27, beyond the spec): handlers call the service only. */
export function maintenanceWindowRoutes(s: MonitoringServices): Route[] {
  const windows = s.maintenanceWindows;
  return [
    defineRoute({
      ...base,
      method: 'GET',
      path: WINDOWS,
      summary: 'List maintenance windows (a restricted key: those wholly within its reach)',
      scope: 'checks:read',
      idempotency: 'none',
      responses: { 200: MaintenanceWindowListResponse, ...errorsFor(401, 403, 429) },
      handler: async ({ principal }) => {
        const data = await windows.list(principal);
        return ok({ data, meta: { total: data.length } });
      },
    }),
    defineRoute({
      ...base,
      method: 'POST',
      path: WINDOWS,
      summary: 'Schedule a maintenance window: one-off (startsAt, endsAt) or recurring (cron schedule, durationMinutes, timezone)',
      scope: 'checks:write',
      idempotency: 'optional',
      body: CreateMaintenanceWindowBody,
      responses: { 201: MaintenanceWindowResponse, ...errorsFor(400, 401, 403, 422, 429) },
      handler: async ({ principal, body }) => ok({ data: await windows.create(principal, body) }, 201),
    }),
    defineRoute({
      ...base,
      method: 'GET',
      path: `${WINDOWS}/:id`,
      summary: 'Get a maintenance window, whether it is active and its current or next occurrence',
      scope: 'checks:read',
      idempotency: 'none',
      responses: { 200: MaintenanceWindowResponse, ...errorsFor(401, 403, 404, 429) },
      handler: async ({ principal, params }) => ok({ data: await windows.get(principal, params.id!) }),
    }),
    defineRoute({
      ...base,
      method: 'PATCH',
      path: `${WINDOWS}/:id`,
      summary: 'Change a maintenance window; only included fields change (endsAt now ends it)',
      scope: 'checks:write',
      idempotency: 'none',
      body: UpdateMaintenanceWindowBody,
      responses: { 200: MaintenanceWindowResponse, ...errorsFor(400, 401, 403, 404, 429) },
      handler: async ({ principal, params, body }) => ok({ data: await windows.update(principal, params.id!, body) }),
    }),
    defineRoute({
      ...base,
      method: 'DELETE',
      path: `${WINDOWS}/:id`,
      summary: 'Delete a maintenance window (an active one ends now)',
      scope: 'checks:write',
      idempotency: 'none',
      responses: { 200: MaintenanceWindowDeletedResponse, ...errorsFor(401, 403, 404, 429) },
      handler: async ({ principal, params }) => ok({ data: await windows.remove(principal, params.id!) }),
    }),
  ];
}
