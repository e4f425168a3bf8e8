import { Type } from '@sinclair/typebox';
import { ErrorBody } from '../core/schemas/common.js';
import { RangeErrorBody, StatsQuerySchema, StatsResponse } from '../core/schemas/stats.js';
import { defineRoute, ok, type Route } from './http-types.js';
import type { StatsService } from '../core/stats-service.js';
import { publicApi } from './route-presets.js';

export function statsRoutes(services: { stats: StatsService }): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/public/checks/:id/stats',
      summary: 'Uptime, response times, phase timings and incidents of a check over one range, or over several named ranges',
      tag: 'stats',
      ...publicApi,
      scope: 'checks:read',
      idempotency: 'none',
      query: StatsQuerySchema,
      responses: {
        200: StatsResponse,
        400: Type.Union([ErrorBody, RangeErrorBody]),
        401: ErrorBody,
        403: ErrorBody,
        404: ErrorBody,
        429: ErrorBody,
      },
      handler: async ({ principal, params, query }) => ok({ data: await services.stats.forQuery(principal, params.id!, query) }),
    }),
  ];
}
