import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ManualClock } from '../../src/domain/clock.js';
import { OVER_CAPACITY_LAG_MS } from '../../src/engine/capacity.js';
import { HeldDispatcher } from '../helpers/held-dispatcher.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * Past capacity (issue 13, deliverable 4), driven by hand: one probe slot for three checks,
 * a manual clock, and probes that finish only when the test says. No timing threshold.
 */
const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
const dispatcher = new HeldDispatcher(1, () => clock.now());
const lines: Array<{ level: number; msg: string; queued?: number; lagMs?: number }> = [];
const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
let srv: TestServer;
const ids: string[] = [];

const capacityLines = () => lines.filter((l) => /capacity/.test(l.msg));
/** Lets the recorded results reach the engine and the writer (condition, not a fixed sleep). */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setImmediate(r));
  assert.ok(condition(), 'condition never held');
}

before(async () => {
  srv = await startServer({ plans: { pro: { minCheckIntervalMinutes: 0.05 } } }, clock, { dispatcher, autoTick: false, logger });
  for (let i = 0; i < 3; i++) {
    const res = await srv.request('POST', '/v1/public/checks', { body: { url: `http://127.0.0.1:1/c${i}`, checkFrequency: 0.05 } });
    assert.equal(res.status, 201);
    ids.push(res.body.data.id);
  }
  srv.app.engine.tick(); // all three are due at once; one runs, two wait
});
after(() => srv.stop());

test('probes past capacity wait in the queue and start late; the engine reports lag and queue depth', async () => {
  assert.equal(dispatcher.inFlight, 1);
  assert.equal(dispatcher.queued, 2);
  assert.equal(srv.app.engine.capacity.queued, 2);
  assert.equal(srv.app.engine.capacity.overCapacity, false);

  clock.advance(OVER_CAPACITY_LAG_MS + 1000);
  dispatcher.finishOldest(); // started on time
  await until(() => srv.app.engine.metrics.completed === 1);
  assert.equal(srv.app.engine.capacity.lagMs, 0);
  assert.equal(capacityLines().length, 0, 'nothing said while probes start on time');

  dispatcher.finishOldest(); // took its slot 6 s after its due time
  await until(() => srv.app.engine.metrics.completed === 2);
  const report = srv.app.engine.capacity;
  assert.equal(report.overCapacity, true);
  assert.equal(report.lagMs, OVER_CAPACITY_LAG_MS + 1000);
  assert.equal(report.queued, 0);
  const said = capacityLines();
  assert.equal(said.length, 1);
  assert.match(said[0]!.msg, /over capacity: probes start 6000 ms late with 0 waiting; \d+ probes\/s due against \d+\/s completed/);
  assert.equal(said[0]!.level, 40, 'a warning');
});

test('over capacity is said once, however many late probes follow', async () => {
  srv.app.engine.tick(); // each check is due again: the two recorded are queued behind the running one
  assert.equal(srv.app.engine.capacity.queued, 2);
  clock.advance(OVER_CAPACITY_LAG_MS);
  dispatcher.finishOldest();
  await until(() => srv.app.engine.metrics.completed === 3);
  assert.equal(srv.app.engine.capacity.overCapacity, true);
  assert.equal(capacityLines().length, 1);
});

test('late probes are never failed or lost: every result is stored as the probe found it', async () => {
  while (dispatcher.inFlight > 0) {
    const before = srv.app.engine.metrics.completed;
    dispatcher.finishOldest();
    await until(() => srv.app.engine.metrics.completed === before + 1);
  }
  srv.app.writer.flush();
  const completed = srv.app.engine.metrics.completed;
  for (const id of ids) {
    const check = (await srv.request('GET', `/v1/public/checks/${id}`)).body.data;
    assert.equal(check.status, 'up', 'lateness is not a failure');
  }
  const rows = srv.app.store.db.prepare("SELECT status, count(*) AS n FROM history WHERE kind = 'probe' GROUP BY status").all() as Array<{ status: string; n: number }>;
  assert.deepEqual(rows, [{ status: 'up', n: completed }], 'one stored row per completed probe, none failed');
});

test('coming back within capacity is said once, and each crossing only once', async () => {
  const finishAll = async () => {
    while (dispatcher.inFlight > 0) {
      const before = srv.app.engine.metrics.completed;
      dispatcher.finishOldest();
      await until(() => srv.app.engine.metrics.completed === before + 1);
    }
  };
  srv.app.engine.tick(); // what the manual clock's jumps left overdue
  await finishAll();
  // One interval in wheel ticks, the pool keeping up: every probe starts within its tick.
  for (let t = 0; t < 3000; t += 100) {
    clock.advance(100);
    srv.app.engine.tick();
    await finishAll();
  }
  assert.equal(srv.app.engine.capacity.overCapacity, false);
  assert.ok(srv.app.engine.capacity.lagMs < OVER_CAPACITY_LAG_MS);
  const said = capacityLines().map((l) => (/over capacity/.test(l.msg) ? 'over' : 'back'));
  assert.ok(said.length >= 2);
  said.forEach((s, i) => assert.equal(s, i % 2 === 0 ? 'over' : 'back', `crossings alternate: ${said.join(', ')}`));
  assert.equal(said.at(-1), 'back');
});
