import { Type } from '@sinclair/typebox';
import { openApiDocument } from './openapi.js';
import { defineRoute, ok, type Route } from './http-types.js';
import { VERSION } from '../version.js';

/** The OpenAPI document of every other route, built once from the same table. */
export function metaRoutes(all: () => readonly Route[], serverUrl: string): Route[] {
  let document: unknown = null;
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/openapi.json',
      summary: 'This API as an OpenAPI 3.1 document',
      tag: 'meta',
      auth: 'none',
      allowRestricted: true,
      rateLimit: 'none',
      idempotency: 'none',
      errorShape: 'standard',
      responses: { 200: Type.Object({ openapi: Type.String() }, { additionalProperties: true }) },
      handler: () => ok((document ??= openApiDocument(all(), { version: VERSION, serverUrl }))),
    }),
  ];
}
