import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HOUR_MS } from '../../src/domain/rollup.js';
import { openStatsWorld } from '../helpers/stats-world.js';

const T = Date.UTC(2026, 6, 1, 9);
const ok = (responseTime: number) => ({ ok: true, responseTime, timing: null });

test('bucketTotals: one [start, totals] per bucket with results, written rows and buffered ones merged', async () => {
  const world = openStatsWorld(T);
  try {
    const account = await world.accounts.createAccount('buckets@example.com', 'pro');
    const key = (await world.accounts.createKey({ account: account.id, scopes: ['checks:read', 'checks:write'] })).key;
    const id = (await world.checks.create(await world.principal(key), { url: 'https://x.example.com/', checkFrequency: 1 })).id;
    const seq = (await world.store.checks.byId(id))!.seq;
    const { rollups } = world;
    rollups.addSample(seq, T - 2 * HOUR_MS, ok(100));
    rollups.addSample(seq, T - 2 * HOUR_MS + 1000, { ok: false, responseTime: null, timing: null });
    rollups.addSample(seq, T + 1000, ok(300)); // closes (writes) the older hour; this one stays buffered
    const hours = await rollups.bucketTotals(seq, 'hour', T - 3 * HOUR_MS, T + HOUR_MS);
    assert.deepEqual(hours.map(([at, t]) => [at, t.total, t.success, t.rtSum]), [
      [T - 2 * HOUR_MS, 2, 1, 100],
      [T, 1, 1, 300],
    ]);
    assert.deepEqual((await rollups.bucketTotals(seq, 'hour', T - HOUR_MS, T)), [], 'the half-open range leaves out buckets starting at its end');
    const days = await rollups.bucketTotals(seq, 'day', T - 24 * HOUR_MS, T + 24 * HOUR_MS);
    assert.deepEqual(days.map(([, t]) => t.total), [3], 'the open day: all buffered');
  } finally {
    await world.close();
  }
});
