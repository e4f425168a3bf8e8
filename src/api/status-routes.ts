import { createHash } from 'node:crypto';
import { statusObject } from '../core/views.js';
import { ErrorBody } from '../core/schemas/common.js';
import { StatusResponse } from '../core/schemas/status.js';
import { defineRoute, jsonReply, type Route } from './http-types.js';
import type { MonitoringServices } from './services.js';
import { publicApi } from './route-presets.js';

/** Does If-None-Match name this ETag (a list, weak or strong, or `*`)? */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

export function statusRoutes(s: MonitoringServices): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/public/checks/status',
      summary: 'Every check’s current status in dashboard order (ETag / If-None-Match)',
      tag: 'status',
      ...publicApi,
      scope: 'checks:read',
      rateLimit: 'status',
      idempotency: 'none',
      responses: { 200: StatusResponse, 304: null, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
      handler: async ({ principal, req, now }) => {
        const checks = await s.checks.all(principal);
        const data = [];
        for (const c of checks) data.push(statusObject(c, now, await s.checks.blockedBy(c)));
        const text = JSON.stringify({ data, meta: { total: checks.length } });
        const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
        const headers = { ETag: etag, 'Cache-Control': 'no-cache' };
        if (etagMatches(req.headers['if-none-match'], etag)) return { status: 304, headers };
        return { ...jsonReply(text), headers };
      },
    }),
  ];
}
