import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { ProbeResult } from '../domain/probe-types.js';
import type { Engine } from '../engine/engine.js';
import type { Recorder } from '../monitor/recorder.js';
import type { NodeRepo } from '../store/node-repo.js';
import type { BatchWriter } from '../store/batch-writer.js';
import type { NodeCursorWrite, WriteRecord } from '../store/writes.js';
import type { InboxResult } from '../store/ping-inbox.js';
import type { NodeSessions, NodeState } from './node-sessions.js';
import { asProbeResult, type NodeMessage } from './protocol.js';

/** Results this much older than now are replays: they are not re-checked by a peer. */
const FRESH_MS = 45_000;

/** Whether a result is recent enough for a peer to re-check its failure. */
const fresh = (now: number, result: ProbeResult): boolean => now - result.startedAt <= FRESH_MS;

/** Where a node's outbox stands, as the central has it. */
interface Cursor {
  /** Null until the node's first hello when none is stored. */
  epoch: string | null;
  /** Highest sequence received from this epoch (in processing or recorded). */
  received: number;
  /** Sequences received and not yet submitted for writing, in order; `done` holds those finished out of order. */
  pending: number[];
  /** Index of the first entry of `pending` not yet passed by the watermark. */
  pendingHead: number;
  done: Set<number>;
  /** Highest sequence whose write (and every earlier one's) has been submitted. */
  watermark: number;
  /** Highest sequence whose cursor write has committed: what a node is welcomed and acknowledged with. */
  committed: number;
  /** Cursor writes handed out and not settled yet; a failed write voids them all (they may name results that are lost). */
  unsettled: Set<NodeCursorWrite>;
  acking: boolean;
}

export interface ResultIntakeDeps {
  sessions: NodeSessions;
  /** Whether a check was given to the node (results for others are refused). */
  given: { wasGiven(nodeId: string, checkId: string): boolean };
  engine: Pick<Engine, 'recordRemote' | 'recordForwarded'>;
  recorder: { write(record: NodeCursorWrite): void } & Pick<Recorder, 'writeDurably'>;
  cursors: Pick<NodeRepo, 'cursor'>;
  /** The writer, told which batches committed: the cursor moves back over what did not. */
  commits?: Pick<BatchWriter, 'afterEachCommit'>;
  clock: Clock;
  log: Logger;
}

/**
 * A node's results, recorded exactly once: each enters the recorder (through the engine, which
 * adds the peer re-check and the late-result rule) with the node's outbox cursor in the same
 * write, and the node is acknowledged once that cursor is durable, so it drops only what the
 * central has committed and replays the rest after a reconnect.
 */
export class ResultIntake {
  private readonly cursors = new Map<string, Cursor>();

  constructor(private readonly deps: ResultIntakeDeps) {
    deps.commits?.afterEachCommit((batch, failed) => this.settled(batch, failed));
  }

  /** A node's hello: where its outbox `epoch` resumes (a new epoch, a fresh data directory, starts at 0). */
  async resume(nodeId: string, epoch: string): Promise<{ epoch: string; seq: number }> {
    let c = this.cursors.get(nodeId);
    if (!c) {
      const stored = await this.deps.cursors.cursor(nodeId);
      // Another hello of the node may have read it meanwhile.
      c = this.cursors.get(nodeId);
      if (!c) {
        c = { epoch: stored.epoch, received: stored.seq, pending: [], pendingHead: 0, done: new Set(), watermark: stored.seq, committed: stored.seq, unsettled: new Set(), acking: false };
        this.cursors.set(nodeId, c);
      }
    }
    return this.resumed(c, epoch);
  }

  private resumed(c: Cursor, epoch: string): { epoch: string; seq: number } {
    // Kept in place, not replaced: a result of the old epoch still being recorded then moves nothing.
    if (c.epoch !== epoch) {
      c.epoch = epoch;
      c.received = c.watermark = c.committed = 0;
      c.unsettled.clear();
      c.pending = [];
      c.pendingHead = 0;
      c.done.clear();
    }
    return { epoch, seq: c.committed };
  }

  results(node: NodeState, m: Extract<NodeMessage, { type: 'results' }>): void {
    const c = this.cursors.get(node.id);
    if (!c || m.epoch !== c.epoch) return;
    const now = this.deps.clock.now();
    for (const item of m.items) {
      if (item.seq <= c.received) continue; // a replay of something already in hand
      c.received = item.seq;
      c.pending.push(item.seq);
      const epoch = m.epoch;
      const cursor = () => this.cursorWrite(node.id, c, epoch, item.seq);
      if (!this.deps.given.wasGiven(node.id, item.checkId)) {
        node.rejected++;
        this.deps.log.warn({ nodeId: node.id, checkId: item.checkId }, 'node sent a result for a check not given to it; dropped');
        this.deps.recorder.write(cursor());
        continue;
      }
      const result = asProbeResult(item.result);
      const startedAt = this.deps.sessions.local(node, result.startedAt);
      const corrected: ProbeResult = startedAt === result.startedAt ? result : { ...result, startedAt };
      this.deps.engine.recordRemote(item.checkId, corrected, node.region, fresh(now, corrected), cursor)?.then(
        () => this.acknowledge(node, c),
        (err: unknown) => this.deps.log.error({ err, nodeId: node.id }, 'recording a node result failed'),
      );
    }
    this.acknowledge(node, c);
  }

