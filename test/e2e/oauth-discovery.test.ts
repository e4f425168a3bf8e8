import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.js';
import { asBearer, fakeMailDns, postSignup } from '../helpers/fixtures/oauth-client.js';
import { NO_PROBES } from './util.js';

/** Discovery (spec 4.13; decisions §9): RFC 8414 and RFC 9728 documents, and what they point at. */

let server: TestServer;
let appUrl: string;
const SCOPES = ['checks:read', 'checks:write', 'alerts:read', 'alerts:write'];

before(async () => {
  server = await startServer({}, undefined, { ...NO_PROBES, mailDomainResolver: fakeMailDns() });
  appUrl = server.app.config.publicUrl;
});
after(() => server.stop());

async function getJson(path: string) {
  const res = await fetch(server.url + path);
  assert.equal(res.status, 200, path);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return (await res.json()) as Record<string, unknown>;
}

describe('GET /.well-known/oauth-authorization-server (RFC 8414)', () => {
  test('issuer, endpoints, grant types, scopes', async () => {
    const doc = await getJson('/.well-known/oauth-authorization-server');
    assert.equal(doc.issuer, appUrl);
    assert.equal(doc.token_endpoint, `${appUrl}/oauth/token`);
    assert.equal(doc.vigil_agent_signup_endpoint, `${appUrl}/oauth/agent-signup`);
    assert.deepEqual(doc.grant_types_supported, ['refresh_token']);
    assert.deepEqual(doc.response_types_supported, [], 'no authorization endpoint, so no response type');
    assert.deepEqual(doc.scopes_supported, SCOPES);
    assert.deepEqual(doc.token_endpoint_auth_methods_supported, ['none']);
    assert.equal(doc.authorization_endpoint, undefined);
  });

  test('the endpoints it names are served', async () => {
    const doc = await getJson('/.well-known/oauth-authorization-server');
    const path = (url: unknown) => String(url).slice(appUrl.length);
    const signup = await postSignup(server, { email: `discovered-${process.pid}@mail.example.com` }, {});
    assert.equal(signup.status, 201);
    assert.equal(path(doc.vigil_agent_signup_endpoint), '/oauth/agent-signup');
    const token = await fetch(server.url + path(doc.token_endpoint), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: signup.body.refresh_token }).toString(),
    });
    assert.equal(token.status, 200);
  });
});

describe('GET /.well-known/oauth-protected-resource (RFC 9728)', () => {
  test('the REST API: resource is {base_url}, the authorization server is {app_url}', async () => {
    const doc = await getJson('/.well-known/oauth-protected-resource');
    assert.equal(doc.resource, appUrl);
    assert.deepEqual(doc.authorization_servers, [appUrl]);
    assert.deepEqual(doc.bearer_methods_supported, ['header']);
    assert.deepEqual(doc.scopes_supported, SCOPES);
    assert.equal(doc.resource_documentation, `${appUrl}/v1/openapi.json`);
  });

  test('the tool server: resource {app_url}/mcp/v1, at the path-inserted well-known address', async () => {
    const doc = await getJson('/.well-known/oauth-protected-resource/mcp/v1');
    assert.equal(doc.resource, `${appUrl}/mcp/v1`);
    assert.deepEqual(doc.authorization_servers, [appUrl]);
    assert.deepEqual(doc.bearer_methods_supported, ['header']);
  });

  test("the API's 401 challenge points at it", async () => {
    const res = await asBearer(server, 'vigil_at_unknown', 'GET', '/v1/public/account');
    assert.equal(res.status, 401);
    assert.ok((res.headers.get('www-authenticate') ?? '').includes(`resource_metadata="${appUrl}/.well-known/oauth-protected-resource"`));
  });
});

describe('OpenAPI', () => {
  test('documents signup, token and discovery, not the claim page', async () => {
    const doc = (await getJson('/v1/openapi.json')) as { paths: Record<string, Record<string, unknown>> };
    for (const [path, method] of [
      ['/oauth/agent-signup', 'post'],
      ['/oauth/token', 'post'],
      ['/.well-known/oauth-authorization-server', 'get'],
      ['/.well-known/oauth-protected-resource', 'get'],
      ['/.well-known/oauth-protected-resource/mcp/v1', 'get'],
    ] as const) {
      assert.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path} is documented`);
    }
    assert.equal(doc.paths['/claim/{token}'], undefined);
    const token = doc.paths['/oauth/token']!.post as { requestBody: { content: Record<string, unknown> } };
    assert.ok(token.requestBody.content['application/x-www-form-urlencoded'], 'the token endpoint is documented form-encoded');
  });

  test('signup documents its success and every error status', async () => {
    const doc = (await getJson('/v1/openapi.json')) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    assert.deepEqual(Object.keys(doc.paths['/oauth/agent-signup']!.post!.responses).sort(), ['201', '400', '409', '429', '503']);
  });
});
