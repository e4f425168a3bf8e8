import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { ErrorBody } from '../core/schemas/common.js';
import {
  EmailLinkBody, EmailLinkRedeemBody, EmailLinkResponse, OidcStartQuery, PasskeyCreateBody, PasskeyListResponse, PasskeyPatchBody, PasskeyRegistrationOptionsResponse,
  PasskeyResponse, PasskeySignInBody, PasskeySignInOptionsResponse, SignInMethodsResponse,
} from '../core/schemas/sign-in.js';
import { SessionResponse } from '../core/schemas/dashboard.js';
import { errors } from '../domain/errors.js';
import { OIDC_CALLBACK_PATH, OIDC_FLOW_COOKIE, OIDC_FLOW_MS, OIDC_START_PATH, SsoRefused } from '../people/oidc-sign-in.js';
import type { Principal } from '../core/principal.js';
import type { Person } from '../people/sign-in-people.js';
import { CEREMONIES_PER_MINUTE, type SignInWays } from '../people/sign-in-ways.js';
import { clientOf, sessionOpened } from './dashboard-routes.js';
import { defineRoute, ok, type Reply, type Route } from './http-types.js';
import { publicApi } from './route-presets.js';
import { cookieValue, setCookie } from '../util/cookies.js';

const SIGN_IN = { auth: 'none', allowRestricted: true, rateLimit: 'per-address', idempotency: 'none', errorShape: 'standard', tag: 'dashboard' } as const;
const MEMBER = { ...publicApi, idempotency: 'none', tag: 'dashboard' } as const;

/** The cookie that carries a single sign-on's flow token to the callback (and only there). */
export const oidcFlowCookie = (value: string, maxAgeMs: number, secure: boolean) =>
  setCookie(OIDC_FLOW_COOKIE, value, { path: OIDC_CALLBACK_PATH, maxAgeSeconds: maxAgeMs / 1000, sameSite: 'Lax', secure });

