import { accountView } from '../core/views.js';
import { AccountResponse } from '../core/schemas/account.js';
import { ErrorBody } from '../core/schemas/common.js';
import { defineRoute, ok, type Route } from './http-types.js';
import type { AccountServices } from './services.js';
import { publicApi } from './route-presets.js';

export function accountRoutes(s: AccountServices): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/public/account',
      summary: 'The account, its limits and usage, and the calling credential',
      tag: 'account',
      ...publicApi,
      scope: 'checks:read',
      idempotency: 'none',
      responses: { 200: AccountResponse, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
      handler: async ({ principal }) => {
        const id = principal.account.id;
        return ok({ data: accountView(principal, s.config, (await s.accounts.usage(id)).checks, await s.alertSummary(id)) });
      },
    }),
  ];
}
