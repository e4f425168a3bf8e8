import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/index.js';
import { InProcessBus } from '../../src/store/change-bus.js';
import { SLOTS } from '../../src/domain/leases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { until } from '../helpers/until.js';

/*
 * Several centrals (issue 26 item 2) in one process: real servers on loopback sharing one store
 * object that carries an in-process change bus, as centrals share a PostgreSQL store and its
 * LISTEN/NOTIFY. Leases of 3 s (renewed every second); probes are scripted and logged per
 * central. Every wait is a bounded loop on a condition.
 */

const LEASE_MS = 3_000;
const CHECKS = 12;
const dir = mkdtempSync(join(tmpdir(), 'vigil-centrals-'));
const real = openSqliteStore(dir);
const bus = new InProcessBus();
// Each central closes "its" store when it stops; the one underneath closes at the end.
const shared: SqliteStore = { ...real, changes: bus, close: async () => {} };
const centrals: Central[] = [];
after(async () => {
  for (const c of centrals) await c.srv.stop(true).catch(() => {});
  bus.close();
  await real.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Central {
  name: string;
  srv: TestServer;
  /** Every probe this central ran: target URL and when. */
  probes: Array<{ url: string; at: number }>;
  slots(): number;
}

let adminKey = '';

async function central(name: string): Promise<Central> {
  const probes: Central['probes'] = [];
  const dispatcher = new ScriptedDispatcher((task) => {
    probes.push({ url: task.url, at: Date.now() });
    return { ok: true };
  });
  const srv = await startServer(
    {
      instance: { name }, cluster: { leaseMs: LEASE_MS }, plans: { pro: { minCheckIntervalMinutes: 0.05, minHeartbeatIntervalSeconds: 1 } },
      rateLimits: { perKeyPerMinute: 100_000, statusPerKeyPerMinute: 100_000, statusPerAccountPerMinute: 100_000 },
    },
    undefined,
    { store: shared, dispatcher, dataDir: dir },
  );
  adminKey ||= srv.adminKey;
  const c: Central = { name, srv, probes, slots: () => srv.app.cluster.reading().slots };
  centrals.push(c);
  return c;
}

const urls = Array.from({ length: CHECKS }, (_, i) => `http://127.0.0.1:1/c${i}`);
const probedSince = (c: Central, since: number) => new Set(c.probes.filter((p) => p.at >= since).map((p) => p.url));

let a: Central;
let b: Central;
const ids = new Map<string, string>();
/** A heartbeat (every 3 s, no grace) and its ping path. */
let beat = { id: '', path: '' };

test('two centrals share the checks fairly: each check probed by exactly one of them, once per interval', { timeout: 60_000 }, async () => {
  a = await central('central-a');
  assert.equal(a.slots(), SLOTS, 'alone, a central holds every slot');
  for (const url of urls) {
    const res = await a.srv.request('POST', '/v1/public/checks', { key: adminKey, body: { url, checkFrequency: 0.05 } });
    assert.equal(res.status, 201, res.text);
    ids.set(url, res.body.data.id);
  }
  const hb = await a.srv.request('POST', '/v1/public/checks', { key: adminKey, body: { type: 'heartbeat', name: 'job', checkFrequency: 0.05 } });
  assert.equal(hb.status, 201, hb.text);
  const made = await a.srv.request('GET', `/v1/public/checks/${hb.body.data.id}`, { key: adminKey });
  beat = { id: hb.body.data.id, path: new URL(made.body.data.url).pathname };
  b = await central('central-b');
  await until('a fair split', () => (a.slots() === SLOTS / 2 && b.slots() === SLOTS / 2 ? true : undefined));
  const since = Date.now() + 1_500; // past a probe already dispatched before the split
  await until('two probes of every check', () => {
    const count = (url: string) => [...a.probes, ...b.probes].filter((p) => p.at >= since && p.url === url).length;
    return urls.every((url) => count(url) >= 2) ? true : undefined;
  });
  for (const url of urls) {
    const byA = a.probes.filter((p) => p.at >= since && p.url === url);
    const byB = b.probes.filter((p) => p.at >= since && p.url === url);
    assert.ok(byA.length === 0 || byB.length === 0, `${url} probed by one central only (a: ${byA.length}, b: ${byB.length})`);
    const times = [...byA, ...byB].map((p) => p.at).sort((x, y) => x - y);
    for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! > 1_500, `${url} probed twice within one 3 s interval`);
  }
  assert.ok(urls.some((url) => probedSince(a, since).has(url)) && urls.some((url) => probedSince(b, since).has(url)), 'both centrals probe');
  // The history (and the dashboard) says which central probed each result.
  const byB = urls.find((url) => probedSince(b, since).has(url))!;
  const rows = (await a.srv.request('GET', `/v1/public/checks/${ids.get(byB)}/history?limit=1`, { key: adminKey })).body.data;
  assert.equal(rows[0].details.central, 'central-b');
  const instances = await shared.cluster.live(Date.now());
  assert.deepEqual(instances.map((i) => i.name), ['central-a', 'central-b']);
});

test('SIGTERM: a stopping central hands its checks over at once, and the other probes them all', { timeout: 60_000 }, async () => {
  await a.srv.stop(true);
  centrals.splice(centrals.indexOf(a), 1);
  // Handed over, not left to run out: a's slots are claimable (or b's already) at once, long before its 3 s leases would end.
  await until('a’s slots to be free or b’s', async () => ((await shared.cluster.claimable(Date.now())).length + b.slots() === SLOTS ? true : undefined), 5);
  await until('b to hold every slot', () => (b.slots() === SLOTS ? true : undefined));
  const since = Date.now();
  await until('b to probe every check', () => (urls.every((url) => probedSince(b, since).has(url)) ? true : undefined));
  assert.deepEqual((await shared.cluster.live(Date.now())).map((i) => i.name), ['central-b']);
});

// How long the take-over takes (issue 26: within leaseMs + 5 s) is measured by the failover bench, not asserted here.
test('a central cut off from the database stops probing before the other takes its checks over', { timeout: 60_000 }, async () => {
  const c = await central('central-c');
  await until('a fair split again', () => (b.slots() === SLOTS / 2 && c.slots() === SLOTS / 2 ? true : undefined));
  const since = Date.now() + 1_500;
  await until('c to probe its share', () => (probedSince(c, since).size > 0 && probedSince(c, since).size + probedSince(b, since).size >= CHECKS ? true : undefined));
  const cOwned = [...probedSince(c, since)];
  // Its renewals stop, as when its connections to the database are cut or the process is paused.
  c.srv.app.jobs.stop();
  const cutAt = Date.now();
  await until('c to stop holding its lease', () => (c.srv.app.cluster.holding() ? undefined : true));
  const ready = await c.srv.request('GET', '/readyz', { key: null });
  assert.equal(ready.status, 503);
  assert.equal(ready.body.checks.lease, 'lapsed: this central cannot renew its lease');
  const api = await c.srv.request('GET', '/v1/public/checks', { key: adminKey });
  assert.equal(api.status, 503, 'the API answers 503 at once instead of hanging');
  assert.equal(api.body.error.code, 503);
  const takenAt = await until('b to take every check over', () => (b.slots() === SLOTS ? Date.now() : undefined), 300);
  await until('b to probe c’s former checks', () => (cOwned.every((url) => probedSince(b, takenAt).has(url)) ? true : undefined));
  const lastByC = Math.max(...c.probes.map((p) => p.at));
  const firstByB = Math.min(...b.probes.filter((p) => p.at >= cutAt && cOwned.includes(p.url)).map((p) => p.at));
  assert.ok(lastByC < firstByB, 'c had stopped probing before b started on its checks');
});

test('heartbeat pings to either central count once each; a missed deadline is evaluated once', { timeout: 60_000 }, async () => {
  const d = await central('central-d');
  await until('a fair split between b and d', () => (b.slots() === SLOTS / 2 && d.slots() === SLOTS / 2 ? true : undefined));
  const [owner, other] = b.srv.app.cluster.owns(beat.id) ? [b, d] : [d, b];
  const heardElsewhere: string[] = [];
  other.srv.app.statusFeed.subscribe((change) => {
    if (change.checkId === beat.id) heardElsewhere.push(change.type);
  });
  const history = async () => (await owner.srv.request('GET', `/v1/public/checks/${beat.id}/history?limit=100`, { key: adminKey })).body.data as Array<{ type: string; status: string; details: Record<string, unknown> }>;
  const pings = async () => (await history()).filter((r) => r.type === 'ping');
  const before = (await pings()).length;
  // To the central that does not own the check: acknowledged once in the store's inbox, recorded by the owner.
  const viaOther = await fetch(`${other.srv.url}${beat.path}`);
  assert.equal(viaOther.status, 200);
  await until('the owner to record the ping the other central received', async () => ((await pings()).length === before + 1 ? true : undefined));
  assert.equal((await pings())[0]!.details.central, other.name, 'the central that received it');
  const viaOwner = await fetch(`${owner.srv.url}${beat.path}`);
  assert.equal(viaOwner.status, 200);
  await until('the owner’s own ping', async () => ((await pings()).length === before + 2 ? true : undefined));
  assert.deepEqual(await shared.pingInbox.take(Array.from({ length: SLOTS }, (_, i) => i), 10), [], 'the inbox is empty: each ping recorded once');
  // No more pings: the deadline (3 s, plus the inbox's 2 s) passes; only the owner evaluates it.
  const missed = await until('the check to go down', async () => {
    const events = (await history()).filter((r) => r.type === 'event' && r.details.event === 'missed');
    return events.length > 0 ? events : undefined;
  });
  assert.equal(missed.length, 1, 'one missed deadline, not one per central');
  // The other central's wheel holds the same deadline: once it has ticked well past it, and what it recorded is written, still one.
  const seenAt = Date.now();
  await until('the other central to tick past the deadline', () => ((other.srv.app.engine.metrics.lastTickAt ?? 0) > seenAt + 600 ? true : undefined));
  await other.srv.app.heartbeats.idle();
  assert.equal((await history()).filter((r) => r.type === 'event' && r.details.event === 'missed').length, 1);
  assert.equal((await pings()).length, before + 2);
  // The other central's live stream and page caches heard of the status change the owner made.
  await until('the status change on the other central’s feed', () => (heardElsewhere.length > 0 ? true : undefined));
});

test('a check created, changed or deleted on one central is followed by the other within a second', { timeout: 60_000 }, async () => {
  const [one, two] = centrals.filter((c) => c.srv.app.cluster.holding());
  const made = await one!.srv.request('POST', '/v1/public/checks', { key: adminKey, body: { url: 'http://127.0.0.1:1/late', checkFrequency: 0.05 } });
  assert.equal(made.status, 201, made.text);
  const id = made.body.data.id as string;
  await until('the other central to schedule it', () => (two!.srv.app.liveChecks.get(id) ? true : undefined), 20);
  const since = Date.now();
  await until('its owner to probe it', () => ([one!, two!].some((c) => probedSince(c, since).has('http://127.0.0.1:1/late')) ? true : undefined));
  const changed = await one!.srv.request('PATCH', `/v1/public/checks/${id}`, { key: adminKey, body: { checkFrequency: 0.1 } });
  assert.equal(changed.status, 200, changed.text);
  await until('the other central to follow the change', () => ((two!.srv.app.liveChecks.get(id) as { intervalMs?: number } | undefined)?.intervalMs === 6_000 ? true : undefined), 20);
  assert.equal((await one!.srv.request('DELETE', `/v1/public/checks/${id}`, { key: adminKey })).status, 200);
  await until('the other central to drop it', () => (two!.srv.app.liveChecks.get(id) ? undefined : true), 20);
});
