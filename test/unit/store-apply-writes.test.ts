import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MINUTE_MS, minuteKey } from '../../src/domain/rollup.js';
import type { ObservationWrite, WriteRecord } from '../../src/store/writes.js';
import { openStatsWorld, type StatsWorld } from '../helpers/stats-world.js';

const T = Date.UTC(2026, 6, 1, 9);

/** A probe result as the recorder writes it: the history row and its rollup sample. */
function result(checkId: string, checkSeq: number, at: number, responseTime: number): ObservationWrite {
  return {
    kind: 'observation', checkId, checkSeq, at,
    result: { checkSeq, at, kind: 'probe', status: 'up', statusCode: 200, responseTime, timing: null, error: null, region: 'local', snippet: null, meta: null },
    event: null,
    sample: { ok: true, responseTime, timing: null },
    sampleAt: at,
    runtime: null, statusChange: null, verifyStatus: null, endMaintenance: null, domain: null, domainMemory: null,
  };
}

async function seed(world: StatsWorld): Promise<{ id: string; seq: number }> {
  const account = await world.accounts.createAccount('writes@example.com', 'pro');
  const principal = await world.principal((await world.accounts.createKey({ account: account.id, scopes: ['checks:write'] })).key);
  const { id } = await world.checks.create(principal, { url: 'https://writes.example.com/', checkFrequency: 1 });
  return { id, seq: (await world.store.checks.byId(id))!.seq };
}

async function apply(world: StatsWorld, batch: WriteRecord[]): Promise<WriteRecord[]> {
  const failed: WriteRecord[] = [];
  await world.store.applyWrites(batch, (record) => failed.push(record));
  return failed;
}

/** Raw results and rollups over [from, to) agree: the same count and the same response time sum. */
async function assertAgree(world: StatsWorld, seq: number, from: number, to: number, results: number): Promise<void> {
  const raw = await world.store.rollups.rawSamples(seq, [[from, to]]);
  assert.equal(raw.length, results, 'results in history');
  const totals = await world.store.rollups.totals(seq, 'minute', [[from, to]]);
  assert.equal(totals.total, results, 'results in the rollups');
  assert.equal(totals.rtSum, raw.reduce((sum, s) => sum + (s.responseTime ?? 0), 0));
}

test('a record that fails half-way leaves none of its rows, and the rollups agree with history', async () => {
  const world = openStatsWorld(T);
  try {
    const { id, seq } = await seed(world);
    const at = minuteKey(T) + 1_000;
    // Its result row is written before the event, whose meta cannot be stored (JSON has no BigInt).
    const broken: ObservationWrite = {
      ...result(id, seq, at + 1_000, 200),
      event: { checkSeq: seq, at: at + 1_000, status: 'note', region: null, meta: { n: 1n } },
    };
    const failed = await apply(world, [result(id, seq, at, 100), broken, result(id, seq, at + 2_000, 300)]);
    assert.deepEqual(failed, [broken], 'the broken record alone is reported');
    const rows = (await world.store.history.forCheck(seq, 10)).map((r) => r.at).sort();
    assert.deepEqual(rows, [at, at + 2_000], 'no row of the broken record, both of the others');
    await assertAgree(world, seq, minuteKey(T), minuteKey(T) + MINUTE_MS, 2);
  } finally {
    await world.close();
  }
});

test('when the open minutes cannot be written the batch fails whole: they stay as they were and nothing is lost', async () => {
  const world = openStatsWorld(T);
  try {
    const { id, seq } = await seed(world);
    const first = minuteKey(T);
    assert.deepEqual(await apply(world, [result(id, seq, first + 1_000, 100), result(id, seq, first + 2_000, 200)]), []);
    // The next minute's first result closes the first minute, which writes its row: make that fail.
    world.store.db.exec("CREATE TEMP TRIGGER refuse BEFORE INSERT ON rollup_minute BEGIN SELECT RAISE(ABORT, 'disk says no'); END");
    const next = result(id, seq, first + MINUTE_MS + 1_000, 300);
    // A rollup row that cannot be written is the storage failing, as a commit can: the batch throws.
    await assert.rejects(async () => world.store.applyWrites([next], () => assert.fail('no record fails on its own')), /disk says no/);
    assert.deepEqual((await world.store.history.forCheck(seq, 10)).map((r) => r.at).sort(), [first + 1_000, first + 2_000]);
    await assertAgree(world, seq, first, first + 2 * MINUTE_MS, 2);

    world.store.db.exec('DROP TRIGGER refuse');
    assert.deepEqual(await apply(world, [next]), [], 'the same record goes through once the disk takes it');
    await assertAgree(world, seq, first, first + 2 * MINUTE_MS, 3);
    world.clock.set(first + 3 * MINUTE_MS);
    await world.restart();
    await assertAgree(world, seq, first, first + 2 * MINUTE_MS, 3);
  } finally {
    await world.close();
  }
});

test('a check record cached by a record that then failed is read again', async () => {
  const world = openStatsWorld(T);
  try {
    const { id, seq } = await seed(world);
    const before = (await world.store.checks.byId(id))!;
    world.store.db.exec("CREATE TEMP TRIGGER refuse BEFORE INSERT ON state_changes BEGIN SELECT RAISE(ABORT, 'disk says no'); END");
    const down: ObservationWrite = {
      ...result(id, seq, T + 1_000, 100),
      runtime: { ...before, status: 'down', sync: null, statusChanged: true },
      statusChange: 'down',
    };
    assert.deepEqual(await apply(world, [down]), [down]);
    assert.equal((await world.store.checks.byId(id))!.status, before.status, 'the status the savepoint undid is not served from the cache');
    assert.deepEqual((await world.store.history.forCheck(seq, 10)), []);
  } finally {
    await world.close();
  }
});
