import type { Logger } from 'pino';
import type { Store } from './store.js';
import type { WriteRecord } from './writes.js';
import type { Fence } from './cluster-repo.js';

/** A batch's records, and those of them that did not commit (`'all'`: the commit failed). */
export type BatchSettled = (batch: readonly WriteRecord[], failed: ReadonlyMap<WriteRecord, unknown> | 'all') => void;

const NONE_FAILED: ReadonlyMap<WriteRecord, unknown> = new Map();

/** Someone waiting for one record's batch to be durable (a heartbeat ping's acknowledgement). */
interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Submitted records nobody waits on wait at most this long for company. A commit costs about
 * the same for one row as for hundreds, so a quiet instance (25 probes/s) that committed each
 * probe result at the next turn spent about a twentieth of its CPU per probe on it.
 */
export const SUBMIT_DELAY_MS = 250;

/**
 * Group commit (DESIGN 6): typed write records queue up and the store applies them together,
 * many per transaction (Store.applyWrites). `commit` resolves only after its batch is durable,
 * which is what a heartbeat acknowledgement waits for: its batch is flushed once the event loop
 * has handled the I/O already waiting (setImmediate), so every request that arrived meanwhile
 * joins it and nobody waits on a fixed timer. `submit` is for writes nobody waits on (probe
 * results): they join the next commit, or are flushed SUBMIT_DELAY_MS after the first of them.
 * One failing record is reported and skipped; it never sinks the rest of its batch.
 *
 * Storage-neutral: a batch is in flight until the store's applyWrites settles, one at a time by
 * default; records queue meanwhile and form the next batch. With `parallel` > 1
 * (a database whose commit waits on the disk: PostgreSQL) up to that many batches are in flight
 * at once, and their commits share the disk's flushes; a record of a check (or prober node)
 * that a batch in flight holds waits for it, so each check's writes still commit in order.
 */
export class BatchWriter {
  private records: WriteRecord[] = [];
  /** Parallel to `records`: null for a submit, which costs no allocation. */
  private waiters: (Waiter | null)[] = [];
  /** Parallel to `records`: the generation each was queued in (see applied()). */
  private generations: number[] = [];
  private generation = 0;
  /** Records queued and not yet settled, per generation, oldest generation first. */
  private readonly unsettled = new Map<number, number>();
  /** applied() callers, oldest first: each waits for the generations up to its own. */
  private barriers: Array<{ generation: number; resolve: () => void }> = [];
  private scheduled: NodeJS.Immediate | null = null;
  /** The flush of submitted records when no commit comes first. */
  private timer: NodeJS.Timeout | null = null;
  /** Batches being applied (at most `parallel`). */
  private flights = 0;
  private closed = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Keys (checks, nodes) of the records in flight, with how many records hold each. */
  private readonly busy = new Map<string, number>();
  private readonly batchListeners: Array<(writes: number) => void> = [];
  private fence: (() => Fence) | null = null;
  private readonly settledListeners: Array<BatchSettled> = [];

  constructor(
    private readonly store: Pick<Store, 'applyWrites'>,
    private readonly log: Logger,
    private readonly maxBatch = 5000,
    private readonly submitDelayMs = SUBMIT_DELAY_MS,
    private readonly parallel = 1,
  ) {}

  submit(record: WriteRecord): void {
    this.enqueue(record, null);
  }

  commit(record: WriteRecord): Promise<void> {
    return new Promise((resolve, reject) => this.enqueue(record, { resolve, reject }));
  }

  /**
   * Several centrals: every batch from now on carries this central's fence, so the store refuses
   * it once this central no longer holds its lease (a single server sets none).
   */
  fenceWith(fence: () => Fence): void {
    this.fence = fence;
  }

  /** Told the size of every batch once it is applied (the batch-size metric, cache purges). */
  afterEachBatch(listener: (writes: number) => void): void {
    this.batchListeners.push(listener);
  }

  /**
   * Told of every batch once its fate is known: the records in it, and those that did not
   * commit (`'all'` when the commit itself failed). In-memory state that follows writes (a
   * check's live state, a node's cursor) moves back here for what was not committed.
   */
  afterEachCommit(listener: BatchSettled): void {
    this.settledListeners.push(listener);
  }

