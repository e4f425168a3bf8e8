import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bindTools } from '../../src/mcp/tool-binding.js';
import { TOOL_SPECS } from '../../src/mcp/tool-table.js';
import { checkRoutes } from '../../src/api/checks-routes.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { fakeMailDns, signUp } from '../helpers/fixtures/oauth-client.js';
import { startReceiver, type Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { CA_FILE } from '../helpers/fixtures/alerts-tls.js';
import { startSmtpSink, type SmtpSink } from '../helpers/fixtures/alerts-smtp.js';
import { createCheck, newAccount, newKey, NO_PROBES, setMonitorStatus, type Actor } from './util.js';

/** The tool server (issue 8): MCP at /mcp/v1 driven by the SDK's own client against a real server. */

const ALL_SCOPES = ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'];
const TOOL_NAMES = [
  'list_checks', 'get_check', 'create_check', 'update_check', 'delete_check', 'toggle_check', 'set_maintenance',
  'get_history', 'get_stats', 'get_status_overview', 'get_account', 'list_regions', 'get_email_alerts', 'update_email_alerts',
  'test_email_alerts', 'list_webhooks', 'create_webhook', 'update_webhook', 'test_webhook', 'delete_webhook', 'list_alert_deliveries',
  'retry_alert_delivery', 'regenerate_heartbeat_token',
  'list_status_pages', 'create_status_page', 'get_status_page', 'update_status_page',
  'list_maintenance_windows', 'create_maintenance_window', 'get_maintenance_window', 'update_maintenance_window', 'delete_maintenance_window',
  'delete_status_page',
  'list_incidents', 'create_incident', 'get_incident', 'update_incident', 'post_incident_update', 'delete_incident',
  'plan_config', 'apply_config',
];

let server: TestServer;
let sink: SmtpSink;
let receiver: Receiver;
const clients: Client[] = [];

before(async () => {
  sink = await startSmtpSink();
  receiver = await startReceiver();
  server = await startServer({ smtp: { url: sink.url, from: 'Vigil <vigil@test.local>' } }, undefined, {
    ...NO_PROBES,
    mailDomainResolver: fakeMailDns(),
  });
});
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server.stop();
  await receiver.close();
  await sink.close();
});

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'vigil-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/v1`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}
const withKey = (actor: { key: string }) => connect({ 'x-api-key': actor.key });

interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  // The REST body as the tool returned it; tests assert on its shape.
  structuredContent?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

/** A successful call: returns the REST body ({data, meta?}) and checks the text mirrors it. */
async function ok(client: Client, name: string, args: Record<string, unknown> = {}) {
  const res = await call(client, name, args);
  assert.notEqual(res.isError, true, `${name} failed: ${res.content[0]?.text}`);
  assert.equal(res.content[0]?.type, 'text');
  const body = JSON.parse(res.content[0]!.text!);
  assert.deepEqual(res.structuredContent, body, 'structuredContent is the REST body');
  return body;
}

/** A failed call: asserts a tool error (not a protocol error) and returns its message. */
async function fails(client: Client, name: string, args: Record<string, unknown>, status: number): Promise<string> {
  const res = await call(client, name, args);
  assert.equal(res.isError, true, `${name} should fail: ${res.content[0]?.text}`);
  assert.equal(res.structuredContent?.status, status, JSON.stringify(res.structuredContent));
  return res.content[0]!.text!;
}

const fresh = async (scopes = ALL_SCOPES): Promise<Actor> => (await newAccount(server, { tier: 'pro', scopes }));

