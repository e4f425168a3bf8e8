import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/log.js';
import { BatchWriter } from '../../src/store/batch-writer.js';
import type { WriteFailure, WriteRecord } from '../../src/store/writes.js';
import { waitFor } from '../helpers/fixtures/probe-task.js';

const log = createLogger('silent');
const record = (checkId: string): WriteRecord => ({ kind: 'domain-info', checkId, domain: null });

/** A store that applies batches the way an asynchronous database would: later, one promise per batch. */
class AsyncStore {
  readonly batches: string[][] = [];
  private open: Array<() => void> = [];
  inFlight = 0;
  maxInFlight = 0;
  failing = new Set<string>();
  breakCommit = false;

  applyWrites(batch: readonly WriteRecord[], failed: WriteFailure): Promise<void> {
    const ids = batch.map((r) => (r.kind === 'domain-info' ? r.checkId : r.kind));
    this.batches.push(ids);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    return new Promise<void>((resolve, reject) => {
      this.open.push(() => {
        this.inFlight--;
        for (const r of batch) if (r.kind === 'domain-info' && this.failing.has(r.checkId)) failed(r, new Error(`bad ${r.checkId}`));
        if (this.breakCommit) reject(new Error('disk full'));
        else resolve();
      });
    });
  }

  /** Lets the oldest batch commit. */
  async commitNext(): Promise<void> {
    await waitFor(() => this.open.length > 0, 'a batch to commit');
    this.open.shift()!();
  }
}

describe('batched writer over an asynchronous store', () => {
  test('one batch at a time; records queued meanwhile form the next; commits resolve after theirs', async () => {
    const store = new AsyncStore();
    const writer = new BatchWriter(store, log);
    const first = writer.commit(record('a'));
    writer.submit(record('b'));
    let firstDone = false;
    void first.then(() => (firstDone = true));
    await waitFor(() => store.batches.length > 0, 'the first batch');
    const second = writer.commit(record('c'));
    writer.submit(record('d'));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(store.batches, [['a', 'b']], 'the second batch waits for the first to commit');
    assert.equal(firstDone, false);
    await store.commitNext();
    await first;
    await waitFor(() => store.batches.length >= 2, 'the second batch');
    assert.deepEqual(store.batches, [['a', 'b'], ['c', 'd']]);
    await store.commitNext();
    await second;
    await writer.drained();
    assert.equal(store.maxInFlight, 1);
    assert.equal(writer.pending, 0);
  });

  test('parallel batches: up to that many in flight, and a check held by one waits for it (each check in order)', async () => {
    const store = new AsyncStore();
    const writer = new BatchWriter(store, log, 5000, 250, 2);
    const firsts = [writer.commit(record('a')), writer.commit(record('b'))];
    await waitFor(() => store.batches.length === 1, 'the first batch');
    const later = [writer.commit(record('a')), writer.commit(record('c')), writer.commit(record('a')), writer.commit(record('d'))];
    await waitFor(() => store.batches.length === 2, 'a second batch beside the first');
    assert.deepEqual(store.batches, [['a', 'b'], ['c', 'd']], "a's next records wait for the batch holding a");
    assert.equal(store.maxInFlight, 2);
    const third = writer.commit(record('e'));
    await new Promise((r) => setImmediate(r));
    assert.equal(store.batches.length, 2, 'no third batch while two are in flight');
    await store.commitNext();
    await Promise.all(firsts);
    await waitFor(() => store.batches.length === 3, 'the held records');
    assert.deepEqual(store.batches[2], ['a', 'a', 'e'], 'in their order');
    await store.commitNext();
    await store.commitNext();
    await Promise.all([...later, third]);
    await writer.drained();
    assert.equal(writer.pending, 0);
    assert.ok(store.maxInFlight <= 2);
  });

  test('applied() waits for what was queued before it, not after: it ends under a load that never lets the queue empty', async () => {
    const store = new AsyncStore();
    const writer = new BatchWriter(store, log, 5000, 250, 2);
    assert.equal(await Promise.race([writer.applied().then(() => 'at once'), new Promise((r) => setImmediate(() => r('later')))]), 'at once', 'nothing queued');
    const firsts = [writer.commit(record('a')), writer.commit(record('b'))];
    await waitFor(() => store.batches.length === 1, 'the first batch');
    const held = writer.commit(record('a'));
    let applied = false;
    const barrier = writer.applied().then(() => (applied = true));
    let drained = false;
    void writer.drained().then(() => (drained = true));
    // From here on, something is always queued or in flight.
    const later = [writer.commit(record('c'))];
    await waitFor(() => store.batches.length === 2, "'c' beside the first batch");
    await store.commitNext();
    await Promise.all(firsts);
    await waitFor(() => store.batches.length === 3, "the held record of 'a'");
    later.push(writer.commit(record('d')));
    await store.commitNext();
    await later[0];
    await new Promise((r) => setImmediate(r));
    assert.equal(applied, false, "the record of 'a' queued before it is still in flight");
    await waitFor(() => store.batches.length === 4, "'d' in flight");
    await store.commitNext();
    await held;
    await barrier;
    assert.equal(drained, false, "drained() still waits for 'd', queued after");
    assert.deepEqual(store.batches, [['a', 'b'], ['c'], ['a'], ['d']]);
    await store.commitNext();
    await Promise.all(later);
    await writer.drained();
  });

  test('a record failing on its own rejects its commit only; a failed commit rejects the whole batch', async () => {
    const store = new AsyncStore();
    const writer = new BatchWriter(store, log);
    store.failing.add('bad');
    const good = writer.commit(record('good'));
    const bad = writer.commit(record('bad'));
    await store.commitNext();
    await good;
    await assert.rejects(bad, /bad bad/);

    store.breakCommit = true;
    const lost = [writer.commit(record('x')), writer.commit(record('y'))];
    await store.commitNext();
    for (const p of lost) await assert.rejects(p, /disk full/);
  });
});

/** A store that applies batches at once and answers with a settled promise, like SQLite. */
class SyncStore {
  readonly batches: string[][] = [];
  applyWrites(batch: readonly WriteRecord[]): Promise<void> {
    this.batches.push(batch.map((r) => (r.kind === 'domain-info' ? r.checkId : r.kind)));
    return Promise.resolve();
  }
}

const nextTurn = () => new Promise((r) => setImmediate(r));

describe('when submitted records are applied', () => {
  test('submits wait for their timer; a commit takes them along at the next turn, in order', async () => {
    const store = new SyncStore();
    const writer = new BatchWriter(store, log, 5000, 60_000);
    writer.submit(record('a'));
    writer.submit(record('b'));
    await nextTurn();
    assert.deepEqual(store.batches, [], 'nobody waits on a submit: it waits for company');
    assert.equal(writer.pending, 2);
    await writer.commit(record('c'));
    assert.deepEqual(store.batches, [['a', 'b', 'c']]);
    writer.submit(record('d'));
    await writer.drained();
    assert.deepEqual(store.batches, [['a', 'b', 'c'], ['d']], 'drained() applies what waits on a timer');
  });

  test('submits alone are applied by their timer; close applies what is still queued', async () => {
    const store = new SyncStore();
    const writer = new BatchWriter(store, log, 5000, 1);
    writer.submit(record('a'));
    for (let i = 0; i < 1000 && store.batches.length === 0; i++) await new Promise((r) => setTimeout(r, 1));
    assert.deepEqual(store.batches, [['a']]);
    const slow = new BatchWriter(store, log, 5000, 60_000);
    slow.submit(record('b'));
    slow.close();
    assert.deepEqual(store.batches, [['a'], ['b']], 'shutdown loses no submitted record');
  });
});
