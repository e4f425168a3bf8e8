import { Type } from '@sinclair/typebox';
import { ErrorBody, Success } from '../core/schemas/common.js';
import {
  CreateIncidentBody, IncidentListQuery, IncidentListResponse, IncidentResponse, IncidentUpdateBody, UpdateIncidentBody,
} from '../core/schemas/incidents.js';
import type { Incident } from '../store/incidents.js';
import { defineRoute, ok, type Route } from './http-types.js';
import { publicApi } from './route-presets.js';
import type { PageServices } from './services.js';

const errorsFor = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorBody]));
// The page's own rules: its account, and no key restricted to some checks or folders.
const base = { ...publicApi, allowRestricted: false, tag: 'status-pages' } as const;
const INCIDENTS = '/v1/public/status-pages/:id/incidents';
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The API form of an incident (issue 29). */
export function incidentJson(i: Incident) {
  return {
    id: i.id,
    statusPageId: i.pageId,
    title: i.title,
    impact: i.impact,
    status: i.status,
    checkIds: i.checkIds,
    updates: i.updates.map((u) => ({ id: u.id, status: u.status, message: u.message, at: iso(u.at)! })),
    automatic: i.autoCheckId !== null,
    createdAt: iso(i.createdAt)!,
    updatedAt: iso(i.updatedAt)!,
    resolvedAt: iso(i.resolvedAt),
  };
}

/** Incidents of a status page and their updates (issue 29): handlers call the service only. */
export function incidentRoutes(s: PageServices): Route[] {
  return [
    defineRoute({
      ...base,
      method: 'GET',
      path: INCIDENTS,
      summary: 'List the incidents of a status page, newest first',
      scope: 'checks:read',
      idempotency: 'none',
      query: IncidentListQuery,
      responses: { 200: IncidentListResponse, ...errorsFor(400, 401, 403, 404, 429) },
      handler: async ({ principal, params, query }) => {
        const found = await s.incidents.list(principal, params.id!, query);
        return ok({ data: found.data.map(incidentJson), meta: { page: found.page, limit: found.limit, total: found.total } });
      },
    }),
    defineRoute({
      ...base,
      method: 'POST',
      path: INCIDENTS,
      summary: 'Open an incident on a status page, with its first update',
      scope: 'checks:write',
      idempotency: 'optional',
      body: CreateIncidentBody,
      responses: { 201: IncidentResponse, ...errorsFor(400, 401, 403, 404, 422, 429) },
      handler: async ({ principal, params, body }) => ok({ data: incidentJson(await s.incidents.create(principal, params.id!, body)) }, 201),
    }),
    defineRoute({
      ...base,
      method: 'GET',
      path: `${INCIDENTS}/:incidentId`,
      summary: 'Get an incident with its timeline',
      scope: 'checks:read',
      idempotency: 'none',
      responses: { 200: IncidentResponse, ...errorsFor(401, 403, 404, 429) },
      handler: async ({ principal, params }) => ok({ data: incidentJson(await s.incidents.get(principal, params.id!, params.incidentId!)) }),
    }),
    defineRoute({
      ...base,
      method: 'PATCH',
      path: `${INCIDENTS}/:incidentId`,
      summary: 'Change an incident\'s title, impact or affected checks (its status moves with updates)',
      scope: 'checks:write',
      idempotency: 'none',
      body: UpdateIncidentBody,
      responses: { 200: IncidentResponse, ...errorsFor(400, 401, 403, 404, 429) },
      handler: async ({ principal, params, body }) =>
        ok({ data: incidentJson(await s.incidents.update(principal, params.id!, params.incidentId!, body)) }),
    }),
    defineRoute({
      ...base,
      method: 'DELETE',
      path: `${INCIDENTS}/:incidentId`,
      summary: 'Delete an incident and its timeline',
      scope: 'checks:write',
      idempotency: 'none',
      responses: { 200: Type.Object({ data: Success }), ...errorsFor(401, 403, 404, 429) },
      handler: async ({ principal, params }) => {
        await s.incidents.remove(principal, params.id!, params.incidentId!);
        return ok({ data: { success: true } });
      },
    }),
    defineRoute({
      ...base,
      method: 'POST',
      path: `${INCIDENTS}/:incidentId/updates`,
      summary: 'Post an update to an incident\'s timeline; status resolved closes it',
      scope: 'checks:write',
      idempotency: 'optional',
      body: IncidentUpdateBody,
      responses: { 201: IncidentResponse, ...errorsFor(400, 401, 403, 404, 409, 422, 429) },
      handler: async ({ principal, params, body }) =>
        ok({ data: incidentJson(await s.incidents.addUpdate(principal, params.id!, params.incidentId!, body)) }, 201),
    }),
  ];
}
