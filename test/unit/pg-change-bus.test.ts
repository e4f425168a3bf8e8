import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PgChangeBus } from '../../src/store/postgres/notify-bus.js';
import { startPostgres, type PgCluster } from '../helpers/postgres.js';

// The change bus of several centrals on PostgreSQL: LISTEN/NOTIFY between two connections pools,
// as between two `vigil serve` processes.
let cluster: PgCluster;
before(async () => {
  cluster = await startPostgres();
});
after(async () => {
  await cluster.stop();
});

test('a notification published by one central reaches another, topic by topic; one too long is refused', async () => {
  const url = await cluster.createDatabase();
  const pools = [new pg.Pool({ connectionString: url, max: 2 }), new pg.Pool({ connectionString: url, max: 2 })];
  const errors: unknown[] = [];
  const [a, b] = pools.map((pool) => new PgChangeBus(url, pool, (err) => errors.push(err)));
  try {
    const heard: string[] = [];
    b!.subscribe('checks', (payload) => heard.push(`checks ${payload}`));
    await b!.open();
    b!.subscribe('status', (payload) => heard.push(`status ${payload}`)); // after open: listens at once
    await a!.open();
    // The LISTEN of a topic subscribed after open is on its way; wait for it by a round trip.
    for (let i = 0; i < 100 && heard.length === 0; i++) {
      a!.publish('status', 'warm-up');
      await new Promise((r) => setTimeout(r, 20));
    }
    heard.length = 0;
    const sentAt = Date.now();
    a!.publish('checks', JSON.stringify({ from: 'a', id: 'chk_1' }));
    a!.publish('status', 'down');
    a!.publish('inbox', 'nobody listens');
    const real = () => heard.filter((h) => h !== 'status warm-up');
    for (let i = 0; i < 100 && real().length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(real(), ['checks {"from":"a","id":"chk_1"}', 'status down']);
    assert.ok(Date.now() - sentAt < 1_000, 'within a second');
    a!.publish('status', 'x'.repeat(9_000));
    assert.match(String(errors.at(-1)), /over PostgreSQL's limit/);
  } finally {
    a!.close();
    b!.close();
    for (const pool of pools) await pool.end();
  }
});