  /**
   * Node results other centrals received for checks this one owns (several centrals, from the
   * store's inbox): each recorded as if its node were connected here, leaving the inbox with
   * its write. Resolves once each is durable (or its write failed: it is then still in the
   * inbox, taken again at the next run).
   */
  async forwarded(items: readonly InboxResult[]): Promise<void> {
    const now = this.deps.clock.now();
    const writes: Array<Promise<void>> = [];
    for (const item of items) {
      writes.push(this.deps.engine.recordForwarded(item, fresh(now, item.result)).catch((err: unknown) => {
        this.deps.log.error({ err, checkId: item.checkId }, 'a node result another central received was not recorded; taken again at the next run');
      }));
    }
    await Promise.all(writes);
  }

  /**
   * Marks `seq` recorded and returns the write that moves the node's durable cursor with it:
   * the highest sequence below which every result has been handed to the writer (results
   * re-checked by a peer finish out of order).
   */
  private cursorWrite(nodeId: string, c: Cursor, epoch: string, seq: number): NodeCursorWrite {
    if (epoch === c.epoch) {
      c.done.add(seq);
      while (c.pendingHead < c.pending.length && c.done.has(c.pending[c.pendingHead]!)) {
        c.watermark = c.pending[c.pendingHead++]!;
        c.done.delete(c.watermark);
      }
      if (c.pendingHead > 1024 && c.pendingHead * 2 > c.pending.length) {
        c.pending = c.pending.slice(c.pendingHead);
        c.pendingHead = 0;
      }
    }
    return this.issued(c, { kind: 'node-cursor', nodeId, cursor: { epoch: c.epoch ?? epoch, seq: c.watermark } });
  }

  private issued(c: Cursor, write: NodeCursorWrite): NodeCursorWrite {
    if (this.deps.commits) c.unsettled.add(write);
    return write;
  }

  /**
   * A batch's fate is known: a cursor that committed moves `committed`; one that did not (its
   * results with it) moves the cursor back to what is committed, and the node is disconnected,
   * so it sends again, after its hello, every result the central has not recorded.
   */
  private settled(batch: readonly WriteRecord[], failed: ReadonlyMap<WriteRecord, unknown> | 'all'): void {
    if (this.cursors.size === 0) return;
    for (const record of batch) {
      const write = record.kind === 'node-cursor' ? record : record.kind === 'observation' || record.kind === 'ping-inbox' ? record.nodeCursor : null;
      if (!write) continue;
      const c = this.cursors.get(write.nodeId);
      if (!c || !c.unsettled.delete(write) || write.cursor.epoch !== c.epoch) continue;
      if (failed !== 'all' && !failed.has(record)) {
        if (write.cursor.seq > c.committed) c.committed = write.cursor.seq;
        continue;
      }
      if (c.watermark === c.committed && c.received === c.committed) continue;
      c.received = c.watermark = c.committed;
      c.unsettled.clear();
      c.pending = [];
      c.pendingHead = 0;
      c.done.clear();
      this.deps.log.error({ nodeId: write.nodeId, seq: c.committed }, 'node results not recorded; the node sends them again');
      this.deps.sessions.get(write.nodeId)?.session?.close(1011, 'results not recorded; send them again');
    }
  }

  /** Once what is submitted is durable, tells the node it may drop it (one commit at a time). */
  private acknowledge(node: NodeState, c: Cursor): void {
    if (c.acking) return;
    c.acking = true;
    const { epoch, watermark: seq } = c;
    if (epoch === null) {
      c.acking = false;
      return;
    }
    // The cursor once more, durably: everything submitted before it is durable with it.
    this.deps.recorder.writeDurably(this.issued(c, { kind: 'node-cursor', nodeId: node.id, cursor: { epoch, seq } })).then(
      () => {
        c.acking = false;
        // Durable: without the writer's reports (tests) that is all there is to know.
        if (!this.deps.commits && epoch === c.epoch && seq > c.committed) c.committed = seq;
        // Not after a write that failed meanwhile: the cursor moved back below seq.
        if (epoch === c.epoch && seq <= c.committed) node.session?.send({ type: 'ack', epoch, seq });
        if (c.watermark > seq) this.acknowledge(node, c);
      },
      () => {
        c.acking = false;
      },
    );
  }
}
