import {
  AuthorizationServerMetadataBody,
  OAuthErrorBody,
  ProtectedResourceMetadataBody,
  SignupBody,
  SignupResponseBody,
  TokenForm,
  TokenResponseBody,
} from '../core/schemas/oauth.js';
import { defineRoute, ok, type Route } from './http-types.js';
import { claimPage } from './claim-page.js';
import { authorizationServerMetadata, protectedResourceMetadata } from '../oauth/discovery.js';
import { NO_STORE, tokenError } from '../oauth/token-service.js';
import type { AccountServices } from './services.js';

const PUBLIC = { auth: 'none', allowRestricted: true, rateLimit: 'none', idempotency: 'none' } as const;
/** Anyone may call it and it does work (an account, a token, a claim): counted per client address. */
const PER_ADDRESS = { ...PUBLIC, rateLimit: 'per-address' } as const;
const DISCOVERY_CACHE = { 'Cache-Control': 'public, max-age=300' };

/** Agent signup, the token endpoint, discovery and the claim page, all at `{app_url}` (spec 4.11–4.13). */
export function oauthRoutes(s: AccountServices): Route[] {
  const appUrl = s.config.publicUrl;
  return [
    defineRoute({
      ...PER_ADDRESS,
      method: 'POST',
      path: '/oauth/agent-signup',
      summary: 'Agent signup: an unclaimed account and its tokens in one call; the owner gets a claim email',
      tag: 'oauth',
      errorShape: 'oauth',
      bodyKind: 'json',
      body: SignupBody,
      responses: { 201: SignupResponseBody, 400: OAuthErrorBody, 409: OAuthErrorBody, 429: OAuthErrorBody, 503: OAuthErrorBody },
      handler: async ({ body, req }) => ok(await s.oauth.signup.signup(body, req.remoteAddress), 201, NO_STORE),
    }),
    defineRoute({
      ...PER_ADDRESS,
      method: 'POST',
      path: '/oauth/token',
      summary: 'Token refresh (grant_type=refresh_token); refresh tokens rotate, and reusing one revokes its grant',
      tag: 'oauth',
      errorShape: 'oauth',
      bodyKind: 'form',
      body: TokenForm,
      responses: { 200: TokenResponseBody, 400: OAuthErrorBody, 429: OAuthErrorBody },
      handler: async ({ req, body }) => {
        if (/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
          throw tokenError('invalid_request', 'The token endpoint takes application/x-www-form-urlencoded (RFC 6749), not JSON');
        }
        return ok(await s.oauth.tokens.refresh(body), 200, NO_STORE);
      },
    }),
    defineRoute({
      ...PUBLIC,
      method: 'GET',
      path: '/.well-known/oauth-authorization-server',
      summary: 'OAuth authorization server metadata (RFC 8414), with vigil_agent_signup_endpoint',
      tag: 'oauth',
      errorShape: 'standard',
      responses: { 200: AuthorizationServerMetadataBody },
      handler: () => ok(authorizationServerMetadata(appUrl), 200, DISCOVERY_CACHE),
    }),
    defineRoute({
      ...PUBLIC,
      method: 'GET',
      path: '/.well-known/oauth-protected-resource',
      summary: 'Protected resource metadata of the REST API (RFC 9728)',
      tag: 'oauth',
      errorShape: 'standard',
      responses: { 200: ProtectedResourceMetadataBody },
      handler: () => ok(protectedResourceMetadata(appUrl, appUrl, 'Vigil API', `${appUrl}/v1/openapi.json`), 200, DISCOVERY_CACHE),
    }),
    defineRoute({
      ...PUBLIC,
      method: 'GET',
      path: '/.well-known/oauth-protected-resource/mcp/v1',
      summary: 'Protected resource metadata of the tool server (RFC 9728)',
      tag: 'oauth',
      errorShape: 'standard',
      responses: { 200: ProtectedResourceMetadataBody },
      handler: () => ok(protectedResourceMetadata(`${appUrl}/mcp/v1`, appUrl, 'Vigil tool server (MCP)', null), 200, DISCOVERY_CACHE),
    }),
    defineRoute({
      ...PER_ADDRESS,
      method: 'GET',
      path: '/claim/:token',
      summary: 'The claim page: one button',
      tag: 'oauth',
      errorShape: 'standard',
      documented: false,
      unknownQuery: 'typos-refused',
      responses: {},
      handler: async ({ params }) => claimPage(await s.oauth.claims.inspect(params.token!)),
    }),
    defineRoute({
      ...PER_ADDRESS,
      method: 'POST',
      path: '/claim/:token',
      summary: 'Claims the account (the button of the claim page)',
      tag: 'oauth',
      errorShape: 'standard',
      documented: false,
      unknownQuery: 'typos-refused',
      bodyKind: 'form',
      responses: {},
      handler: async ({ params }) => claimPage(await s.oauth.claims.claim(params.token!)),
    }),
  ];
}
