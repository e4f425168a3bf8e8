import { Type } from '@sinclair/typebox';
import { ErrorBody } from '../core/schemas/common.js';
import { defineRoute, type Route } from './http-types.js';
import { publicApi } from './route-presets.js';
import type { OperationServices } from './services.js';

const open = { tag: 'operations', auth: 'none', allowRestricted: true, rateLimit: 'none', idempotency: 'none', errorShape: 'standard' } as const;
const Check = Type.String({ description: '"ok", or what is wrong' });
const ReadyBody = Type.Object({
  status: Type.String(),
  checks: Type.Object({ store: Check, engine: Check, lease: Type.Optional(Type.String({ description: 'Several centrals only: whether this central holds its lease' })) }),
});

/** What scrapers, load balancers and supervisors ask: `/metrics`, `/healthz`, `/readyz`. */
export function operationsRoutes(s: OperationServices): Route[] {
  return [
    defineRoute({
      ...publicApi,
      tag: 'operations',
      method: 'GET',
      path: '/metrics',
      summary: 'Prometheus metrics of the process and of the checks this key may see',
      scope: 'checks:read',
      idempotency: 'none',
      documented: false,
      responses: { 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
      handler: async ({ principal }) => ({
        status: 200,
        headers: { 'Cache-Control': 'no-store' },
        raw: { contentType: s.metrics.contentType, text: await s.metrics.scrape(principal) },
      }),
    }),
    defineRoute({
      ...open,
      method: 'GET',
      path: '/healthz',
      summary: 'The process is alive (no sign-in)',
      responses: { 200: Type.Object({ status: Type.Literal('ok') }) },
      handler: () => ({ status: 200, headers: { 'Cache-Control': 'no-store' }, body: { status: 'ok' } }),
    }),
    defineRoute({
      ...open,
      method: 'GET',
      path: '/readyz',
      summary: 'The store takes writes, the engine is ticking and, with several centrals, this one holds its lease (503 otherwise; no sign-in)',
      responses: { 200: ReadyBody, 503: ReadyBody },
      handler: () => {
        const report = s.readiness.check();
        return {
          status: report.ready ? 200 : 503,
          headers: { 'Cache-Control': 'no-store' },
          body: { status: report.ready ? 'ready' : 'not_ready', checks: report.checks },
        };
      },
    }),
  ];
}
