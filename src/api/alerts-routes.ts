import {
  CreateWebhookBody, EmailSettingsPatchBody, EmailSettingsResponse, EmailSettingsUpdateResponse, EmailTestFailedBody,
  EmailTestResponse, DeliveryListResponse, DeliveryQuerySchema, DeliveryResponse, UpdateWebhookBody, WebhookDeletedResponse, WebhookResponse, WebhookListResponse, WebhookTestResponse,
} from '../core/schemas/alerts.js';
import { ErrorBody } from '../core/schemas/common.js';
import { emailSettingsUpdateView, emailSettingsView, webhookListItem, webhookView } from '../alerts/alert-views.js';
import { defineRoute, ok, type Route } from './http-types.js';
import { publicApi } from './route-presets.js';
import type { AlertServices } from './services.js';

const errorsFor = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorBody]));
// Spec 4.8, 4.9: every alert endpoint needs an unrestricted key (403 for a restricted one).
const base = { ...publicApi, tag: 'alerts', allowRestricted: false } as const;

export function alertsRoutes(s: AlertServices): Route[] {
  return [
    defineRoute({
      ...base,
      method: 'GET',
      path: '/v1/public/alerts/email',
      summary: 'Email alert settings; data is null until they are set up',
      scope: 'alerts:read',
      idempotency: 'none',
      responses: { 200: EmailSettingsResponse, ...errorsFor(401, 403, 429) },
      handler: async ({ principal }) => {
        const settings = await s.emailAlerts.get(principal.account.id);
        return ok({ data: settings ? emailSettingsView(settings) : null });
      },
    }),
    defineRoute({
      ...base,
      method: 'PATCH',
      path: '/v1/public/alerts/email',
      summary: 'Change email alert settings; only fields sent change (the first call needs recipients)',
      scope: 'alerts:write',
      idempotency: 'none',
      body: EmailSettingsPatchBody,
      responses: { 200: EmailSettingsUpdateResponse, ...errorsFor(400, 401, 403, 413, 429) },
      handler: async ({ principal, body }) => ok({ data: emailSettingsUpdateView(await s.emailAlerts.update(principal.account.id, body, principal.access, principal)) }),
    }),
    defineRoute({
      ...base,
      method: 'POST',
      path: '/v1/public/alerts/email/test',
      summary: 'Send a test alert email to every recipient (502 lists who received it when some sends fail)',
      scope: 'alerts:write',
      idempotency: 'optional',
      responses: { 200: EmailTestResponse, ...errorsFor(401, 403, 412, 429, 503), 502: EmailTestFailedBody },
      handler: async ({ principal }) => ok({ data: await s.emailAlerts.test(principal.account) }),
    }),
    defineRoute({
      ...base,
      method: 'GET',
      path: '/v1/public/alerts/webhooks',
      summary: 'List webhooks (URLs cut to scheme and host)',
      scope: 'alerts:read',
      idempotency: 'none',
      responses: { 200: WebhookListResponse, ...errorsFor(401, 403, 429) },
      handler: async ({ principal }) => ok({ data: (await s.webhooks.list(principal.account.id)).map(webhookListItem) }),
    }),
    defineRoute({
      ...base,
      method: 'POST',
      path: '/v1/public/alerts/webhooks',
      summary: 'Create a webhook for every check of the account, or only for checkIds and folders',
      scope: 'alerts:write',
      idempotency: 'optional',
      body: CreateWebhookBody,
      responses: { 201: WebhookResponse, ...errorsFor(400, 401, 403, 409, 413, 422, 429) },
      handler: async ({ principal, body }) => ok({ data: webhookView(await s.webhooks.create(principal.account, body, principal.access, principal)) }, 201),
    }),
    defineRoute({
      ...base,
      method: 'PATCH',
      path: '/v1/public/alerts/webhooks/:id',
      summary: 'Change a webhook; only the fields sent change, with the rules of create (secret null removes it)',
      scope: 'alerts:write',
      idempotency: 'none',
      body: UpdateWebhookBody,
      responses: { 200: WebhookResponse, ...errorsFor(400, 401, 403, 404, 409, 413, 429) },
      handler: async ({ principal, params, body }) => ok({ data: webhookView(await s.webhooks.update(principal.account, params.id!, body, principal.access, principal)) }),
    }),
    defineRoute({
      ...base,
      method: 'POST',
      path: '/v1/public/alerts/webhooks/:id/test',
      summary: "Send a test message in the webhook's own format; 502 when it fails or only the dashboard can test the type",
      scope: 'alerts:write',
      idempotency: 'optional',
      responses: { 200: WebhookTestResponse, ...errorsFor(400, 401, 403, 404, 429, 502) },
      handler: async ({ principal, params }) => ok({ data: await s.webhooks.test(principal.account, params.id!) }),
    }),
    defineRoute({
      ...base,
      method: 'DELETE',
      path: '/v1/public/alerts/webhooks/:id',
      summary: 'Delete a webhook; its pending deliveries are cancelled',
      scope: 'alerts:write',
      idempotency: 'none',
      responses: { 200: WebhookDeletedResponse, ...errorsFor(400, 401, 403, 404, 429) },
      handler: async ({ principal, params }) => ok({ data: await s.webhooks.delete(principal.account, params.id!, principal) }),
    }),
    // Issue 17: the delivery log. A restricted key sees (and retries) only its checks' deliveries.
    defineRoute({
      ...base,
      allowRestricted: true,
      method: 'GET',
      path: '/v1/public/alerts/deliveries',
      summary: 'Alert deliveries, newest first: event, target (URLs cut), attempts, next attempt, last status or error',
      scope: 'alerts:read',
      idempotency: 'none',
      query: DeliveryQuerySchema,
      responses: { 200: DeliveryListResponse, ...errorsFor(400, 401, 403, 429) },
      handler: async ({ principal, query }) =>
        ok(await s.deliveries.list(principal.account.id, principal.access, query, {
          limit: query.limit ?? 25,
          page: query.page ?? 1,
          cursor: query.cursor,
          includeTotal: query.includeTotal ?? false,
        })),
    }),
    defineRoute({
      ...base,
      allowRestricted: true,
      method: 'POST',
      path: '/v1/public/alerts/deliveries/:id/retry',
      summary: 'Queue a failed delivery again, due now, with a new retry window (409 unless it failed)',
      scope: 'alerts:write',
      idempotency: 'optional',
      responses: { 200: DeliveryResponse, ...errorsFor(400, 401, 403, 404, 409, 429) },
      authorize: ({ principal, params }) => s.deliveries.requireAccess(principal.account.id, principal.access, params.id!),
      handler: async ({ principal, params }) => ok({ data: await s.deliveries.retry(principal.account.id, principal.access, params.id!, principal) }),
    }),
  ];
}
