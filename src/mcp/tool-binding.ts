import type { TSchema } from '@sinclair/typebox';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Route } from '../api/http-types.js';
import type { ToolSpec } from './tool-table.js';

/** The argument that travels as the Idempotency-Key header. */
export const IDEMPOTENCY_ARG = 'idempotencyKey';
/** The argument that travels as the body of a route that reads its body as text (`rawBody`). */
export const RAW_BODY_ARG = 'file';

export interface BoundTool {
  spec: ToolSpec;
  route: Route;
  pathParams: string[];
  definition: Tool;
}

/**
 * Pairs each spec with its route in the final table. A spec whose route is absent (a capability
 * not wired on this node) is left out rather than failing the server.
 */
export function bindTools(routes: readonly Route[], specs: readonly ToolSpec[]): BoundTool[] {
  const bound: BoundTool[] = [];
  for (const spec of specs) {
    const route = routes.find((r) => r.method === spec.method && r.path === spec.path);
    if (!route) continue;
    const pathParams = route.path.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1));
    bound.push({ spec, route, pathParams, definition: definitionOf(spec, route, pathParams) });
  }
  return bound;
}

function definitionOf(spec: ToolSpec, route: Route, pathParams: string[]): Tool {
  const readOnly = route.method === 'GET';
  return {
    name: spec.name,
    title: spec.title,
    description: [route.summary, spec.note].filter(Boolean).join('. '),
    inputSchema: inputSchemaOf(spec, route, pathParams),
    annotations: {
      title: spec.title,
      readOnlyHint: readOnly,
      ...(readOnly ? {} : { destructiveHint: spec.destructive ?? false, idempotentHint: spec.idempotent ?? false }),
      openWorldHint: spec.openWorld ?? false,
    },
  };
}

interface ObjectSchema {
  properties?: Record<string, unknown>;
  required?: string[];
  additionalProperties?: unknown;
}

/** Path parameters, then the route's own body or query schema, then the idempotency key. */
function inputSchemaOf(spec: ToolSpec, route: Route, pathParams: string[]): Tool['inputSchema'] {
  const properties: Record<string, object> = {};
  const required: string[] = [];
  for (const name of pathParams) {
    properties[name] = { type: 'string', minLength: 1, description: spec.params?.[name] ?? name };
    required.push(name);
  }
  if (route.rawBody) {
    properties[RAW_BODY_ARG] = { type: 'string', minLength: 1, description: `${route.rawBody.description} (the whole text)` };
    required.push(RAW_BODY_ARG);
  }
  const source = plainSchema(route.body ?? route.query);
  for (const [name, schema] of Object.entries(source.properties ?? {})) {
    // Read-only record fields are accepted so a GET record can go back as a PATCH; a tool caller never needs them.
    if ((schema as { readOnly?: boolean }).readOnly) continue;
    if (name in properties) throw new Error(`MCP tool ${spec.name}: argument ${name} is both a path parameter and a field`);
    properties[name] = schema as object;
  }
  required.push(...(source.required ?? []));
  if (route.idempotency !== 'none') {
    properties[IDEMPOTENCY_ARG] = {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description: 'Sent as the Idempotency-Key header: a retry with the same key returns the first answer instead of acting twice',
    };
    if (route.idempotency === 'required') required.push(IDEMPOTENCY_ARG);
  }
  return {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    ...(route.body || route.rawBody || !route.query ? { additionalProperties: source.additionalProperties ?? false } : {}),
  };
}

/** The JSON Schema of a TypeBox schema: its JSON form, without TypeBox's symbol keys or $id. */
function plainSchema(schema: TSchema | undefined): ObjectSchema {
  if (!schema) return {};
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(schema)) as ObjectSchema & { $id?: string };
  return rest;
}
