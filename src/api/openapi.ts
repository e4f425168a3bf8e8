import type { TSchema } from '@sinclair/typebox';
import type { Route } from './http-types.js';
import { ErrorBody } from '../core/schemas/common.js';

type Json = Record<string, unknown>;

/**
 * The OpenAPI 3.1 document, generated from the route table and its TypeBox schemas (never
 * written by hand): a route added to the table is documented by that alone.
 */
export function openApiDocument(routes: readonly Route[], info: { version: string; serverUrl: string }): Json {
  const components: Record<string, Json> = {};
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    if (route.documented === false) continue;
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route, components);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Vigil API',
      version: info.version,
      description: 'Self-hosted uptime monitoring: checks, history, statistics, status, alerts and heartbeats. '
        + 'A query parameter an operation does not list is a 400 naming it (with the one meant, when close); heartbeat ping URLs take any.',
    },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        bearer: { type: 'http', scheme: 'bearer', description: 'vigil_at_ access token from agent signup' },
      },
    },
  };
}

function operation(route: Route, components: Record<string, Json>): Json {
  const parameters: Json[] = [];
  for (const name of route.path.match(/:(\w+)/g) ?? []) {
    parameters.push({ name: name.slice(1), in: 'path', required: true, schema: { type: 'string' } });
  }
  if (route.query) {
    const q = route.query as unknown as { properties: Record<string, TSchema>; required?: string[] };
    for (const [name, schema] of Object.entries(q.properties)) {
      parameters.push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema: toJsonSchema(schema, components) });
    }
  }
  if (route.idempotency !== 'none') {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: route.idempotency === 'required',
      schema: { type: 'string', maxLength: 256 },
      description: 'Replays the original answer for 24 hours; a different request with the same key is 422',
    });
  }
  const responses: Record<number, TSchema | null> = { ...route.responses };
  // Every route that reads a body can answer 400 (malformed) and 413 (over 1 MiB): the pipeline says so.
  if (route.body && route.errorShape === 'standard') for (const status of [400, 413]) responses[status] ??= ErrorBody;
  const op: Json = {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[^a-zA-Z0-9]+(\w)?/g, (_, c?: string) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    tags: [route.tag],
    responses: Object.fromEntries(
      Object.entries(responses).map(([status, schema]) => [
        status,
        schema === null
          ? { description: description(Number(status)) }
          : { description: description(Number(status)), content: { 'application/json': { schema: toJsonSchema(schema, components) } } },
      ]),
    ),
  };
  if (parameters.length) op.parameters = parameters;
  if (route.body) {
    const type = route.bodyKind === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
    op.requestBody = { required: true, content: { [type]: { schema: toJsonSchema(route.body, components) } } };
  }
  if (route.rawBody) {
    const schema = route.rawBody.schema ? toJsonSchema(route.rawBody.schema, components) : { type: 'string' };
    op.requestBody = {
      required: true,
      description: route.rawBody.description,
      content: Object.fromEntries(route.rawBody.contentTypes.map((type) => [type, { schema }])),
    };
  }
  op.security = route.auth === 'credential' ? [{ apiKey: [] }, { bearer: [] }] : [];
  if (route.scope) op['x-required-scope'] = route.scope;
  return op;
}

/** Plain JSON Schema: TypeBox's symbols dropped, named ($id) schemas moved to components. */
function toJsonSchema(schema: unknown, components: Record<string, Json>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => toJsonSchema(s, components));
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) if (k !== '$id') out[k] = toJsonSchema(v, components);
  const id = (schema as { $id?: string }).$id;
  if (!id) return out;
  components[id] = out;
  return { $ref: `#/components/schemas/${id}` };
}

function description(status: number): string {
  const text: Record<number, string> = {
    200: 'OK', 201: 'Created', 302: 'Found', 304: 'Not Modified', 400: 'Invalid request', 401: 'Missing or invalid credential',
    403: 'Forbidden (scope, restriction or plan)', 404: 'Not found', 409: 'Conflict', 412: 'Precondition failed',
    413: 'Body larger than 1 MiB', 422: 'Idempotency-Key reused with a different request', 429: 'Rate limit exceeded',
    502: 'Upstream failed', 503: 'Unavailable',
  };
  return text[status] ?? 'Response';
}
