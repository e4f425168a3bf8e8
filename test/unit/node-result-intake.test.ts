import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import type { ProbeResult } from '../../src/domain/probe-types.js';
import type { CursorFor } from '../../src/engine/engine.js';
import { createLogger } from '../../src/log.js';
import { NodeSessions } from '../../src/nodes/node-sessions.js';
import type { CentralMessage } from '../../src/nodes/protocol.js';
import { ResultIntake } from '../../src/nodes/result-intake.js';
import type { NodeCursorWrite, WriteRecord } from '../../src/store/writes.js';

const NOW = Date.UTC(2026, 0, 1);
const result = (ok: boolean): ProbeResult => ({
  ok, statusCode: ok ? 200 : null, responseTime: 10, timing: null, error: ok ? null : 'down', snippet: null, ssl: null, location: null, startedAt: NOW,
});
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A hub's result intake over fakes: the engine records at once, or holds a result (a peer re-check) until released. */
function world(stored = { epoch: 'e1' as string | null, seq: 5 }, followCommits = false) {
  const clock = new ManualClock(NOW);
  const log = createLogger('silent');
  const sessions = new NodeSessions({ clock, log });
  const sent: CentralMessage[] = [];
  const closed: number[] = [];
  sessions.open({ id: 'node_1', name: 'n1', region: 'eu' }, { send: (m) => void sent.push(m), close: (code) => void closed.push(code) });
  let settled: ((batch: readonly WriteRecord[], failed: ReadonlyMap<WriteRecord, unknown> | 'all') => void) | null = null;
  const node = sessions.get('node_1')!;
  const cursors: NodeCursorWrite[] = [];
  const durable: NodeCursorWrite[] = [];
  const held = new Map<string, () => void>();
  const intake = new ResultIntake({
    sessions,
    given: { wasGiven: (_node, checkId) => checkId !== 'chk_foreign' },
    engine: {
      recordRemote: (checkId: string, _r: ProbeResult, _region: string, _fresh: boolean, cursor: CursorFor) => {
        if (!checkId.startsWith('held')) {
          cursors.push(cursor());
          return null;
        }
        return new Promise<void>((resolve) => held.set(checkId, () => (cursors.push(cursor()), resolve())));
      },
      recordForwarded: () => assert.fail('nothing is forwarded here'),
    },
    recorder: { write: (w) => void cursors.push(w), writeDurably: async (w) => void durable.push(w) },
    cursors: { cursor: async () => stored },
    commits: followCommits ? { afterEachCommit: (listener) => void (settled = listener) } : undefined,
    clock,
    log,
  });
  /** The writer's report of a batch: `failed` null when it all committed. */
  const batch = (records: WriteRecord[], failed: 'all' | null) => settled!(records, failed ?? new Map());
  return { node, sent, closed, cursors, durable, held, intake, batch };
}

test('the cursor moves past a result only once every earlier one is recorded; the node is acknowledged once it is durable', async () => {
  const w = world();
  assert.deepEqual((await w.intake.resume('node_1', 'e1')), { epoch: 'e1', seq: 5 }, 'the stored cursor resumes');
  w.intake.results(w.node, { type: 'results', epoch: 'e1', items: [
    { seq: 6, checkId: 'chk_a', result: result(true) },
    { seq: 7, checkId: 'held_b', result: result(false) },
    { seq: 8, checkId: 'chk_c', result: result(true) },
  ] });
  assert.deepEqual(w.cursors.map((c) => c.cursor.seq), [6, 6], 'seq 8 waits behind the re-checked 7');
  await settle();
  assert.deepEqual(w.sent.filter((m) => m.type === 'ack'), [{ type: 'ack', epoch: 'e1', seq: 6 }]);
  w.held.get('held_b')!();
  await settle();
  await settle();
  assert.deepEqual(w.cursors.at(-1)!.cursor, { epoch: 'e1', seq: 8 });
  assert.deepEqual(w.durable.at(-1)!.cursor, { epoch: 'e1', seq: 8 });
  assert.deepEqual(w.sent.filter((m) => m.type === 'ack').at(-1), { type: 'ack', epoch: 'e1', seq: 8 });
});

test('a replay is recorded once; a result for a check never given is refused but its cursor still moves', async () => {
  const w = world();
  await w.intake.resume('node_1', 'e1');
  const batch = { type: 'results' as const, epoch: 'e1', items: [{ seq: 6, checkId: 'chk_a', result: result(true) }] };
  w.intake.results(w.node, batch);
  w.intake.results(w.node, batch);
  assert.equal(w.cursors.length, 1, 'the replay of 6 is dropped');
  w.intake.results(w.node, { type: 'results', epoch: 'e1', items: [{ seq: 7, checkId: 'chk_foreign', result: result(true) }] });
  assert.equal(w.node.rejected, 1);
  assert.deepEqual(w.cursors.at(-1)!.cursor, { epoch: 'e1', seq: 7 });
  w.intake.results(w.node, { type: 'results', epoch: 'e0', items: [{ seq: 9, checkId: 'chk_a', result: result(true) }] });
  assert.equal(w.cursors.length, 2, 'results of another epoch are ignored');
});

test('a new epoch (a fresh outbox) starts from zero; a stored cursor of none starts there too', async () => {
  const w = world();
  await w.intake.resume('node_1', 'e1');
  assert.deepEqual((await w.intake.resume('node_1', 'e2')), { epoch: 'e2', seq: 0 });
  assert.deepEqual((await world({ epoch: null, seq: 0 }).intake.resume('node_1', 'e9')), { epoch: 'e9', seq: 0 });
});

test('a cursor write that does not commit moves the cursor back: the node is disconnected, welcomed from what committed, and acknowledged no further', async () => {
  const w = world(undefined, true);
  await w.intake.resume('node_1', 'e1');
  w.intake.results(w.node, { type: 'results', epoch: 'e1', items: [{ seq: 6, checkId: 'chk_a', result: result(true) }] });
  w.batch([...w.cursors.splice(0), ...w.durable.splice(0)], null);
  await settle();
  assert.deepEqual(w.sent.filter((m) => m.type === 'ack'), [{ type: 'ack', epoch: 'e1', seq: 6 }], 'acknowledged once its batch committed');

  w.intake.results(w.node, { type: 'results', epoch: 'e1', items: [
    { seq: 7, checkId: 'chk_b', result: result(true) },
    { seq: 8, checkId: 'chk_c', result: result(true) },
  ] });
  w.batch([...w.cursors.splice(0), ...w.durable.splice(0)], 'all');
  await settle();
  assert.deepEqual(w.sent.filter((m) => m.type === 'ack').map((m) => m.type === 'ack' && m.seq), [6], 'nothing past what committed is acknowledged');
  assert.deepEqual(w.closed, [1011], 'the node is told to send them again');
  assert.deepEqual(await w.intake.resume('node_1', 'e1'), { epoch: 'e1', seq: 6 }, 'its hello resumes after what committed');

  w.intake.results(w.node, { type: 'results', epoch: 'e1', items: [{ seq: 7, checkId: 'chk_b', result: result(true) }] });
  assert.deepEqual(w.cursors.map((c) => c.cursor.seq), [7], 'the replay is recorded, not taken for a duplicate');
});
