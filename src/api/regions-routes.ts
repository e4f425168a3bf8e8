import { Type } from '@sinclair/typebox';
import { ErrorBody } from '../core/schemas/common.js';
import { defineRoute, ok, type Route } from './http-types.js';
import type { MonitoringServices } from './services.js';
import { publicApi } from './route-presets.js';

const Region = Type.Object({
  id: Type.String({ description: 'Use as checkRegionOverride' }),
  nodes: Type.Integer({ description: 'Prober nodes registered in the region' }),
  connected: Type.Integer({ description: 'Prober nodes connected now' }),
  online: Type.Boolean({ description: 'Probes run there now (the central’s region always)' }),
});

export function regionsRoutes(s: MonitoringServices): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/public/regions',
      summary: 'Regions a check can be pinned to (checkRegionOverride), with their prober nodes',
      tag: 'checks',
      ...publicApi,
      scope: 'checks:read',
      idempotency: 'none',
      responses: { 200: Type.Object({ data: Type.Array(Region) }), 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
      handler: async () => ok({ data: await s.regions() }),
    }),
  ];
}
