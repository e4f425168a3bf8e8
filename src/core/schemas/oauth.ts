import { Type } from '@sinclair/typebox';

/**
 * Agent signup, the token endpoint and discovery (spec 2.11, 4.11–4.13). Unknown fields are
 * ignored, as OAuth endpoints ignore unrecognised parameters (RFC 6749 §3.2).
 */

export const SignupBody = Type.Object({
  email: Type.String({ maxLength: 254, description: "The user's own address; the claim email goes there" }),
  agent_name: Type.Optional(Type.String({ maxLength: 60, description: 'How the agent names itself in the claim email' })),
});

/** Every field optional: the handler answers a missing one with the RFC 6749 error. */
export const TokenForm = Type.Object({
  grant_type: Type.Optional(Type.String({ description: 'refresh_token' })),
  refresh_token: Type.Optional(Type.String()),
  scope: Type.Optional(Type.String({ description: "Space-separated; at most the grant's scopes" })),
});

export const OAuthErrorBody = Type.Object(
  { error: Type.String(), error_description: Type.String() },
  { $id: 'OAuthError', description: 'RFC 6749 error body' },
);

const tokenFields = {
  access_token: Type.String({ description: 'vigil_at_…, valid 30 days' }),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds' }),
  refresh_token: Type.String({ description: 'vigil_rt_…, valid 180 days, works once' }),
  scope: Type.String({ description: 'Space-separated scopes' }),
};

export const TokenResponseBody = Type.Object(tokenFields, { $id: 'OAuthTokenResponse' });

export const SignupResponseBody = Type.Object(
  {
    ...tokenFields,
    account: Type.Object({
      email: Type.String(),
      status: Type.Literal('unclaimed'),
      claim_email_sent: Type.Boolean(),
    }),
    mcp_url: Type.String(),
    api_base: Type.String({ description: '{base_url}/v1: append /public/checks and the like' }),
    next_steps: Type.String(),
  },
  { $id: 'AgentSignupResponse' },
);

export const AuthorizationServerMetadataBody = Type.Object(
  {
    issuer: Type.String(),
    token_endpoint: Type.String(),
    vigil_agent_signup_endpoint: Type.String(),
    grant_types_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    service_documentation: Type.String(),
  },
  { $id: 'AuthorizationServerMetadata' },
);

export const ProtectedResourceMetadataBody = Type.Object(
  {
    resource: Type.String(),
    authorization_servers: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    bearer_methods_supported: Type.Array(Type.String()),
    resource_name: Type.String(),
    resource_documentation: Type.Optional(Type.String()),
  },
  { $id: 'ProtectedResourceMetadata' },
);
