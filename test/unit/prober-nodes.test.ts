import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Outbox } from '../../src/prober/outbox.js';
import { failedResult } from '../../src/engine/dispatcher.js';
import { ownerOf } from '../../src/nodes/rendezvous.js';
import { parseNodeMessage, MAX_BATCH } from '../../src/nodes/protocol.js';

const result = (at: number) => failedResult(at, 'refused');

function withDir(run: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-outbox-'));
  try {
    run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('outbox: results are sent in order, acknowledged ones dropped, the rest replayed after a reconnect', () => {
  withDir((dir) => {
    const box = new Outbox({ dir, max: 100 });
    for (let i = 1; i <= 5; i++) box.add('chk_a', result(i));
    assert.deepEqual(box.takeUnsent(3).map((i) => i.seq), [1, 2, 3]);
    assert.deepEqual(box.takeUnsent(3).map((i) => i.seq), [4, 5]);
    assert.equal(box.inFlight, 5);
    box.ack(box.epoch, 2);
    assert.equal(box.depth, 3);
    box.ack('another-epoch', 5); // an ack for another outbox changes nothing
    assert.equal(box.depth, 3);
    box.rewind();
    assert.deepEqual(box.takeUnsent(10).map((i) => i.seq), [3, 4, 5]);
    box.close();
  });
});

test('outbox: a restarted node reloads what is unacknowledged, keeps its epoch and numbering, skips a torn line', () => {
  withDir((dir) => {
    const first = new Outbox({ dir, max: 100 });
    for (let i = 1; i <= 4; i++) first.add('chk_a', result(i));
    first.persist();
    first.ack(first.epoch, 1);
    const epoch = first.epoch;
    first.close();
    appendFileSync(join(dir, 'results.jsonl'), '{"seq":5,"checkId":"chk_a","res'); // a crash mid-write

    const second = new Outbox({ dir, max: 100 });
    assert.equal(second.epoch, epoch);
    assert.deepEqual(second.takeUnsent(10).map((i) => [i.seq, i.result.startedAt]), [[2, 2], [3, 3], [4, 4]]);
    assert.equal(second.add('chk_a', result(9)).seq, 5);
    second.close();
  });
});

test('outbox: bounded, the oldest results are dropped and counted', () => {
  withDir((dir) => {
    const box = new Outbox({ dir, max: 3 });
    for (let i = 1; i <= 5; i++) box.add('chk_a', result(i));
    assert.equal(box.depth, 3);
    assert.equal(box.dropped, 2);
    assert.deepEqual(box.takeUnsent(10).map((i) => i.seq), [3, 4, 5]);
    box.close();
    assert.equal(new Outbox({ dir, max: 3 }).dropped, 2, 'the count survives a restart');
  });
});

test('rendezvous: a node joining takes only checks it now wins; leaving gives back only its own', () => {
  const checks = Array.from({ length: 2000 }, (_, i) => `chk_${i}`);
  const two = new Map(checks.map((c) => [c, ownerOf(c, ['nod_a', 'nod_b'])]));
  const three = new Map(checks.map((c) => [c, ownerOf(c, ['nod_a', 'nod_b', 'nod_c'])]));
  let moved = 0;
  for (const c of checks) {
    if (two.get(c) !== three.get(c)) {
      moved++;
      assert.equal(three.get(c), 'nod_c', 'a check moves only to the new node');
    }
  }
  // About a third moves to the new node; the shares are even.
  assert.ok(moved > 2000 / 3 - 150 && moved < 2000 / 3 + 150, `moved ${moved}`);
  assert.equal(ownerOf('chk_1', []), null);
  assert.equal(ownerOf('chk_1', ['nod_b', 'nod_a']), ownerOf('chk_1', ['nod_a', 'nod_b']), 'order does not matter');
});

test('protocol: a node frame is validated; unknown shapes, bad JSON and oversized batches are refused', () => {
  const item = { seq: 1, checkId: 'chk_a', result: result(1) };
  assert.equal(parseNodeMessage(JSON.stringify({ type: 'results', epoch: 'e', items: [item] }))?.type, 'results');
  assert.equal(parseNodeMessage('{'), null);
  assert.equal(parseNodeMessage(JSON.stringify({ type: 'assign', checks: [] })), null, 'a central message from a node');
  assert.equal(parseNodeMessage(JSON.stringify({ type: 'results', epoch: 'e', items: [{ ...item, seq: 0 }] })), null);
  const many = Array.from({ length: MAX_BATCH + 1 }, (_, i) => ({ ...item, seq: i + 1 }));
  assert.equal(parseNodeMessage(JSON.stringify({ type: 'results', epoch: 'e', items: many })), null);
  assert.equal(parseNodeMessage(JSON.stringify({ type: 'results', epoch: 'e', items: [{ ...item, result: { ...item.result, ok: 'yes' } }] })), null);
});

test('outbox: a batch stays under its byte budget, but always carries at least one result', () => {
  withDir((dir) => {
    const box = new Outbox({ dir, max: 100 });
    const big = { ...result(1), snippet: 'x'.repeat(4000) };
    for (let i = 0; i < 10; i++) box.add('chk_a', big);
    const first = box.takeUnsent(100, 10_000);
    assert.equal(first.length, 2);
    assert.equal(box.takeUnsent(100, 10).length, 1);
    box.close();
  });
});

test('a node refuses private targets when its own config or the task (its account’s rule) says so', async () => {
  const { nodeTask } = await import('../../src/prober/prober.js');
  type Task = Parameters<typeof nodeTask>[0];
  const task = { refusePrivate: null } as Task;
  assert.equal(nodeTask(task, true).refusePrivate, 'operator');
  assert.equal(nodeTask(task, false), task);
  const signup = { ...task, refusePrivate: 'signup' } as Task;
  assert.equal(nodeTask(signup, false).refusePrivate, 'signup', 'the node cannot lift the account’s rule');
  assert.equal(nodeTask(signup, true).refusePrivate, 'signup', 'the account’s reason is the one its user reads');
  const legacy = { blockPrivateAddresses: true } as unknown as Task;
  assert.equal(nodeTask(legacy, false).refusePrivate, 'operator', 'a central from before the policy is still obeyed');
});