const redirect = (location: string, cookies: string[]): Reply => ({
  status: 302,
  // Set-Cookie pairs ride in one header joined by a newline: the adapter writes each on its own.
  headers: { Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', ...(cookies.length > 0 ? { 'Set-Cookie': cookies.join('\n') } : {}) },
});

/**
 * Passkeys, single sign-on (OpenID Connect) and email links (issue 28): each ends in the same
 * session cookie as POST /v1/public/sessions. A member manages their own passkeys.
 */
export function signInRoutes(s: SignInWays): Route[] {
  const member = async (principal: Principal): Promise<Person> => {
    const person = await s.people.of(principal);
    if (!person) throw errors.forbidden('Passkeys belong to members: sign in to the dashboard as yourself (not with an API key) to manage yours');
    return person;
  };
  /** The ms until this client may start another ceremony (0: now, and it is counted). */
  const ceremonyWait = (address: string) => s.ceremonies.charge(address, CEREMONIES_PER_MINUTE);
  const flowCookie = (value: string, maxAgeMs: number) => oidcFlowCookie(value, maxAgeMs, s.secureCookies);
  return [
    defineRoute({
      ...SIGN_IN,
      // What the sign-in page shows, computed from the config: nothing to spend.
      rateLimit: 'none',
      method: 'GET',
      path: '/v1/public/sessions/methods',
      summary: 'The ways of signing in this server offers (what the sign-in page shows)',
      responses: { 200: SignInMethodsResponse },
      handler: () =>
        ok({
          data: {
            passkey: s.passkeysUsable,
            oidc: s.oidc.enabled ? { name: s.oidc.name, startUrl: OIDC_START_PATH } : null,
            emailLink: s.emailLink.enabled,
          },
        }, 200, { 'Cache-Control': 'no-store' }),
    }),
    defineRoute({
      ...SIGN_IN,
      method: 'POST',
      path: '/v1/public/sessions/passkey/options',
      summary: 'Starts a sign-in with a passkey: the options for navigator.credentials.get() (a challenge good once, for 5 minutes)',
      responses: { 200: PasskeySignInOptionsResponse, 429: ErrorBody },
      handler: async ({ req }) => {
        const wait = ceremonyWait(req.remoteAddress);
        if (wait > 0) throw errors.rateLimited(Math.ceil(wait / 1000));
        return ok({ data: await s.passkeys.signInOptions() }, 200, { 'Cache-Control': 'no-store' });
      },
    }),
    defineRoute({
      ...SIGN_IN,
      method: 'POST',
      path: '/v1/public/sessions/passkey',
      summary: 'Signs in with a passkey: the assertion for the options of POST /sessions/passkey/options; sets the session cookie',
      bodyKind: 'json',
      body: PasskeySignInBody,
      responses: { 201: SessionResponse, 400: ErrorBody, 401: ErrorBody, 429: ErrorBody },
      handler: async ({ body, req }) => {
        const { session } = await s.passkeys.signIn(body.response as unknown as AuthenticationResponseJSON, clientOf(req));
        return sessionOpened(s.sessions, session);
      },
    }),
    defineRoute({
      ...SIGN_IN,
      method: 'POST',
      path: '/v1/public/sessions/email-link',
      summary: 'Emails a one-time sign-in link to a member (when SMTP is configured); the answer is the same for any address',
      bodyKind: 'json',
      body: EmailLinkBody,
      responses: { 202: EmailLinkResponse, 400: ErrorBody, 404: ErrorBody, 429: ErrorBody },
      handler: async ({ body, req }) => {
        const { expiresInMinutes } = await s.emailLink.request(body.email, req.remoteAddress);
        return ok({ data: { sent: true, expiresInMinutes } }, 202);
      },
    }),
    defineRoute({
      ...SIGN_IN,
      method: 'POST',
      path: '/v1/public/sessions/email-link/redeem',
      summary: "Signs in with an emailed link's token (once, within 15 minutes): sets the session cookie",
      bodyKind: 'json',
      body: EmailLinkRedeemBody,
      responses: { 201: SessionResponse, 400: ErrorBody, 429: ErrorBody },
      handler: async ({ body, req }) => sessionOpened(s.sessions, await s.emailLink.redeem(body.token, clientOf(req))),
    }),
    defineRoute({
      ...SIGN_IN,
      method: 'GET',
      path: OIDC_START_PATH,
      summary: 'Starts single sign-on: redirects to the OpenID provider (authorization code flow with PKCE, state and nonce)',
      query: OidcStartQuery,
      responses: { 302: null },
      handler: async ({ query, req }) => {
        if (!s.oidc.enabled) return redirect(s.oidc.failureTarget('Single sign-on is not configured on this server (auth.oidc.issuer)'), []);
        if (ceremonyWait(req.remoteAddress) > 0) return redirect(s.oidc.failureTarget('Too many sign-ins started from this address; wait a minute'), []);
        try {
          const { location, flowToken } = await s.oidc.start(query.return ?? null);
          return redirect(location, [flowCookie(flowToken, OIDC_FLOW_MS)]);
        } catch (err) {
          if (err instanceof SsoRefused) return redirect(s.oidc.failureTarget(err.message), []);
          throw err;
        }
      },
    }),
    defineRoute({
      ...SIGN_IN,
      method: 'GET',
      path: OIDC_CALLBACK_PATH,
      // The identity provider's answer: code, state, iss, session_state, error… whatever it sends.
      unknownQuery: 'accepted',
      summary: "The OpenID provider's redirect back (the redirect URI to register): opens the session and returns to the dashboard",
      responses: { 302: null },
      handler: async ({ req }) => {
        const cleared = flowCookie('', 0);
        if (!s.oidc.enabled) return redirect(s.oidc.failureTarget('Single sign-on is not configured on this server (auth.oidc.issuer)'), [cleared]);
        try {
          const outcome = await s.oidc.callback(req.query, cookieValue(req.headers['cookie'], OIDC_FLOW_COOKIE), clientOf(req));
          const cookies = outcome.kind === 'signed_in' ? [cleared, s.sessions.cookie(outcome.session)] : [cleared];
          return redirect(s.oidc.dashboardTarget(outcome.returnTo), cookies);
        } catch (err) {
          if (err instanceof SsoRefused) return redirect(s.oidc.refusedTarget(err), [cleared]);
          throw err;
        }
      },
    }),
    defineRoute({
      ...MEMBER,
      method: 'GET',
      path: '/v1/public/passkeys',
      summary: "The signed-in member's passkeys",
      responses: { 200: PasskeyListResponse, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
      handler: async ({ principal }) => ok({ data: await s.passkeys.list(await member(principal)) }, 200, { 'Cache-Control': 'no-store' }),
    }),
    defineRoute({
      ...MEMBER,
      method: 'POST',
      path: '/v1/public/passkeys/options',
      summary: 'Starts registering a passkey: the options for navigator.credentials.create() (a challenge good once, for 5 minutes)',
      responses: { 200: PasskeyRegistrationOptionsResponse, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody, 429: ErrorBody },
      handler: async ({ principal }) => ok({ data: await s.passkeys.registrationOptions(await member(principal)) }, 200, { 'Cache-Control': 'no-store' }),
    }),
    defineRoute({
      ...MEMBER,
      method: 'POST',
      path: '/v1/public/passkeys',
      summary: 'Registers a passkey: its name and the attestation for the options of POST /passkeys/options',
      bodyKind: 'json',
      body: PasskeyCreateBody,
      responses: { 201: PasskeyResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody, 429: ErrorBody },
      handler: async ({ principal, body }) =>
        ok({ data: await s.passkeys.register(await member(principal), body.name.trim(), body.response as unknown as RegistrationResponseJSON) }, 201),
    }),
    defineRoute({
      ...MEMBER,
      method: 'PATCH',
      path: '/v1/public/passkeys/:id',
      summary: 'Renames one of the member’s passkeys',
      bodyKind: 'json',
      body: PasskeyPatchBody,
      responses: { 200: PasskeyResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody },
      handler: async ({ principal, params, body }) => ok({ data: await s.passkeys.rename(await member(principal), params.id!, body.name.trim()) }),
    }),
    defineRoute({
      ...MEMBER,
      method: 'DELETE',
      path: '/v1/public/passkeys/:id',
      summary: 'Removes one of the member’s passkeys: it signs in no more',
      responses: { 204: null, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody },
      handler: async ({ principal, params }) => {
        await s.passkeys.remove(await member(principal), params.id!);
        return { status: 204 };
      },
    }),
  ];
}