  /** Records queued and not yet applied. */
  get pending(): number {
    return this.records.length;
  }

  /** Applies everything queued now (shutdown, tests); with an asynchronous store, wait on `drained`. */
  flush(): void {
    if (this.scheduled) {
      clearImmediate(this.scheduled);
      this.scheduled = null;
    }
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    while (this.records.length > 0 && this.flights < this.parallel) if (!this.flushBatch()) break;
  }

  /**
   * Resolves once every record queued so far is settled (committed, failed or lost), whatever
   * is queued after the call. Unlike drained(), it ends under a steady load too, where the
   * queue is never empty (the status feed waits on it each turn).
   */
  applied(): Promise<void> {
    if (this.unsettled.size === 0) return Promise.resolve();
    const generation = this.generation++;
    return new Promise((resolve) => this.barriers.push({ generation, resolve }));
  }

  /** Resolves once nothing is queued or being applied. */
  async drained(): Promise<void> {
    for (;;) {
      this.flush();
      if (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
      else if (this.records.length === 0) return;
    }
  }

  close(): void {
    this.flush();
    this.closed = true;
  }

  private enqueue(record: WriteRecord, waiter: Waiter | null): void {
    if (this.closed) {
      waiter?.reject(new Error('writer is closed'));
      return;
    }
    this.records.push(record);
    this.waiters.push(waiter);
    this.generations.push(this.generation);
    this.unsettled.set(this.generation, (this.unsettled.get(this.generation) ?? 0) + 1);
    if (this.records.length >= this.maxBatch) this.flush();
    else if (waiter !== null) {
      this.scheduled ??= setImmediate(() => {
        this.scheduled = null;
        this.flush();
      });
    } else if (!this.scheduled && !this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.flush();
      }, this.submitDelayMs);
    }
  }

  /** Starts one batch; false when every queued record waits on a batch in flight. */
  private flushBatch(): boolean {
    const { batch, waiters, generations } = this.parallel > 1 ? this.takeFree() : this.take();
    if (batch.length === 0) return false;
    const keys = this.parallel > 1 ? batch.flatMap(keysOf) : [];
    for (const k of keys) this.busy.set(k, (this.busy.get(k) ?? 0) + 1);
    let failed: Map<WriteRecord, unknown> | null = null;
    const onFailure = (record: WriteRecord, err: unknown): void => {
      (failed ??= new Map()).set(record, err);
    };
    this.flights++;
    const landed = () => {
      this.flights--;
      this.settledGenerations(generations);
      for (const k of keys) {
        const n = this.busy.get(k)! - 1;
        if (n === 0) this.busy.delete(k);
        else this.busy.set(k, n);
      }
    };
    let applied: Promise<void>;
    try {
      applied = this.fence ? this.store.applyWrites(batch, onFailure, this.fence()) : this.store.applyWrites(batch, onFailure);
    } catch (err) {
      landed();
      this.lost(batch, waiters, err);
      return true;
    }
    const flight: Promise<void> = applied.then(
      () => this.settle(batch, waiters, failed),
      (err: unknown) => this.lost(batch, waiters, err),
    ).finally(() => {
      landed();
      this.inFlight.delete(flight);
      // What queued meanwhile: at once if someone waits on it, else when its timer says.
      if (this.records.length > 0 && !this.scheduled && (!this.timer || this.waiters.some(Boolean))) this.flush();
    });
    this.inFlight.add(flight);
    return true;
  }

  /** The oldest records, up to maxBatch. */
  private take(): Taken {
    if (this.records.length <= this.maxBatch) {
      const taken = { batch: this.records, waiters: this.waiters, generations: this.generations };
      this.records = [];
      this.waiters = [];
      this.generations = [];
      return taken;
    }
    return {
      batch: this.records.splice(0, this.maxBatch), waiters: this.waiters.splice(0, this.maxBatch), generations: this.generations.splice(0, this.maxBatch),
    };
  }

  /** A batch has landed: its records leave their generations' counts, and the barriers those held are released. */
  private settledGenerations(generations: readonly number[]): void {
    for (let i = 0; i < generations.length; ) {
      const g = generations[i]!;
      let n = 1;
      while (i + n < generations.length && generations[i + n] === g) n++;
      i += n;
      const left = this.unsettled.get(g)! - n;
      if (left === 0) this.unsettled.delete(g);
      else this.unsettled.set(g, left);
    }
    if (this.barriers.length === 0) return;
    // Generations only grow and the map keeps insertion order: its first key is the oldest unsettled.
    const oldest = this.unsettled.size === 0 ? Number.POSITIVE_INFINITY : this.unsettled.keys().next().value!;
    let released = 0;
    while (released < this.barriers.length && this.barriers[released]!.generation < oldest) released++;
    if (released === 0) return;
    const done = this.barriers.slice(0, released);
    this.barriers = this.barriers.slice(released);
    for (const b of done) b.resolve();
  }

  /** The oldest records none of whose keys a batch in flight holds, up to maxBatch; the others keep their places. */
  private takeFree(): Taken {
    if (this.busy.size === 0) return this.take();
    const batch: WriteRecord[] = [];
    const waiters: (Waiter | null)[] = [];
    const generations: number[] = [];
    const keptRecords: WriteRecord[] = [];
    const keptWaiters: (Waiter | null)[] = [];
    const keptGenerations: number[] = [];
    // A key held back once stays held for the rest of this pass, so later records of it wait too.
    const held = new Set<string>();
    for (let i = 0; i < this.records.length; i++) {
      const record = this.records[i]!;
      const keys = keysOf(record);
      if (batch.length < this.maxBatch && !keys.some((k) => this.busy.has(k) || held.has(k))) {
        batch.push(record);
        waiters.push(this.waiters[i]!);
        generations.push(this.generations[i]!);
      } else {
        for (const k of keys) held.add(k);
        keptRecords.push(record);
        keptWaiters.push(this.waiters[i]!);
        keptGenerations.push(this.generations[i]!);
      }
    }
    this.records = keptRecords;
    this.waiters = keptWaiters;
    this.generations = keptGenerations;
    return { batch, waiters, generations };
  }

  /** The commit itself failed (disk full, I/O error): nothing in the batch is durable. */
  private lost(batch: WriteRecord[], waiters: (Waiter | null)[], err: unknown): void {
    this.log.error({ err, writes: batch.length }, 'batch commit failed');
    for (const listener of this.settledListeners) listener(batch, 'all');
    for (const w of waiters) w?.reject(err);
  }

  private settle(batch: WriteRecord[], waiters: (Waiter | null)[], failed: Map<WriteRecord, unknown> | null): void {
    for (const listener of this.settledListeners) listener(batch, failed ?? NONE_FAILED);
    for (let i = 0; i < batch.length; i++) {
      const err = failed?.get(batch[i]!);
      if (err === undefined) waiters[i]?.resolve();
      else {
        this.log.error({ err, write: batch[i]!.kind }, 'write failed');
        waiters[i]?.reject(err);
      }
    }
    for (const listener of this.batchListeners) listener(batch.length);
  }
}

/** Records taken from the queue for one batch, with their waiters and generations (parallel arrays). */
interface Taken {
  batch: WriteRecord[];
  waiters: (Waiter | null)[];
  generations: number[];
}

/** What a record's order matters for: its check, and the prober node whose cursor it moves. */
function keysOf(record: WriteRecord): string[] {
  switch (record.kind) {
    case 'observation':
      return record.nodeCursor ? [`c:${record.checkId}`, `n:${record.nodeCursor.nodeId}`] : [`c:${record.checkId}`];
    case 'domain-info':
      return [`c:${record.checkId}`];
    case 'node-cursor':
      return [`n:${record.nodeId}`];
    case 'alerts':
      // The checks of the events it claims too: their observation writes commit first.
      return record.routed ? [...record.alerts.map((a) => `c:${a.checkId}`), ...record.routed.map((r) => `c:${r.checkId}`)] : record.alerts.map((a) => `c:${a.checkId}`);
    case 'node-live':
      return ['node-live'];
    case 'ping-inbox':
      return record.nodeCursor ? [`c:${record.item.checkId}`, `n:${record.nodeCursor.nodeId}`] : [`c:${record.item.checkId}`];
  }
}
