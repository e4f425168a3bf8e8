import { Type } from '@sinclair/typebox';
import { ErrorBody } from '../core/schemas/common.js';
import { requireScope } from '../core/principal.js';
import { errors } from '../domain/errors.js';
import { MonitoringFile, monitoringFileJsonSchema } from '../as-code/file-schema.js';
import { planText } from '../as-code/plan-text.js';
import type { Principal } from '../core/principal.js';
import type { HttpRequest } from './http-types.js';
import { defineRoute, ok, type Route } from './http-types.js';
import type { AsCodeServices } from './services.js';
import { publicApi } from './route-presets.js';

/** YAML or JSON, told by the content type (JSON is YAML: one parser reads both, keeping line and column for errors). */
export const CONFIG_CONTENT_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'application/json', 'text/plain'] as const;

const ConfigQuery = Type.Object({
  prune: Type.Optional(Type.Boolean({ default: false, description: 'Delete the checks, webhooks, status pages and maintenance windows of the account that the file does not name' })),
});

const FieldChange = Type.Object({
  field: Type.String(),
  from: Type.Optional(Type.Unknown({ description: 'Left out for secrets and long values' })),
  to: Type.Optional(Type.Unknown()),
});
const Section = Type.Union(['checks', 'webhooks', 'email', 'statusPages', 'maintenanceWindows'].map((s) => Type.Literal(s)));
const Counts = Type.Record(Type.String(), Type.Integer());
const PlanObject = Type.Object(
  {
    changes: Type.Array(
      Type.Object({
        action: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('delete')]),
        section: Section,
        key: Type.String(),
        renamedFrom: Type.Optional(Type.String()),
        fields: Type.Array(FieldChange),
      }),
    ),
    unchanged: Counts,
    notInFile: Counts,
    warnings: Type.Array(Type.String(), { description: 'What is allowed but likely a mistake, such as two checks of one name' }),
    summary: Type.Object({ create: Type.Integer(), update: Type.Integer(), delete: Type.Integer(), unchanged: Type.Integer() }),
  },
  { $id: 'ConfigPlan' },
);
const PlanResponse = Type.Object({
  data: Type.Object({
    plan: PlanObject,
    text: Type.String({ description: 'The plan as `vigil apply` prints it' }),
    applied: Type.Boolean({ description: 'True when the apply committed changes (always false for a plan)' }),
    created: Type.Array(Type.Object({ section: Type.String(), key: Type.String(), id: Type.String() })),
  }),
});
const ConfigError = Type.Object({
  error: Type.Object({
    code: Type.Integer(),
    message: Type.String(),
    path: Type.Optional(Type.String({ description: 'Where in the file, e.g. checks.api-health.checkFrequency' })),
    line: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    column: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  }),
});

const base = { ...publicApi, tag: 'config', allowRestricted: false } as const;
const configErrors = { 400: ConfigError, 401: ErrorBody, 403: ConfigError, 409: ConfigError, 413: ErrorBody, 422: ErrorBody, 429: ErrorBody };

function fileOf(req: HttpRequest): string {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (!(CONFIG_CONTENT_TYPES as readonly string[]).includes(type)) {
    throw errors.badRequest(`Content-Type must be application/yaml or application/json (got ${type || 'none'})`);
  }
  return req.body.toString('utf8');
}

/** Both scopes: a file speaks of checks and of alert settings alike. */
function authorize(principal: Principal): void {
  requireScope(principal, 'checks:write');
  requireScope(principal, 'alerts:write');
}

/**
 * Monitoring as code over HTTP (issue 30), for CI runners without the binary: the same plan and
 * apply as `vigil apply`, and the file's JSON Schema for editors. Secrets in the file are
 * `${NAME}` references; over HTTP there is no environment, so a file sent here carries their
 * values (the CI job substitutes them, docs/config-as-code.md) or names none.
 */
export function configRoutes(s: AsCodeServices): Route[] {
  let schema: unknown = null;
  const rawBody = { contentTypes: CONFIG_CONTENT_TYPES, description: 'The monitoring file, YAML or JSON', schema: MonitoringFile };
  const answer = (result: Awaited<ReturnType<typeof s.asCode.plan>>, prune: boolean) =>
    ok({ data: { ...result, text: planText(result.plan, { prune }) } });
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/config-schema.json',
      summary: 'JSON Schema of the monitoring file (for editors: # yaml-language-server: $schema=<this URL>)',
      tag: 'config',
      auth: 'none',
      allowRestricted: true,
      rateLimit: 'none',
      idempotency: 'none',
      errorShape: 'standard',
      responses: { 200: Type.Object({ $schema: Type.String() }, { additionalProperties: true }) },
      handler: () => ok((schema ??= monitoringFileJsonSchema(s.asCode.schemaUrl()))),
    }),
    defineRoute({
      ...base,
      method: 'POST',
      path: '/v1/public/config/plan',
      summary: 'What applying a monitoring file would change, nothing written (scopes checks:write and alerts:write)',
      scope: 'checks:write',
      idempotency: 'none',
      query: ConfigQuery,
      rawBody,
      responses: { 200: PlanResponse, ...configErrors },
      handler: async ({ req, principal, query }) => {
        authorize(principal);
        const prune = query.prune ?? false;
        return answer(await s.asCode.plan(principal, fileOf(req), { prune, env: {} }), prune);
      },
    }),
    defineRoute({
      ...base,
      method: 'POST',
      path: '/v1/public/config/apply',
      summary: 'Apply a monitoring file in one unit of work, all of it or nothing (scopes checks:write and alerts:write; checks:delete to prune checks)',
      scope: 'checks:write',
      idempotency: 'optional',
      query: ConfigQuery,
      rawBody,
      responses: { 200: PlanResponse, ...configErrors },
      authorize: ({ principal }) => authorize(principal),
      handler: async ({ req, principal, query }) => {
        authorize(principal);
        const prune = query.prune ?? false;
        return answer(await s.asCode.apply(principal, fileOf(req), { prune, env: {} }), prune);
      },
    }),
  ];
}
