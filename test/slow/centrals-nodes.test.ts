import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../helpers/until.js';
import { startCentrals, startTarget, type Central, type Centrals, type Target } from '../helpers/centrals.js';
import { fairShare } from '../../src/domain/leases.js';

/*
 * A prober node with several centrals, for real (issue 26 item 2, docs/high-availability.md):
 * two `vigil serve` processes on one PostgreSQL database, one `vigil prober` of region EDGE
 * connected to central-a only, checks pinned to EDGE whose slots both centrals own. Every
 * check is probed by the node (its results carry EDGE), whichever central owns it: the owner
 * records what the node sent to the other central, through the store's inbox, once each; and
 * neither central probes them from its own region while the node is up. Every wait is a
 * bounded loop on a condition.
 */

const INTERVAL_MS = 3_000;
const EDGE = 'vps-us-1';
const CENTRAL_REGION = 'vps-eu-1';

describe('a prober node and two centrals on one PostgreSQL', { timeout: 180_000 }, () => {
  let world: Centrals;
  let target: Target;
  let a: Central;
  let b: Central;
  const checks = new Map<string, { id: string; seq: number }>();
  let database = '';

  /** Every history row of the checks, from the database itself. */
  const rows = async () =>
    world.pg.sql<{ check_seq: string; at: string; region: string; kind: string; meta: string | null }>(
      database, 'SELECT check_seq, at, region, kind, meta FROM history WHERE check_seq = ANY($1::bigint[]) ORDER BY at', [[...checks.values()].map((c) => c.seq)],
    );
  const rowsOf = (all: Awaited<ReturnType<typeof rows>>, seq: number) => all.filter((r) => Number(r.check_seq) === seq && r.kind === 'probe');

  before(async () => {
    target = await startTarget();
    world = await startCentrals();
    database = new URL(world.databaseUrl).pathname.slice(1);
    a = await world.start('central-a');
    b = await world.start('central-b');
    await until('a fair split', async () => {
      for (const c of [a, b]) if ((await c.cluster()).slots !== fairShare([a.name, b.name], c.name)) return undefined;
      return true;
    });
  });

  after(async () => {
    await world?.close();
    await target?.close();
  });

  test('the node probes every check of its region, whichever central owns it; each result is recorded once, by the owner', async () => {
    const node = world.prober(EDGE, [a]);
    const saidBy = (c: Central) => async () => {
      const regions = (await c.request('GET', '/v1/public/regions')).body?.data as Array<{ id: string; connected: number; online: boolean }> | undefined;
      return regions?.find((r) => r.id === EDGE)?.online ? true : undefined;
    };
    // Connected to a; b knows it from the store.
    await until('the node connected to a', saidBy(a), 300).catch((err: Error) => {
      throw new Error(`${err.message}; the node said: ${node.log().slice(-2_000)}`);
    });
    await until('b to see the region lit', saidBy(b), 300);
    // Checks until both centrals own some (a check's owner is its slot's, by the database).
    const owners = new Set<string>();
    for (let i = 0; i < 40 && (checks.size < 6 || owners.size < 2); i++) {
      const path = `/n${i}`;
      const made = await (i % 2 === 0 ? a : b).request('POST', '/v1/public/checks', {
        body: { url: target.url(path), name: path, checkFrequency: INTERVAL_MS / 60_000, checkRegionOverride: EDGE },
      });
      assert.equal(made.status, 201, made.text);
      const id = made.body.data.id as string;
      const [row] = await world.pg.sql<{ seq: string }>(database, 'SELECT seq FROM checks WHERE id = $1', [id]);
      checks.set(path, { id, seq: Number(row!.seq) });
      owners.add((await world.ownerOf(id)) ?? 'none');
    }
    assert.deepEqual([...owners].sort(), [a.name, b.name], 'both centrals own some of the checks');
    const paths = [...checks.keys()];
    // Every probe the node made by now is recorded.
    await until('three probes of every check', () => (paths.every((p) => (target.hits.get(p) ?? []).length >= 3) ? true : undefined), 600);
    const made = new Map(paths.map((p) => [p, (target.hits.get(p) ?? []).length]));
    const all = await until('every probe made so far recorded', async () => {
      const found = await rows();
      return paths.every((p) => rowsOf(found, checks.get(p)!.seq).length >= made.get(p)!) ? found : undefined;
    }, 200);
    for (const path of paths) {
      const { seq } = checks.get(path)!;
      const mine = rowsOf(all, seq);
      assert.ok(mine.every((r) => r.region === EDGE), `${path}: every result is the node's, none probed from ${CENTRAL_REGION}: ${mine.map((r) => r.region).join(' ')}`);
      const times = mine.map((r) => r.at);
      assert.equal(new Set(times).size, times.length, `${path}: no result recorded twice`);
      assert.ok(mine.length <= (target.hits.get(path) ?? []).length, `${path}: no more results than probes`);
      // Taken in by a, the central the node is connected to, wherever it was recorded.
      assert.ok(mine.every((r) => (JSON.parse(r.meta ?? '{}') as { central?: string }).central === a.name));
    }
    // The owner took every result handed to it out of the inbox with its write.
    await until('the inbox empty', async () => {
      const [left] = await world.pg.sql<{ n: string }>(database, 'SELECT count(*) AS n FROM ping_inbox');
      return Number(left!.n) === 0 ? true : undefined;
    }, 100);
    // b's checks are up on b as on a: recorded by their owner, who moves their state.
    for (const path of paths) {
      const status = (await b.request('GET', `/v1/public/checks/${checks.get(path)!.id}`)).body.data.status as string;
      assert.equal(status, 'up', `${path} up`);
    }
  });

  test('a failure seen from the centrals’ region is re-checked by the node, also for a check the other central owns', async () => {
    // A check of the centrals' own region that b owns: b probes it, and its only peer is the node on a.
    let id = '';
    for (let i = 0; i < 40 && !id; i++) {
      const made = await b.request('POST', '/v1/public/checks', {
        body: { url: target.url(`/peer${i}`), name: `peer${i}`, checkFrequency: INTERVAL_MS / 60_000, downConfirmationAttempts: 1 },
      });
      assert.equal(made.status, 201, made.text);
      if ((await world.ownerOf(made.body.data.id)) === b.name) id = made.body.data.id as string;
    }
    assert.notEqual(id, '', 'b owns one of them');
    const path = new URL((await b.request('GET', `/v1/public/checks/${id}`)).body.data.url as string).pathname;
    target.broken.add(path);
    const regions = await until('the peer’s verdict', async () => {
      const all = (await b.request('GET', '/v1/public/checks/status')).body?.data as Array<{ id: string; regions: { regionsTotal: number } | null }> | undefined;
      const mine = all?.find((c) => c.id === id)?.regions;
      return mine && mine.regionsTotal === 2 ? mine : undefined;
    }, 200);
    assert.deepEqual(regions, { primary: CENTRAL_REGION, peer: EDGE, regionsTotal: 2, regionsDown: 2, confirmedDown: true });
  });

  test('the node gone: after nodes.failoverMs each central probes its own share from its own region', async () => {
    const [node] = world.probers;
    node!.child.kill('SIGKILL');
    await node!.exited;
    const paths = [...checks.keys()];
    const since = Date.now();
    await until('every check probed from the centrals’ region', async () => {
      const found = await rows();
      return paths.every((p) => rowsOf(found, checks.get(p)!.seq).some((r) => r.region === CENTRAL_REGION && Number(r.at) >= since)) ? true : undefined;
    }, 300);
  });
});
