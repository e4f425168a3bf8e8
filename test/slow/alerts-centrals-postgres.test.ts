import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AlertEvent } from '../../src/domain/events.js';
import { OUTBOX_GRACE_MS } from '../../src/alerts/alert-pipeline.js';
import { startPostgres, type PgCluster } from '../helpers/postgres.js';
import type { TestServer } from '../helpers/server.js';
import { startPgCentral } from '../helpers/pg-central.js';
import { startReceiver, type Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { assertCaTrusted } from '../helpers/fixtures/alerts-tls.js';
import { createFastCheck, createWebhook } from '../helpers/alerts-e2e.js';
import { until } from '../helpers/until.js';

/*
 * Alerts exactly once across centrals (issue 26 item 2): two centrals in one process, each with
 * its own PostgreSQL store (pool and LISTEN connection) on one database, as two `vigil serve`
 * processes are. A state change both centrals route (a stale owner's late one) is delivered
 * once; a delivery a central left unfinished when it stopped is finished by the other. Probes
 * are scripted; every wait is a bounded loop on a condition.
 */

let cluster: PgCluster;
let receiver: Receiver;
let url = '';
let failing = false;
/** The admin's key, made by whichever central started first. */
let adminKey = '';
/** Targets that fail whatever `failing` says. */
const down = new Set<string>();
const centrals: TestServer[] = [];
const seen: Array<{ central: string; checkId: string; accountId: string; event: AlertEvent }> = [];

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
  const srv = await startPgCentral(url, name, (task) => !failing && !down.has(task.url));
  srv.app.recorder.onEvent((check, event) => seen.push({ central: name, checkId: check.id, accountId: check.accountId, event }));
  centrals.push(srv);
  return srv;
}

const received = (event: string) => receiver.received.filter((r) => r.headers['x-vigil-event'] === event);

test('a state change routed by both centrals is delivered once; a delivery left by a stopped central is finished by the other', { timeout: 120_000 }, async () => {
  const a = await central('a');
  const b = await central('b');
  const key = a.adminKey || b.adminKey;
  adminKey = key;
  assert.ok(key, 'one of the two created the admin');
  await createWebhook(a, key, { url: receiver.url('/centrals'), events: ['website_down', 'website_up'] });
  const checkId = await createFastCheck(b, key, 'http://127.0.0.1:1/shop');
  const status = async (srv: TestServer) => (await srv.request('GET', `/v1/public/checks/${checkId}`, { key })).body.data.status as string;
  await until('the check to be up', async () => ((await status(a)) === 'up' ? true : undefined));
  const owner = await until('one central to own the check', () => centrals.find((c) => c.app.cluster.owns(checkId)));
  const other = centrals.find((c) => c !== owner)!;

  failing = true;
  await until('website_down to arrive', () => (received('website_down').length > 0 ? true : undefined));
  const down = seen.find((s) => s.checkId === checkId && s.event.type === 'website_down')!;
  // The other central routes the same transition too (as a stale owner's late write would).
  other.app.alerts.pipeline.handle({ id: down.checkId, accountId: down.accountId }, down.event);
  owner.app.alerts.pipeline.handle({ id: down.checkId, accountId: down.accountId }, down.event);
  await other.app.alerts.idle();
  await owner.app.alerts.idle();
  const deliveries = async (event: string) =>
    ((await other.request('GET', `/v1/public/alerts/deliveries?checkId=${checkId}`, { key })).body.data as Array<{ id: string; event: string; status: string }>)
      .filter((d) => d.event === event);
  assert.equal((await deliveries('website_down')).length, 1, 'one delivery of the transition');
  assert.equal(received('website_down').length, 1, 'sent once');

  // The owner's attempt to send website_up hangs; the owner stops; the other central sends it.
  receiver.respond = (r) => (r.headers['x-vigil-event'] === 'website_up' ? 'hang' : 200);
  failing = false;
  await until('the owner to attempt website_up', () => (received('website_up').length > 0 ? true : undefined));
  const attempted = String(received('website_up')[0]!.headers['x-vigil-delivery']);
  receiver.respond = () => 200;
  await owner.stop();
  centrals.splice(centrals.indexOf(owner), 1);
  await until('the other central to deliver it', async () => ((await deliveries('website_up'))[0]?.status === 'delivered' ? true : undefined));
  const ups = await deliveries('website_up');
  assert.deepEqual(ups.map((d) => d.id), [attempted], 'the same delivery, finished by the other central');
  assert.equal(received('website_up').filter((r) => r.headers['x-vigil-delivery'] === attempted).length, 2, 'the hung attempt, then the one that went through');
  assert.equal(received('website_down').length, 1);
});

test('a state change its central never routed (it died between the commit and the routing) is routed by the other central, once', { timeout: 120_000 }, async () => {
  const survivor = centrals[0]!;
  const joined = await central('c');
  await until('both centrals to hold slots', () => (survivor.app.cluster.heldSlots().length > 0 && joined.app.cluster.heldSlots().length > 0 ? true : undefined));
  const key = adminKey;
  const target = 'http://127.0.0.1:1/orphan';
  const checkId = await createFastCheck(survivor, key, target);
  await until('the check to be up', async () => ((await survivor.request('GET', `/v1/public/checks/${checkId}`, { key })).body.data.status === 'up' ? true : undefined));
  const owner = await until('one central to own the check', () => centrals.find((c) => c.app.cluster.owns(checkId)));
  const other = centrals.find((c) => c !== owner)!;
  // The owner commits the state change and its outbox event, and never routes anything again.
  const unrouted: Array<{ event: AlertEvent; outboxId: string | null }> = [];
  owner.app.alerts.pipeline.handle = (_ref, event, outboxId = null) => void unrouted.push({ event, outboxId });
  const mine = (event: string) => received(event).filter((r) => r.json.check.id === checkId);
  down.add(target);
  const event = await until('the owner to raise website_down', () => unrouted.find((u) => u.event.type === 'website_down'));
  assert.ok(event.outboxId, 'kept in the outbox with its state change');
  await until('the other central to deliver it', () => (mine('website_down').length > 0 ? true : undefined), 400);
  assert.ok(other.app.alerts.pipeline.metrics.swept >= 1, 'by its sweep');
  // Further sweeps (both centrals run them) find nothing: the alerts write claimed the event.
  const swept = other.app.alerts.pipeline.metrics.swept;
  await other.app.alerts.pipeline.sweep();
  await other.app.alerts.idle();
  assert.equal(other.app.alerts.pipeline.metrics.swept, swept);
  assert.deepEqual(await other.app.store.alerts.outbox.due(Date.now() + OUTBOX_GRACE_MS, 10), []);
  assert.equal(mine('website_down').length, 1, 'delivered once');
  down.delete(target);
});
