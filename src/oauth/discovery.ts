import { SIGNUP_SCOPES } from './tokens.js';

/**
 * Discovery documents (spec 4.13, decisions §1, §9). `{app_url}` and `{base_url}` are both the
 * configured publicUrl. There is no authorization endpoint: tokens come from agent signup and
 * are renewed with refresh_token, so no response type is supported.
 */

/** RFC 8414 authorization server metadata. */
export function authorizationServerMetadata(appUrl: string) {
  return {
    issuer: appUrl,
    token_endpoint: `${appUrl}/oauth/token`,
    vigil_agent_signup_endpoint: `${appUrl}/oauth/agent-signup`,
    grant_types_supported: ['refresh_token'],
    response_types_supported: [] as string[],
    scopes_supported: [...SIGNUP_SCOPES],
    // Agents are public clients: the refresh token is their only credential.
    token_endpoint_auth_methods_supported: ['none'],
    service_documentation: `${appUrl}/v1/openapi.json`,
  };
}

/**
 * RFC 9728 protected resource metadata. The REST API's resource identifier is `{base_url}`
 * itself (served at /.well-known/oauth-protected-resource), the tool server's is
 * `{app_url}/mcp/v1` (served with that path appended, RFC 9728 §3.1).
 */
export function protectedResourceMetadata(resource: string, appUrl: string, name: string, documentation: string | null) {
  return {
    resource,
    authorization_servers: [appUrl],
    scopes_supported: [...SIGNUP_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: name,
    ...(documentation ? { resource_documentation: documentation } : {}),
  };
}
