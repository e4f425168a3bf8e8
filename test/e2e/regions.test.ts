import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.js';
import { NodeRegistry } from '../../src/nodes/node-registry.js';

/** GET /v1/public/regions and checkRegionOverride against registered prober nodes (no node process here). */
describe('regions', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ region: 'vps-eu-1' });
  });
  after(() => server.stop());

  const create = (body: Record<string, unknown>) =>
    server.request('POST', '/v1/public/checks', { body: { url: 'https://regions.example.com', ...body }, headers: { 'Idempotency-Key': `k-${Math.random()}` } });

  test('the central region alone is listed, always online; an unknown override is a 400 naming it', async () => {
    const r = await server.request('GET', '/v1/public/regions');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { data: [{ id: 'vps-eu-1', nodes: 0, connected: 0, online: true }] });
    const bad = await create({ checkRegionOverride: 'vps-us-1' });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { error: { code: 400, message: 'checkRegionOverride must be one of: vps-eu-1' } });
    assert.equal((await server.request('GET', '/v1/public/checks')).body.data.length, 0, 'nothing created');
  });

  test('a registered region is listed (offline until its node connects) and accepted as an override', async () => {
    await new NodeRegistry(server.app.store.nodes, 'vps-eu-1', server.app.clock).create({ region: 'vps-us-1', name: 'us' });
    const r = await server.request('GET', '/v1/public/regions');
    assert.deepEqual(r.body.data, [
      { id: 'vps-eu-1', nodes: 0, connected: 0, online: true },
      { id: 'vps-us-1', nodes: 1, connected: 0, online: false },
    ]);
    const made = await create({ checkRegionOverride: 'vps-us-1' });
    assert.equal(made.status, 201);
    const got = await server.request('GET', `/v1/public/checks/${made.body.data.id}`);
    assert.equal(got.body.data.checkRegionOverride, 'vps-us-1');
    const bad = await server.request('PATCH', `/v1/public/checks/${made.body.data.id}`, { body: { checkRegionOverride: 'vps-ap-1' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.message, 'checkRegionOverride must be one of: vps-eu-1, vps-us-1');
  });

  test('checks:read is required; a node token is no API credential', async () => {
    const noKey = await server.request('GET', '/v1/public/regions', { key: null });
    assert.equal(noKey.status, 401);
    const node = await new NodeRegistry(server.app.store.nodes, 'vps-eu-1', server.app.clock).create({ region: 'vps-ap-1' });
    const withNodeToken = await server.request('GET', '/v1/public/regions', { key: node.token });
    assert.equal(withNodeToken.status, 401);
  });

  test('the OpenAPI document lists the endpoint', async () => {
    const doc = await server.request('GET', '/v1/openapi.json', { key: null });
    assert.ok(doc.body.paths['/v1/public/regions']?.get);
  });
});
