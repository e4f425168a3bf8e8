import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ManualClock } from '../../src/domain/clock.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';

/**
 * Issue 35 item 2: a heartbeat on a cron schedule has no interval. The record, the list, the
 * dashboard's summary and the tool server say `interval: null` and give the schedule, its zone,
 * its words and when the next ping is expected, which moves on as the runs pass.
 */

const clock = new ManualClock(Date.UTC(2026, 5, 1, 12)); // 14:00 in Paris (CEST)
const CHECKS = '/v1/public/checks';
let srv: TestServer;

before(async () => {
  srv = await startServer({}, clock, { dispatcher: new ScriptedDispatcher(), autoTick: false });
});
after(() => srv.stop());

async function create(body: Record<string, unknown>): Promise<string> {
  const res = await srv.request('POST', CHECKS, { body });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id as string;
}
const record = async (id: string) => (await srv.request('GET', `${CHECKS}/${id}`)).body.data;

test('a cron heartbeat: interval null; schedule, zone, words and the next expected ping on the record, the list and the summary', async () => {
  const id = await create({ type: 'heartbeat', name: 'nightly backup', schedule: '0 3 * * *', timezone: 'Europe/Paris' });
  const got = await record(id);
  assert.equal(got.interval, null, 'not "every 5 min"');
  assert.equal(got.schedule, '0 3 * * *');
  assert.equal(got.timezone, 'Europe/Paris');
  assert.equal(got.scheduleDescription, 'At 03:00, every day');
  assert.equal(got.nextExpectedAt, '2026-06-02T01:00:00.000Z', '03:00 in Paris is 01:00 UTC in summer');

  clock.advance(14 * 3_600_000); // past that run: the next is a day later
  assert.equal((await record(id)).nextExpectedAt, '2026-06-03T01:00:00.000Z');

  const item = ((await srv.request('GET', `${CHECKS}?limit=100`)).body.data as Array<Record<string, unknown>>).find((c) => c.id === id)!;
  assert.deepEqual([item.interval, item.schedule, item.timezone], [null, '0 3 * * *', 'Europe/Paris']);
  const row = ((await srv.request('GET', `${CHECKS}/summary`)).body.data as Array<Record<string, unknown>>).find((c) => c.id === id)!;
  assert.deepEqual(
    [row.interval, row.schedule, row.scheduleDescription, row.nextExpectedAt],
    [null, '0 3 * * *', 'At 03:00, every day', '2026-06-03T01:00:00.000Z'],
  );

  // The record read with GET goes back as a PATCH unchanged, though its next ping moved on meanwhile.
  const sent = await record(id);
  clock.advance(24 * 3_600_000);
  const patched = await srv.request('PATCH', `${CHECKS}/${id}`, { body: { ...sent, name: 'nightly backup (db)' } });
  assert.equal(patched.status, 200, `PATCH: ${patched.text}`);
  const after = await record(id);
  assert.deepEqual([after.name, after.interval, after.nextExpectedAt], ['nightly backup (db)', null, '2026-06-04T01:00:00.000Z']);

  assert.equal((await srv.request('POST', `${CHECKS}/${id}/toggle`, { body: { disabled: true } })).status, 200);
  assert.equal((await record(id)).nextExpectedAt, null, 'paused: no ping is expected');
});

test('an interval heartbeat and a website keep their interval, with no schedule', async () => {
  const beat = await record(await create({ type: 'heartbeat', checkFrequency: 60 }));
  assert.deepEqual([beat.interval, beat.schedule, beat.scheduleDescription, beat.nextExpectedAt], [60, null, null, null]);
  const site = await record(await create({ url: 'http://127.0.0.1:9/x', checkFrequency: 5 }));
  assert.deepEqual([site.interval, site.schedule, site.nextExpectedAt], [5, null, null]);
});

test('an uncommon schedule has no words but still its expression and next run; the tool server says the same', async () => {
  const id = await create({ type: 'heartbeat', schedule: '0 9 1-7 * 1', timezone: 'UTC' });
  const got = await record(id);
  assert.equal(got.scheduleDescription, null, 'day-of-month and weekday together: no short sentence says it right');
  assert.ok(got.nextExpectedAt);

  const client = new Client({ name: 'vigil-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp/v1`), { requestInit: { headers: { 'x-api-key': srv.adminKey } } }));
  try {
    const res = (await client.callTool({ name: 'get_check', arguments: { id } })) as unknown as { structuredContent: { data: Record<string, unknown> } };
    const data = res.structuredContent.data;
    assert.deepEqual([data.interval, data.schedule, data.nextExpectedAt], [null, '0 9 1-7 * 1', got.nextExpectedAt]);
  } finally {
    await client.close();
  }
});
