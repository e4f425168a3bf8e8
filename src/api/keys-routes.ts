import { ErrorBody } from '../core/schemas/common.js';
import { ApiKeyListResponse, CreateKeyBody, CreatedKeyResponse } from '../core/schemas/keys.js';
import type { KeySummary } from '../core/accounts-service.js';
import type { Principal } from '../core/principal.js';
import { defineRoute, ok, type Route } from './http-types.js';
import { publicApi } from './route-presets.js';
import type { AccountServices } from './services.js';

const errorsFor = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorBody]));
// Keys are managed only by a credential with every scope, unrestricted (the service checks it).
const base = { ...publicApi, allowRestricted: false, tag: 'keys' } as const;
const KEYS = '/v1/public/keys';
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The API keys API (spec 5.3: created by choosing scopes, revoked at once); handlers call the service only. */
export function keyRoutes(s: AccountServices): Route[] {
  const json = (key: KeySummary, principal: Principal) => ({
    id: key.id,
    name: key.name,
    status: key.status,
    scopes: key.scopes,
    access: key.access,
    expiresAt: iso(key.expiresAt),
    createdAt: iso(key.createdAt)!,
    current: principal.kind === 'api_key' && principal.credentialId === key.id,
  });
  return [
    defineRoute({
      ...base,
      method: 'GET',
      path: KEYS,
      summary: 'List the account’s API keys (never their secrets), revoked ones included',
      idempotency: 'none',
      responses: { 200: ApiKeyListResponse, ...errorsFor(401, 403, 429) },
      handler: async ({ principal }) => {
        const keys = await s.accounts.keysOf(principal);
        return ok({ data: keys.map((k) => json(k, principal)), meta: { total: keys.length } }, 200, { 'Cache-Control': 'no-store' });
      },
    }),
    defineRoute({
      ...base,
      method: 'POST',
      path: KEYS,
      summary: 'Create an API key with scopes and an optional restriction and expiry; the answer holds its secret, shown this once',
      // A replay would have to keep the secret to answer with it: creates are not replayed.
      idempotency: 'none',
      body: CreateKeyBody,
      responses: { 201: CreatedKeyResponse, ...errorsFor(400, 401, 403, 409, 429) },
      handler: async ({ principal, body }) => {
        const { secret, key } = await s.accounts.createKeyFor(principal, body);
        return ok({ data: { ...json(key, principal), key: secret } }, 201, { 'Cache-Control': 'no-store' });
      },
    }),
    defineRoute({
      ...base,
      method: 'DELETE',
      path: `${KEYS}/:id`,
      summary: 'Revoke an API key: requests with it get 401 at once; revocation is final',
      idempotency: 'none',
      responses: { 204: null, ...errorsFor(401, 403, 404, 429) },
      handler: async ({ principal, params }) => {
        await s.accounts.revokeKeyFor(principal, params.id!);
        return { status: 204 };
      },
    }),
  ];
}