describe('discovery of tools, resources and prompts', () => {
  test('every tool is listed with an input schema from the route table and honest hints', async () => {
    const client = await withKey(await fresh());
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.ok(tool.description && tool.description.length > 10, `${tool.name} has a description`);
      assert.ok(!JSON.stringify(tool.inputSchema).includes('$id'), `${tool.name}: plain JSON Schema`);
      const readOnly = tool.name.startsWith('get_') || tool.name.startsWith('list_');
      assert.equal(tool.annotations?.readOnlyHint, readOnly, `${tool.name} readOnlyHint`);
      if (!readOnly) {
        const destructive = ['delete_check', 'delete_webhook', 'regenerate_heartbeat_token', 'delete_status_page', 'delete_incident', 'delete_maintenance_window', 'apply_config'].includes(tool.name);
        assert.equal(tool.annotations?.destructiveHint, destructive, `${tool.name} destructiveHint`);
      }
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    const create = byName.get('create_check')!;
    assert.ok(create.inputSchema.required?.includes('idempotencyKey'), 'create needs an idempotency key, as in REST');
    assert.ok(create.inputSchema.properties?.url && create.inputSchema.properties?.checkFrequency, 'body fields from CreateCheckBody');
    assert.deepEqual(byName.get('get_check')!.inputSchema.required, ['id']);
    assert.deepEqual(byName.get('toggle_check')!.inputSchema.required, ['id', 'disabled']);
    assert.ok(byName.get('get_stats')!.inputSchema.properties?.ranges, 'query fields from StatsQuerySchema');
    assert.ok(byName.get('list_checks')!.inputSchema.properties?.cursor);
    assert.equal(byName.get('update_check')!.annotations?.idempotentHint, true);
    assert.equal(byName.get('test_webhook')!.annotations?.openWorldHint, true);
  });

  test('a tool whose route is not in the table is left out', () => {
    const fakeServices = {} as Parameters<typeof checkRoutes>[0];
    const names = bindTools(checkRoutes(fakeServices), TOOL_SPECS).map((t) => t.spec.name);
    assert.deepEqual(names, ['list_checks', 'get_check', 'create_check', 'update_check', 'delete_check', 'toggle_check', 'set_maintenance']);
  });

  test('the status resource and the triage prompt read the status endpoint', async () => {
    const actor = await fresh();
    const down = await createCheck(server, { url: 'https://down.example.com', name: 'Shop' }, actor.key);
    await createCheck(server, { url: 'https://up.example.com', name: 'Blog' }, actor.key);
    await setMonitorStatus(server, down, 'down');
    const client = await withKey(actor);
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), ['vigil://status']);
    const read = await client.readResource({ uri: 'vigil://status' });
    const content = read.contents[0]!;
    const status = JSON.parse('text' in content ? content.text : '');
    assert.equal(status.meta.total, 2);
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name), ['triage_outages']);
    const prompt = await client.getPrompt({ name: 'triage_outages' });
    const text = (prompt.messages[0]!.content as { text: string }).text;
    assert.match(text, /1 of 2 checks are failing/);
    assert.match(text, new RegExp(`Shop \\(id ${down}\\): offline`));
    assert.ok(!text.includes('Blog'), 'healthy checks are not listed');
  });
});

