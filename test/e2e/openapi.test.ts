import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startServer, type TestResponse, type TestServer } from '../helpers/server.js';
import { assertStatus, createCheck, newKey, NO_PROBES } from './util.js';

/** GET /v1/openapi.json: a valid OpenAPI 3.1 document of every route the server answers. */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let server: TestServer;
let doc: Json;
let checkId: string;

before(async () => {
  server = await startServer({}, undefined, NO_PROBES);
  const res = await server.request('GET', '/v1/openapi.json', { key: null });
  assertStatus(res, 200);
  doc = res.body as Json;
  checkId = await createCheck(server, { url: 'https://openapi.example.com' });
});
after(async () => {
  await server.stop();
});

/** The routes of spec 4.2–4.7 and decisions §4, with their scopes. */
const SERVED: Array<{ method: string; path: string; scope: string | null }> = [
  { method: 'get', path: '/v1/public/checks', scope: 'checks:read' },
  { method: 'post', path: '/v1/public/checks', scope: 'checks:write' },
  { method: 'get', path: '/v1/public/checks/{id}', scope: 'checks:read' },
  { method: 'patch', path: '/v1/public/checks/{id}', scope: 'checks:write' },
  { method: 'delete', path: '/v1/public/checks/{id}', scope: 'checks:delete' },
  { method: 'post', path: '/v1/public/checks/{id}/toggle', scope: 'checks:write' },
  { method: 'post', path: '/v1/public/checks/{id}/maintenance', scope: 'checks:write' },
  { method: 'get', path: '/v1/public/checks/{id}/history', scope: 'checks:read' },
  { method: 'get', path: '/v1/public/checks/{id}/stats', scope: 'checks:read' },
  { method: 'post', path: '/v1/public/checks/{id}/regenerate-token', scope: 'checks:write' },
  { method: 'get', path: '/v1/public/checks/status', scope: 'checks:read' },
  { method: 'get', path: '/v1/public/account', scope: 'checks:read' },
  { method: 'get', path: '/v1/openapi.json', scope: null },
  { method: 'get', path: '/v1/public/status-pages', scope: 'checks:read' },
  { method: 'post', path: '/v1/public/status-pages', scope: 'checks:write' },
  { method: 'get', path: '/v1/public/status-pages/{id}', scope: 'checks:read' },
  { method: 'patch', path: '/v1/public/status-pages/{id}', scope: 'checks:write' },
  { method: 'delete', path: '/v1/public/status-pages/{id}', scope: 'checks:write' },
  { method: 'get', path: '/healthz', scope: null },
  { method: 'get', path: '/readyz', scope: null },
];

/** Coverage probes use an id that does not exist: a 404 "check not found" still proves the route. */
const concrete = (path: string) => path.replace('{id}', 'chk_eeeeeeeeeeeeeeeeeeee');
const isRouteMiss = (res: TestResponse) => res.status === 404 && /No endpoint matches/.test(res.body?.error?.message ?? '');

