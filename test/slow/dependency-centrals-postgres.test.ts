import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startPostgres, type PgCluster } from '../helpers/postgres.js';
import type { TestServer } from '../helpers/server.js';
import { startPgCentral } from '../helpers/pg-central.js';
import { startReceiver, type Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { assertCaTrusted } from '../helpers/fixtures/alerts-tls.js';
import { createFastCheck, createWebhook } from '../helpers/alerts-e2e.js';
import { until } from '../helpers/until.js';

/*
 * Issue 35 item 1 with several centrals: a dependant owned by one central, its parent by the
 * other, two centrals in one process on one PostgreSQL database (as in
 * alerts-centrals-postgres.test.ts). The parent is probed every 5 min, the dependant every 3 s:
 * when both fail, the dependant confirms down long before its parent's turn. Its central asks the
 * parent's central on the change bus for a probe now, hears it is down and holds the alert; the
 * parent back up on its central releases it. Probes are scripted; every wait is bounded.
 */

let cluster: PgCluster;
let receiver: Receiver;
let url = '';
const down = new Set<string>();
const centrals: TestServer[] = [];

before(async () => {
  assertCaTrusted();
  cluster = await startPostgres();
  url = await cluster.createDatabase();
  receiver = await startReceiver();
});
after(async () => {
  for (const c of centrals) await c.stop().catch(() => {});
  await receiver.close();
  await cluster.stop();
});

async function central(name: string): Promise<TestServer> {
  const srv = await startPgCentral(url, name, (task) => !down.has(task.url));
  centrals.push(srv);
  return srv;
}

test('a parent owned by another central is probed at once over the bus: only the parent pages; its recovery there releases the dependant\'s alert', { timeout: 120_000 }, async () => {
  const a = await central('a');
  const b = await central('b');
  const key = a.adminKey || b.adminKey;
  await until('both centrals to hold slots', () => (a.app.cluster.heldSlots().length > 0 && b.app.cluster.heldSlots().length > 0 ? true : undefined));
  await createWebhook(a, key, { url: receiver.url('/deps'), events: ['website_down', 'website_up', 'website_error'] });

  /** A check made until one is owned by `owner` (slots are leased by check id). */
  const ownedBy = async (owner: TestServer, make: (n: number) => Promise<string>) => {
    for (let n = 0; n < 40; n++) {
      const id = await make(n);
      const holder = await until('an owner', () => centrals.find((c) => c.app.cluster.owns(id)));
      if (holder === owner) return id;
    }
    throw new Error('no check landed on the central wanted');
  };
  const parentUrl = (n: number) => `http://127.0.0.1:1/router/${n}`;
  const parent = await ownedBy(a, (n) => createFastCheck(a, key, parentUrl(n), { name: 'router', checkFrequency: 5 }));
  const parentTarget = (await a.request('GET', `/v1/public/checks/${parent}`, { key })).body.data.url as string;
  const child = await ownedBy(b, (n) => createFastCheck(b, key, `http://127.0.0.1:1/app/${n}`, {
    name: 'app', checkFrequency: 0.05, downConfirmationAttempts: 3, immediateRecheckEnabled: true, dependsOn: [parent],
  }));
  const childTarget = (await b.request('GET', `/v1/public/checks/${child}`, { key })).body.data.url as string;
  const status = async (id: string) => (await b.request('GET', `/v1/public/checks/${id}`, { key })).body.data.status as string;
  await until('both up', async () => ((await status(parent)) === 'up' && (await status(child)) === 'up' ? true : undefined));
  const heard = () => receiver.received.filter((r) => r.path.startsWith('/deps') && [parent, child].includes(r.json.check.id))
    .map((r) => `${r.json.event} ${r.json.check.id === parent ? 'parent' : 'child'}`);

  down.add(parentTarget).add(childTarget);
  await until('the child down', async () => ((await status(child)) === 'down' ? true : undefined));
  await until('the parent\'s alert', () => (heard().includes('website_down parent') ? true : undefined));
  await new Promise((r) => setTimeout(r, 3_000)); // time for a wrong child alert to arrive
  assert.deepEqual(heard(), ['website_down parent'], 'the parent, probed at once by its own central, pages alone');

  down.delete(parentTarget);
  const probed = a.app.engine.probeNow(parent); // its next turn is minutes away: the test does not wait for it
  assert.ok(probed, 'the parent is central a\'s');
  assert.equal(await probed, 'up');
  await until('the child\'s held alert', () => (heard().includes('website_down child') ? true : undefined));
  assert.deepEqual(heard().sort(), ['website_down child', 'website_down parent', 'website_up parent']);
  down.delete(childTarget);
});