describe('every tool, through the same routes as REST', () => {
  test('checks: create, get, list, update, toggle, maintenance, history, stats, status, account, delete', async () => {
    const actor = await fresh();
    const client = await withKey(actor);
    const created = await ok(client, 'create_check', { url: 'https://example.com/health', name: 'API', idempotencyKey: 'mcp-create-1' });
    const id = created.data.id as string;
    const replay = await ok(client, 'create_check', { url: 'https://example.com/health', name: 'API', idempotencyKey: 'mcp-create-1' });
    assert.equal(replay.data.id, id, 'the same key replays the first answer');
    const missing = await fails(client, 'create_check', { url: 'https://example.com/other' }, 400);
    assert.match(missing, /^idempotencyKey is required/, 'names the argument, not the HTTP header the caller never sees');
    assert.doesNotMatch(missing, /header/i);
    assert.match(await fails(client, 'create_check', { url: 'https://example.com/other', idempotencyKey: '' }, 400), /^idempotencyKey is required/);
    assert.match(await fails(client, 'create_check', { name: 'x'.repeat(201), url: 'https://a.example', idempotencyKey: 'k2' }, 400), /name must be at most 200/);

    assert.equal((await ok(client, 'get_check', { id })).data.name, 'API');
    const list = await ok(client, 'list_checks', { limit: 10, includeTotal: true });
    assert.deepEqual(list.data.map((c: { id: string }) => c.id), [id]);
    assert.equal(list.meta.total, 1, 'query values are typed arguments, converted as REST converts them');
    assert.deepEqual((await ok(client, 'update_check', { id, name: 'Renamed' })).data, { success: true });
    assert.equal((await ok(client, 'get_check', { id })).data.name, 'Renamed');

    assert.equal((await ok(client, 'toggle_check', { id, disabled: true, reason: 'deploy' })).data.message, 'Check disabled');
    assert.equal((await ok(client, 'toggle_check', { id, disabled: false })).data.message, 'Check enabled');
    assert.match(await fails(client, 'toggle_check', { id }, 400), /disabled is required/);
    assert.equal((await ok(client, 'set_maintenance', { id, enabled: true })).data.maintenanceMode, true);

    const history = await ok(client, 'get_history', { id, limit: 5 });
    assert.ok(Array.isArray(history.data) && history.data.length >= 1, 'the pause was recorded');
    assert.equal((await ok(client, 'get_stats', { id })).data.checkId, id);
    assert.deepEqual(Object.keys((await ok(client, 'get_stats', { id, ranges: '1d,7d' })).data).sort(), ['1d', '7d']);
    assert.match(await fails(client, 'get_stats', { id, ranges: '2d' }, 400), /2d/);

    const status = await ok(client, 'get_status_overview');
    assert.equal(status.data[0].id, id);
    assert.equal(status.data[0].maintenanceMode, true);
    const account = await ok(client, 'get_account');
    assert.equal(account.data.tier, 'pro');
    assert.deepEqual(account.data.scopes, ALL_SCOPES);

    assert.deepEqual((await ok(client, 'delete_check', { id })).data, { success: true });
    assert.equal(await fails(client, 'get_check', { id }, 404), `Check ${id} not found`);
    assert.equal(await fails(client, 'get_check', { id: '' }, 400), 'id must not be empty');
    assert.equal(await fails(client, 'get_check', {}, 400), 'id is required');
  });

  test('an argument of the wrong type is named as the wrong type, not as missing', async () => {
    const client = await withKey(await fresh());
    assert.equal(await fails(client, 'get_check', { id: { a: 1 } }, 400), 'id must be a string, not an object');
    assert.equal(await fails(client, 'get_check', { id: 5 }, 400), 'id must be a string, not a number');
    assert.equal(await fails(client, 'get_check', { id: ['chk_1'] }, 400), 'id must be a string, not an array');
    assert.equal(await fails(client, 'delete_check', { id: null }, 400), 'id must be a string, not null');
    assert.equal(
      await fails(client, 'create_check', { url: 'https://typed.example.com', idempotencyKey: 7 }, 400),
      'idempotencyKey must be a string, not a number',
    );
    assert.equal(await fails(client, 'toggle_check', { id: 'chk_x', disabled: 'yes' }, 400), 'disabled must be a boolean');
  });

  test('a tool call costs one unit of the per-key budget, like the REST call it makes', async () => {
    const actor = await fresh();
    const client = await withKey(actor);
    const remaining = async () => Number((await server.request('GET', '/v1/public/account', { key: actor.key })).headers.get('ratelimit-remaining'));
    const before = await remaining();
    await ok(client, 'get_account');
    await ok(client, 'list_checks');
    assert.equal(await remaining(), before - 3, 'two tool calls and this GET');
  });

  test('heartbeat: regenerate_heartbeat_token issues a new ping URL', async () => {
    const client = await withKey(await fresh());
    const id = (await ok(client, 'create_check', { type: 'heartbeat', name: 'Nightly', idempotencyKey: 'hb-1' })).data.id;
    const before = (await ok(client, 'get_check', { id })).data.url as string;
    const regenerated = await ok(client, 'regenerate_heartbeat_token', { id });
    assert.match(regenerated.data.pingUrl, /\/heartbeat\/[0-9a-f]{64}$/);
    assert.notEqual(regenerated.data.pingUrl, before);
    assert.equal((await fetch(before)).status, 404, 'the old ping URL stopped working');
  });

  test('email alerts: update, get, test', async () => {
    const client = await withKey(await fresh());
    assert.deepEqual(await ok(client, 'get_email_alerts'), { data: null });
    assert.match(await fails(client, 'update_email_alerts', { enabled: true }, 400), /recipients is required/);
    const updated = await ok(client, 'update_email_alerts', { recipients: ['ops@example.com'] });
    assert.deepEqual(updated.data.recipients, ['ops@example.com']);
    assert.equal((await ok(client, 'get_email_alerts')).data.enabled, true);
    const sent = sink.mails.length;
    assert.deepEqual((await ok(client, 'test_email_alerts')).data.delivered, ['ops@example.com']);
    await sink.waitFor(sent + 1);
  });

  test('webhooks: create, list, test, delete', async () => {
    const client = await withKey(await fresh());
    const created = await ok(client, 'create_webhook', { url: receiver.url('/hooks/mcp/1/s3cret'), name: 'Receiver' });
    const id = created.data.id as string;
    assert.equal(created.data.webhookType, 'generic');
    assert.deepEqual((await ok(client, 'list_webhooks')).data.map((w: { id: string }) => w.id), [id]);
    const trusted = process.env.NODE_EXTRA_CA_CERTS !== undefined && resolve(process.env.NODE_EXTRA_CA_CERTS) === CA_FILE;
    if (trusted) {
      assert.equal((await ok(client, 'test_webhook', { id })).data.status, 200);
      assert.ok(receiver.received.some((r) => r.path === '/hooks/mcp/1/s3cret' && r.json?.test === true));
    } else {
      // Without the test CA (scripts/run-tests.mjs sets it) the receiver's certificate is refused: the API's 502.
      await fails(client, 'test_webhook', { id }, 502);
    }
    assert.deepEqual((await ok(client, 'delete_webhook', { id })).data, { id, deleted: true });
    assert.deepEqual((await ok(client, 'list_webhooks')).data, []);
  });

  test('update_webhook: only the fields sent change; bad input and an unknown id are the REST errors', async () => {
    const actor = await fresh();
    const client = await withKey(actor);
    const checkId = await createCheck(server, { url: 'https://example.com/mcp-update' }, actor.key);
    const id = (await ok(client, 'create_webhook', { url: receiver.url('/hooks/mcp/3/x'), name: 'Before' })).data.id as string;
    const updated = await ok(client, 'update_webhook', { id, name: 'After', enabled: false, checkIds: [checkId], folders: ['prod'], remindEveryMinutes: 15, events: ['website_down'] });
    assert.deepEqual(updated.data, {
      id, name: 'After', url: receiver.origin, webhookType: 'generic', events: ['website_down'], enabled: false,
      checkIds: [checkId], folders: ['prod'], tags: [], remindEveryMinutes: 15,
    });
    assert.deepEqual((await ok(client, 'list_webhooks')).data[0].name, 'After');
    const tool = (await client.listTools()).tools.find((t) => t.name === 'update_webhook')!;
    assert.equal(tool.annotations?.idempotentHint, true);
    assert.ok((tool.inputSchema.properties as Record<string, unknown>).secret, 'the PATCH body is the input schema');
    assert.match(await fails(client, 'update_webhook', { id, remindEveryMinutes: 1 }, 400), /remindEveryMinutes/);
    assert.match(await fails(client, 'update_webhook', { id: `whk_${'0'.repeat(20)}`, name: 'x' }, 404), /not found/);
    assert.equal((await ok(client, 'list_webhooks')).data[0].remindEveryMinutes, 15, 'the refused call changed nothing');
  });

  test('status pages: create, get, update, list, delete; bad input is the REST 400', async () => {
    const actor = await fresh();
    const client = await withKey(actor);
    const checkId = await createCheck(server, { url: 'https://pages.example.com', name: 'Pages' }, actor.key);
    const slug = `mcp-${actor.accountId.slice(4)}`;
    const created = (await ok(client, 'create_status_page', { slug, title: 'Agent page', checkIds: [checkId] })).data;
    assert.equal(created.url, `${server.app.config.publicUrl}/status/${slug}`);
    assert.equal((await ok(client, 'get_status_page', { id: created.id })).data.title, 'Agent page');
    assert.equal((await ok(client, 'update_status_page', { id: created.id, description: 'Hi' })).data.description, 'Hi');
    assert.deepEqual((await ok(client, 'list_status_pages')).data.map((p: { id: string }) => p.id), [created.id]);
    assert.match(await fails(client, 'create_status_page', { slug: 'Bad slug', title: 't', checkIds: [] }, 400), /slug must be/);
    const incident = (await ok(client, 'create_incident', { id: created.id, title: 'Slow checkout', message: 'Looking into it', checkIds: [checkId] })).data;
    assert.equal(incident.status, 'investigating');
    const update = { id: created.id, incidentId: incident.id, status: 'resolved', message: 'Fixed' };
    assert.equal((await ok(client, 'post_incident_update', update)).data.updates.length, 2);
    assert.equal((await ok(client, 'update_incident', { id: created.id, incidentId: incident.id, impact: 'major' })).data.impact, 'major');
    assert.equal((await ok(client, 'get_incident', { id: created.id, incidentId: incident.id })).data.status, 'resolved');
    assert.deepEqual((await ok(client, 'list_incidents', { id: created.id })).data.map((i: { id: string }) => i.id), [incident.id]);
    assert.match(await fails(client, 'post_incident_update', { ...update, status: 'monitoring' }, 409), /resolved/);
    assert.deepEqual((await ok(client, 'delete_incident', { id: created.id, incidentId: incident.id })).data, { success: true });
    assert.deepEqual((await ok(client, 'delete_status_page', { id: created.id })).data, { success: true });
  });

  test('alert routing, reminders and the delivery log (issue 17)', async () => {
    const actor = await fresh();
    const client = await withKey(actor);
    const checkId = await createCheck(server, { url: 'https://example.com/mcp-route' }, actor.key);
    const created = await ok(client, 'create_webhook', { url: receiver.url('/hooks/mcp/2/x'), name: 'Routed', checkIds: [checkId], remindEveryMinutes: 10 });
    assert.deepEqual([created.data.checkIds, created.data.remindEveryMinutes], [[checkId], 10]);
    const log = await ok(client, 'list_alert_deliveries', { status: 'failed' });
    assert.deepEqual(log.data, []);
    assert.equal(log.meta.cursor, null);
    await fails(client, 'retry_alert_delivery', { id: 'dlv_00000000000000000000' }, 404);
  });
});

