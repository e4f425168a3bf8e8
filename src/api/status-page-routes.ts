import { Type } from '@sinclair/typebox';
import { ErrorBody, Success } from '../core/schemas/common.js';
import {
  CreateStatusPageBody, StatusPageListResponse, StatusPageResponse, UpdateStatusPageBody,
} from '../core/schemas/status-pages.js';
import { defineRoute, ok, type Route } from './http-types.js';
import type { StatusPage } from '../store/status-pages.js';
import { publicApi } from './route-presets.js';
import type { PageServices } from './services.js';

const errorsFor = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorBody]));
// A page is the account's public face: keys restricted to some checks do not manage pages.
const base = { ...publicApi, allowRestricted: false, tag: 'status-pages' } as const;
const PAGES = '/v1/public/status-pages';

/** The status pages API (issue 15, beyond the spec): handlers call the service only. */
export function statusPageRoutes(s: PageServices): Route[] {
  const json = (page: StatusPage) => ({
    id: page.id,
    slug: page.slug,
    title: page.title,
    description: page.description,
    checkIds: page.checkIds,
    tags: page.tags,
    customDomain: page.customDomain,
    autoIncidents: page.autoIncidents,
    logoUrl: page.logoUrl,
    accentColor: page.accentColor,
    footerText: page.footerText,
    favicon: page.favicon,
    hidePoweredBy: page.hidePoweredBy,
    webhookSubscriptions: page.webhookSubscriptions,
    embedAllowedOrigins: page.embedAllowedOrigins,
    url: s.statusPages.url(page),
    createdAt: new Date(page.createdAt).toISOString(),
    updatedAt: new Date(page.updatedAt).toISOString(),
  });
  return [
    defineRoute({
      ...base,
      method: 'GET',
      path: PAGES,
      summary: 'List status pages',
      scope: 'checks:read',
      idempotency: 'none',
      responses: { 200: StatusPageListResponse, ...errorsFor(401, 403, 429) },
      handler: async ({ principal }) => {
        const pages = await s.statusPages.list(principal);
        return ok({ data: pages.map(json), meta: { total: pages.length } });
      },
    }),
    defineRoute({
      ...base,
      method: 'POST',
      path: PAGES,
      summary: 'Create a public status page of some of your checks',
      scope: 'checks:write',
      idempotency: 'optional',
      body: CreateStatusPageBody,
      responses: { 201: StatusPageResponse, ...errorsFor(400, 401, 403, 409, 422, 429) },
      handler: async ({ principal, body }) => ok({ data: json(await s.statusPages.create(principal, body)) }, 201),
    }),
    defineRoute({
      ...base,
      method: 'GET',
      path: `${PAGES}/:id`,
      summary: 'Get a status page',
      scope: 'checks:read',
      idempotency: 'none',
      responses: { 200: StatusPageResponse, ...errorsFor(401, 403, 404, 429) },
      handler: async ({ principal, params }) => ok({ data: json(await s.statusPages.get(principal, params.id!)) }),
    }),
    defineRoute({
      ...base,
      method: 'PATCH',
      path: `${PAGES}/:id`,
      summary: 'Update a status page; only included fields change',
      scope: 'checks:write',
      idempotency: 'none',
      body: UpdateStatusPageBody,
      responses: { 200: StatusPageResponse, ...errorsFor(400, 401, 403, 404, 409, 429) },
      handler: async ({ principal, params, body }) => ok({ data: json(await s.statusPages.update(principal, params.id!, body)) }),
    }),
    defineRoute({
      ...base,
      method: 'DELETE',
      path: `${PAGES}/:id`,
      summary: 'Delete a status page (its checks stay)',
      scope: 'checks:write',
      idempotency: 'none',
      responses: { 200: Type.Object({ data: Success }), ...errorsFor(401, 403, 404, 429) },
      handler: async ({ principal, params }) => {
        await s.statusPages.remove(principal, params.id!);
        return ok({ data: { success: true } });
      },
    }),
  ];
}
