import { historyEntry } from '../core/views.js';
import { ErrorBody } from '../core/schemas/common.js';
import { HistoryQuerySchema, HistoryResponse } from '../core/schemas/history.js';
import { defineRoute, ok, type Route } from './http-types.js';
import type { MonitoringServices } from './services.js';
import { publicApi } from './route-presets.js';

export function historyRoutes(s: MonitoringServices): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/public/checks/:id/history',
      summary: 'Probe results, heartbeat pings and events of a check, newest first',
      tag: 'history',
      ...publicApi,
      scope: 'checks:read',
      idempotency: 'none',
      query: HistoryQuerySchema,
      responses: { 200: HistoryResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody },
      handler: async ({ principal, params, query }) => {
        const page = await s.history.list(principal, params.id!, query, {
          limit: query.limit ?? 25,
          page: query.page ?? 1,
          cursor: query.cursor,
          includeTotal: query.includeTotal ?? false,
        });
        return ok({ data: page.data.map((row) => historyEntry(row, page.checkId)), meta: page.meta });
      },
    }),
  ];
}