describe('the document', () => {
  test('is served without a credential, as JSON', async () => {
    const res = await server.request('GET', '/v1/openapi.json', { key: null });
    assertStatus(res, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  });

  test('validates as OpenAPI 3.1', async () => {
    assert.match(doc.openapi, /^3\.1\./);
    const v = new Validator();
    const res = await v.validate(doc);
    assert.ok(res.valid, JSON.stringify(res.errors, null, 2));
  });

  test('names the server and both credentials', () => {
    assert.equal(doc.servers?.[0]?.url, server.app.config.publicUrl);
    const schemes = Object.values(doc.components?.securitySchemes ?? {}) as Json[];
    const apiKey = schemes.find((s) => s.type === 'apiKey');
    assert.ok(apiKey, 'an apiKey security scheme');
    assert.equal(apiKey.in, 'header');
    assert.equal(String(apiKey.name).toLowerCase(), 'x-api-key');
    assert.ok(schemes.some((s) => s.type === 'http' && s.scheme === 'bearer'), 'a bearer security scheme');
  });
});

/** Documented routes whose response stays open (server-sent events). */
const STREAMS = new Set(['/v1/public/live']);

describe('coverage of the routes', () => {
  for (const { method, path, scope } of SERVED) {
    test(`${method.toUpperCase()} ${path} is documented and answered`, async () => {
      const op = doc.paths?.[path]?.[method] as Json | undefined;
      assert.ok(op, `${method.toUpperCase()} ${path} is in the document`);
      assert.ok(op.responses && Object.keys(op.responses).some((s) => s.startsWith('2')), 'documents a success response');
      if (path.includes('{id}')) {
        const p = (op.parameters ?? []).find((x: Json) => x.in === 'path' && x.name === 'id');
        assert.ok(p?.required, 'declares the required path parameter id');
      }
      if (scope) {
        assert.ok(Array.isArray(op.security) && op.security.length > 0, 'declares its credentials');
        assert.equal(op['x-required-scope'], scope);
      }
      const res = await server.request(method.toUpperCase(), concrete(path), {
        body: method === 'get' || method === 'delete' ? undefined : {},
      });
      assert.ok(!isRouteMiss(res), `the server answers ${method.toUpperCase()} ${path}: ${res.status} ${res.text}`);
    });
  }

  test('every documented operation is answered by the server', async () => {
    for (const [path, ops] of Object.entries(doc.paths as Json)) {
      for (const method of Object.keys(ops as Json)) {
        if (!['get', 'post', 'patch', 'put', 'delete'].includes(method)) continue;
        if (STREAMS.has(path)) {
          // A stream never ends: its status line is the answer.
          const stream = new AbortController();
          const res = await fetch(server.url + path, { headers: { 'x-api-key': server.adminKey }, signal: stream.signal });
          assert.equal(res.status, 200, `documented stream ${path} is served`);
          stream.abort();
          continue;
        }
        const res = await server.request(method.toUpperCase(), concrete(path), {
          body: method === 'get' || method === 'delete' ? undefined : {},
        });
        assert.ok(!isRouteMiss(res), `documented ${method.toUpperCase()} ${path} is not served`);
      }
    }
  });

  test('Idempotency-Key: required on create, optional on toggle and maintenance', () => {
    const header = (path: string) =>
      (doc.paths[path].post.parameters ?? []).find((p: Json) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key');
    const create = header('/v1/public/checks');
    assert.ok(create, 'create documents Idempotency-Key');
    assert.equal(create.required, true);
    assert.equal(create.schema?.maxLength, 256);
    for (const path of ['/v1/public/checks/{id}/toggle', '/v1/public/checks/{id}/maintenance']) {
      const h = header(path);
      assert.ok(h, `${path} documents Idempotency-Key`);
      assert.notEqual(h.required, true);
    }
  });

  test('the list documents its query parameters with their bounds', () => {
    const params = (doc.paths['/v1/public/checks'].get.parameters ?? []) as Json[];
    const byName = Object.fromEntries(params.filter((p) => p.in === 'query').map((p) => [p.name, p.schema]));
    for (const name of ['limit', 'page', 'cursor', 'includeTotal', 'status']) assert.ok(byName[name], `query parameter ${name}`);
    assert.equal(byName.limit.minimum, 1);
    assert.equal(byName.limit.maximum, 100);
    assert.equal(byName.page.minimum, 1);
  });
});

describe('real answers match what the document says', () => {
  // The JSON Schema validator of a declared dependency (the MCP SDK's ajv, with formats),
  // imported statically: if it went missing this file would fail, never skip the body checks.
  const schemas = new AjvJsonSchemaValidator();

  /** The status must be documented for the operation, and the body must fit the documented schema. */
  function conforms(method: string, path: string, res: TestResponse): void {
    const op = doc.paths[path][method] as Json;
    const documented = op.responses[String(res.status)] as Json | undefined;
    assert.ok(documented, `${method.toUpperCase()} ${path} answered ${res.status}, which the document does not list (${Object.keys(op.responses).join(', ')})`);
    const schema = documented.content?.['application/json']?.schema;
    if (!schema) return;
    const result = schemas.getValidator({ ...schema, components: doc.components })(res.body);
    assert.ok(result.valid, `${method.toUpperCase()} ${path} ${res.status} body does not fit its schema: ${result.errorMessage}\n${res.text}`);
  }

  test('the body check bites: a record missing a field, or with a wrong type, does not fit', async () => {
    const res = await server.request('GET', `/v1/public/checks/${checkId}`);
    conforms('get', '/v1/public/checks/{id}', res);
    const { id: _id, ...withoutId } = res.body.data;
    for (const body of [{ data: withoutId }, { data: { ...res.body.data, uptime: 'high' } }]) {
      assert.throws(() => conforms('get', '/v1/public/checks/{id}', { ...res, body }), /does not fit its schema/);
    }
  });

  test('checks and account: success answers', async () => {
    const hb = await createCheck(server, { type: 'heartbeat' });
    conforms('get', '/v1/public/checks', await server.request('GET', '/v1/public/checks?includeTotal=true'));
    conforms('get', '/v1/public/checks/{id}', await server.request('GET', `/v1/public/checks/${checkId}`));
    conforms('get', '/v1/public/checks/{id}', await server.request('GET', `/v1/public/checks/${hb}`));
    conforms('post', '/v1/public/checks', await server.request('POST', '/v1/public/checks', { body: { url: 'https://conform.example.com' } }));
    conforms('patch', '/v1/public/checks/{id}', await server.request('PATCH', `/v1/public/checks/${checkId}`, { body: { name: 'n' } }));
    conforms('post', '/v1/public/checks/{id}/toggle', await server.request('POST', `/v1/public/checks/${checkId}/toggle`, { body: { disabled: true } }));
    conforms('get', '/v1/public/checks/{id}', await server.request('GET', `/v1/public/checks/${checkId}`));
    conforms('post', '/v1/public/checks/{id}/maintenance', await server.request('POST', `/v1/public/checks/${checkId}/maintenance`, { body: { enabled: true } }));
    conforms('get', '/v1/public/account', await server.request('GET', '/v1/public/account'));
    conforms('delete', '/v1/public/checks/{id}', await server.request('DELETE', `/v1/public/checks/${hb}`));
  });

  test('checks and account: error answers', async () => {
    const reader = await newKey(server, (await server.app.store.checks.byId(checkId))!.accountId, { scopes: ['checks:read'] });
    const huge = { name: 'x'.repeat(1024 * 1024 + 1) };
    const unknown = '/v1/public/checks/chk_dddddddddddddddddddd';
    const cases: Array<[string, string, Promise<TestResponse>]> = [
      ['get', '/v1/public/checks', server.request('GET', '/v1/public/checks?limit=0')],
      ['get', '/v1/public/checks', server.request('GET', '/v1/public/checks', { key: null })],
      ['post', '/v1/public/checks', server.request('POST', '/v1/public/checks', { body: { url: 'nope' } })],
      ['post', '/v1/public/checks', server.request('POST', '/v1/public/checks', { body: { url: 'https://r.example.com' }, key: reader.key })],
      ['post', '/v1/public/checks', server.request('POST', '/v1/public/checks', { body: { url: 'https://openapi.example.com' } })],
      ['post', '/v1/public/checks', server.request('POST', '/v1/public/checks', { body: huge })],
      ['get', '/v1/public/checks/{id}', server.request('GET', unknown)],
      ['patch', '/v1/public/checks/{id}', server.request('PATCH', unknown, { body: { name: 'x' } })],
      ['patch', '/v1/public/checks/{id}', server.request('PATCH', `/v1/public/checks/${checkId}`, { body: { bogus: 1 } })],
      ['patch', '/v1/public/checks/{id}', server.request('PATCH', `/v1/public/checks/${checkId}`, { body: huge })],
      ['delete', '/v1/public/checks/{id}', server.request('DELETE', unknown)],
      ['delete', '/v1/public/checks/{id}', server.request('DELETE', `/v1/public/checks/${checkId}`, { key: reader.key })],
      ['post', '/v1/public/checks/{id}/toggle', server.request('POST', unknown + '/toggle', { body: { disabled: true } })],
      ['post', '/v1/public/checks/{id}/toggle', server.request('POST', `/v1/public/checks/${checkId}/toggle`, { body: {} })],
      ['post', '/v1/public/checks/{id}/toggle', server.request('POST', `/v1/public/checks/${checkId}/toggle`, { body: { disabled: true, reason: huge.name } })],
      ['post', '/v1/public/checks/{id}/maintenance', server.request('POST', unknown + '/maintenance', { body: { enabled: true } })],
      ['post', '/v1/public/checks/{id}/maintenance', server.request('POST', `/v1/public/checks/${checkId}/maintenance`, { body: { enabled: true, until: huge.name } })],
      ['get', '/v1/public/account', server.request('GET', '/v1/public/account', { key: null })],
    ];
    const failures: string[] = [];
    for (const [method, path, pending] of cases) {
      const res = await pending;
      try {
        conforms(method, path, res);
      } catch (err) {
        failures.push((err as Error).message.split('\n')[0]!);
      }
    }
    assert.deepEqual(failures, []);
  });
});