describe('the same rules as REST', () => {
  test('a checks:read key cannot create: the API\'s 403 message as a tool error', async () => {
    const reader = await fresh(['checks:read']);
    const client = await withKey(reader);
    const message = await fails(client, 'create_check', { url: 'https://example.com', idempotencyKey: 'r-1' }, 403);
    const rest = await server.request('POST', '/v1/public/checks', { key: reader.key, body: { url: 'https://example.com' } });
    assert.equal(rest.status, 403);
    assert.equal(message, rest.body.error.message);
    assert.match(message, /checks:write/);
    assert.match(await fails(client, 'list_webhooks', {}, 403), /alerts:read/);
  });

  test('a key restricted to one check cannot read another, nor alert settings', async () => {
    const owner = await fresh();
    const mine = await createCheck(server, { url: 'https://mine.example.com' }, owner.key);
    const other = await createCheck(server, { url: 'https://other.example.com' }, owner.key);
    const restricted = await newKey(server, owner.accountId, { scopes: ALL_SCOPES, checkIds: [mine] });
    const client = await withKey(restricted);
    assert.equal((await ok(client, 'get_check', { id: mine })).data.id, mine);
    const message = await fails(client, 'get_check', { id: other }, 403);
    const rest = await server.request('GET', `/v1/public/checks/${other}`, { key: restricted.key });
    assert.equal(message, rest.body.error.message);
    assert.deepEqual((await ok(client, 'list_checks')).data.map((c: { id: string }) => c.id), [mine]);
    assert.match(await fails(client, 'get_email_alerts', {}, 403), /unrestricted key/);
  });

  test('an API key sent as Authorization: Bearer works as it does in X-Api-Key', async () => {
    const owner = await fresh();
    const mine = await createCheck(server, { url: 'https://bearer-key.example.com' }, owner.key);
    const reader = await newKey(server, owner.accountId, { scopes: ['checks:read'], checkIds: [mine] });
    const client = await connect({ authorization: `Bearer ${reader.key}` });
    assert.deepEqual((await ok(client, 'list_checks')).data.map((c: { id: string }) => c.id), [mine]);
    assert.match(await fails(client, 'create_check', { url: 'https://x.example.com', idempotencyKey: 'b-1' }, 403), /checks:write/);
  });

  test('a bearer token from agent signup works like a key', async () => {
    const session = await signUp(server);
    const client = await connect({ authorization: `Bearer ${session.accessToken}` });
    const account = await ok(client, 'get_account');
    assert.equal(account.data.key, null, 'OAuth sessions have no key block');
    assert.deepEqual(account.data.scopes, ['checks:read', 'checks:write', 'alerts:read', 'alerts:write']);
    const id = (await ok(client, 'create_check', { url: 'https://agent.example.com', idempotencyKey: 'agent-1' })).data.id;
    assert.match(await fails(client, 'delete_check', { id }, 403), /checks:delete/);
  });
});

