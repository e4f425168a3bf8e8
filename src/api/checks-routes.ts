import { Type } from '@sinclair/typebox';
import {
  CheckDetailResponse, CheckListResponse, CreateCheckBody, CreatedResponse, ListChecksQuery, MaintenanceBody,
  MaintenanceResponse, ToggleBody, ToggleResponse, UpdateCheckBody,
} from '../core/schemas/checks.js';
import { ErrorBody, Success } from '../core/schemas/common.js';
import { defineRoute, ok, type Reply, type Route } from './http-types.js';
import type { Principal } from '../core/principal.js';
import { detailReply, ListPages } from './check-json.js';
import type { MonitoringServices } from './services.js';
import { publicApi } from './route-presets.js';

const SuccessResponse = Type.Object({ data: Success });
const errorsFor = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorBody]));
const base = { ...publicApi, tag: 'checks' } as const;

export function checkRoutes(s: MonitoringServices): Route[] {
  const listPages = new ListPages(s.config);
  const detailOf = async (principal: Principal, id: string, now: number): Promise<Reply> => {
    const check = await s.checks.get(principal, id);
    return detailReply(check, s.config, now, s.lastProbe(id), await s.checks.blockedBy(check));
  };
  return [
    defineRoute({
      ...base,
      method: 'GET',
      path: '/v1/public/checks',
      summary: 'List checks in dashboard order',
      scope: 'checks:read',
      idempotency: 'none',
      query: ListChecksQuery,
      responses: { 200: CheckListResponse, ...errorsFor(400, 401, 403, 429) },
      handler: ({ principal, query }) => {
        const request = { limit: query.limit ?? 25, page: query.page ?? 1, cursor: query.cursor, includeTotal: query.includeTotal ?? false };
        const access = principal.access ? JSON.stringify(principal.access) : '';
        const tags = query.tag ?? [];
        const key = `${principal.account.id} ${access} ${query.status ?? ''} ${request.limit} ${request.page} ${request.cursor ?? ''} ${request.includeTotal} ${tags.length ? JSON.stringify(tags) : ''}`;
        return listPages.reply(key, s.checks.version(), () => s.checks.list(principal, { status: query.status, tags }, request));
      },
    }),
    defineRoute({
      ...base,
      method: 'POST',
      path: '/v1/public/checks',
      summary: 'Create a check (Idempotency-Key required)',
      scope: 'checks:write',
      idempotency: 'required',
      transaction: true,
      body: CreateCheckBody,
      responses: { 201: CreatedResponse, ...errorsFor(400, 401, 403, 409, 413, 422, 429) },
      precheck: ({ principal, body }) => s.checks.checkTarget(principal, null, body),
      authorize: ({ principal, body }) => s.checks.requireCreateAccess(principal, body.folder ?? null),
      handler: async ({ principal, body }) => ok({ data: await s.checks.create(principal, body) }, 201),
    }),
    defineRoute({
      ...base,
      method: 'GET',
      path: '/v1/public/checks/:id',
      summary: 'Get one check',
      scope: 'checks:read',
      idempotency: 'none',
      responses: { 200: CheckDetailResponse, ...errorsFor(401, 403, 404, 429) },
      handler: ({ principal, params, now }) => {
        // A hot path: answered at once where the store reads at once (SQLite) and nothing blocks the check.
        const check = s.checks.readableNow(principal, params.id!);
        if (check === undefined || check.dependsOn.length > 0) return detailOf(principal, params.id!, now);
        return detailReply(check, s.config, now, s.lastProbe(check.id));
      },
    }),
    defineRoute({
      ...base,
      method: 'PATCH',
      path: '/v1/public/checks/:id',
      summary: 'Update a check; only included fields change',
      scope: 'checks:write',
      idempotency: 'none',
      body: UpdateCheckBody,
      responses: { 200: SuccessResponse, ...errorsFor(400, 401, 403, 404, 409, 429) },
      precheck: ({ principal, params, body }) => s.checks.checkTarget(principal, params.id!, body),
      handler: async ({ principal, params, body }) => {
        await s.checks.update(principal, params.id!, body);
        return ok({ data: { success: true } });
      },
    }),
    defineRoute({
      ...base,
      method: 'DELETE',
      path: '/v1/public/checks/:id',
      summary: 'Delete a check and its history',
      scope: 'checks:delete',
      idempotency: 'none',
      responses: { 200: SuccessResponse, ...errorsFor(401, 403, 404, 429) },
      handler: async ({ principal, params }) => {
        await s.checks.remove(principal, params.id!);
        return ok({ data: { success: true } });
      },
    }),
    defineRoute({
      ...base,
      method: 'POST',
      path: '/v1/public/checks/:id/toggle',
      summary: 'Pause or resume a check',
      scope: 'checks:write',
      idempotency: 'optional',
      transaction: true,
      body: ToggleBody,
      responses: { 200: ToggleResponse, ...errorsFor(400, 401, 403, 404, 422, 429) },
      authorize: ({ principal, params }) => s.checks.get(principal, params.id!),
      handler: async ({ principal, params, body }) => ok({ data: await s.checks.toggle(principal, params.id!, body.disabled, body.reason) }),
    }),
    defineRoute({
      ...base,
      method: 'POST',
      path: '/v1/public/checks/:id/maintenance',
      summary: 'Turn maintenance mode on (optionally until a time) or off',
      scope: 'checks:write',
      idempotency: 'optional',
      transaction: true,
      body: MaintenanceBody,
      responses: { 200: MaintenanceResponse, ...errorsFor(400, 401, 403, 404, 422, 429) },
      authorize: ({ principal, params }) => s.checks.get(principal, params.id!),
      handler: async ({ principal, params, body }) =>
        ok({ data: await s.checks.setMaintenance(principal, params.id!, body.enabled, body.until) }),
    }),
  ];
}
