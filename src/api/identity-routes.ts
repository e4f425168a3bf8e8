import { ErrorBody } from '../core/schemas/common.js';
import { IdentityLinkResponse, IdentityListResponse } from '../core/schemas/sign-in.js';
import { OIDC_FLOW_MS, SsoRefused } from '../people/oidc-sign-in.js';
import { errors } from '../domain/errors.js';
import type { Principal } from '../core/principal.js';
import type { Person } from '../people/sign-in-people.js';
import type { SignInWays } from '../people/sign-in-ways.js';
import { defineRoute, ok, type Route } from './http-types.js';
import { publicApi } from './route-presets.js';
import { oidcFlowCookie } from './sign-in-routes.js';

const MEMBER = { ...publicApi, allowRestricted: false, idempotency: 'none', tag: 'dashboard' } as const;
const IDENTITIES = '/v1/public/me/identities';

/** A member's single sign-on identities (issue 34 item 3): linked, listed and removed by the member. */
export function identityRoutes(s: SignInWays): Route[] {
  const member = async (principal: Principal): Promise<Person> => {
    const person = await s.people.of(principal);
    if (!person) throw errors.forbidden('Single sign-on identities belong to members: sign in to the dashboard as yourself (not with an API key) to manage yours');
    return person;
  };
  return [
    defineRoute({
      ...MEMBER,
      method: 'GET',
      path: IDENTITIES,
      summary: "The signed-in member's identities at the OpenID provider: single sign-on finds them by these, never by email",
      responses: { 200: IdentityListResponse, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
      handler: async ({ principal }) => ok({ data: await s.identities.list(await member(principal)) }, 200, { 'Cache-Control': 'no-store' }),
    }),
    defineRoute({
      ...MEMBER,
      method: 'POST',
      path: `${IDENTITIES}/link`,
      summary: "Starts linking the signed-in member's account at the OpenID provider, whatever its email: the provider's URL to open; its callback links and returns to the Security page",
      responses: { 200: IdentityLinkResponse, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 429: ErrorBody, 502: ErrorBody },
      handler: async ({ principal }) => {
        const person = await member(principal);
        if (!s.oidc.enabled) throw errors.notFound('Single sign-on is not configured on this server (auth.oidc.issuer)');
        const { location, flowToken } = await s.oidc.start(null, person).catch((err: unknown) => {
          throw err instanceof SsoRefused ? errors.badGateway(err.message) : err;
        });
        return ok({ data: { location } }, 200, { 'Cache-Control': 'no-store', 'Set-Cookie': oidcFlowCookie(flowToken, OIDC_FLOW_MS, s.secureCookies) });
      },
    }),
    defineRoute({
      ...MEMBER,
      method: 'DELETE',
      path: `${IDENTITIES}/:id`,
      summary: 'Unbinds one of the member’s identities (409 while it is their only way to sign in: no password, passkey or email link)',
      responses: { 204: null, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 429: ErrorBody },
      handler: async ({ principal, params }) => {
        await s.identities.remove(await member(principal), params.id!);
        return { status: 204 };
      },
    }),
  ];
}