describe('HTTP surface of /mcp/v1', () => {
  const initialize = JSON.stringify({
    jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
  });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

  test('401 without credentials names the tool server\'s protected-resource metadata', async () => {
    const res = await fetch(`${server.url}/mcp/v1`, { method: 'POST', headers, body: initialize });
    assert.equal(res.status, 401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    const metadata = `${server.app.config.publicUrl}/.well-known/oauth-protected-resource/mcp/v1`;
    assert.equal(challenge, `Bearer realm="vigil", resource_metadata="${metadata}"`);
    const doc = await fetch(metadata.replace(server.app.config.publicUrl, server.url));
    assert.equal(((await doc.json()) as { resource: string }).resource, `${server.app.config.publicUrl}/mcp/v1`);

    const badKey = await fetch(`${server.url}/mcp/v1`, { method: 'POST', headers: { ...headers, 'x-api-key': 'nope' }, body: initialize });
    assert.equal(badKey.status, 401);
    assert.equal(badKey.headers.get('www-authenticate'), `Bearer realm="vigil", resource_metadata="${metadata}", error="invalid_token"`);
    const rest = await fetch(`${server.url}/v1/public/checks`);
    assert.match(rest.headers.get('www-authenticate') ?? '', /oauth-protected-resource"$/, 'the REST API keeps its own metadata');
  });

  test('params not of their method\'s shape are -32602 Invalid params with one line naming the problem', async () => {
    const key = (await fresh()).key;
    const rpc = async (method: string, params: unknown) => {
      const res = await fetch(`${server.url}/mcp/v1`, {
        method: 'POST',
        headers: { ...headers, 'x-api-key': key },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
      });
      assert.equal(res.status, 200);
      return (await res.json()) as { id: number; error?: { code: number; message: string }; result?: unknown };
    };
    const call = (params: unknown) => rpc('tools/call', params);
    for (const [args, kind] of [['x', 'a string'], [5, 'a number'], [[1], 'an array'], [null, 'null'], [true, 'a boolean']] as const) {
      const answer = await call({ name: 'get_check', arguments: args });
      assert.equal(answer.id, 7);
      assert.deepEqual(answer.error, { code: -32602, message: `params.arguments must be an object, not ${kind}` }, JSON.stringify(args));
    }
    assert.deepEqual((await call({ arguments: {} })).error, { code: -32602, message: 'params.name is required' });
    assert.deepEqual((await call({ name: 3 })).error, { code: -32602, message: 'params.name must be a string, not a number' });
    assert.deepEqual((await call(undefined)).error, { code: -32602, message: 'params is required' });
    assert.deepEqual((await call({ name: 'no_such_tool', arguments: {} })).error, { code: -32602, message: 'Unknown tool: no_such_tool' });
    assert.deepEqual((await rpc('resources/read', { uri: 5 })).error, { code: -32602, message: 'params.uri must be a string, not a number' });
    assert.deepEqual((await rpc('resources/read', { uri: 'vigil://nothing' })).error, { code: -32602, message: 'Unknown resource: vigil://nothing' });
    assert.deepEqual((await rpc('prompts/get', { name: ['triage_outages'] })).error, { code: -32602, message: 'params.name must be a string, not an array' });
    assert.deepEqual((await rpc('tools/list', { cursor: 5 })).error, { code: -32602, message: 'params.cursor must be a string, not a number' });
    const fine = await call({ name: 'get_account' });
    assert.equal(fine.error, undefined, 'arguments may be left out');
    assert.ok(fine.result);
  });

  test('a plain JSON-RPC POST is answered with JSON; GET and DELETE are 405 (stateless)', async () => {
    const key = (await fresh()).key;
    const res = await fetch(`${server.url}/mcp/v1`, { method: 'POST', headers: { ...headers, 'x-api-key': key }, body: initialize });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(res.headers.get('mcp-session-id'), null, 'no sessions');
    const body = (await res.json()) as { result: { serverInfo: { name: string } } };
    assert.equal(body.result.serverInfo.name, 'vigil');
    for (const method of ['GET', 'DELETE']) {
      const other = await fetch(`${server.url}/mcp/v1`, { method, headers: { 'x-api-key': key, accept: 'text/event-stream' } });
      assert.equal(other.status, 405, method);
      assert.equal(other.headers.get('allow'), 'POST');
      await other.text();
    }
  });
});
