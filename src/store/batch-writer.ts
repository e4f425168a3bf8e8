import type { Logger } from 'pino';
import type { Store } from './store.js';
import type { WriteRecord } from './writes.js';
import type { Fence } from './cluster-repo.js';

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
 * Storage-neutral: a store whose applyWrites returns a promise (an asynchronous database) gets
 * one batch at a time; records queue meanwhile and form the next batch.
 */
export class BatchWriter {
  private records: WriteRecord[] = [];
  /** Parallel to `records`: null for a submit, which costs no allocation. */
  private waiters: (Waiter | null)[] = [];
  private scheduled: NodeJS.Immediate | null = null;
  /** The flush of submitted records when no commit comes first. */
  private timer: NodeJS.Timeout | null = null;
  private flushing = false;
  private closed = false;
  private inFlight: Promise<void> | null = null;
  private readonly batchListeners: Array<(writes: number) => void> = [];
  private fence: (() => Fence) | null = null;

  constructor(
    private readonly store: Pick<Store, 'applyWrites'>,
    private readonly log: Logger,
    private readonly maxBatch = 5000,
    private readonly submitDelayMs = SUBMIT_DELAY_MS,
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
    while (this.records.length > 0 && !this.flushing) this.flushBatch();
  }

  /** Resolves once nothing is queued or being applied. */
  async drained(): Promise<void> {
    for (;;) {
      this.flush();
      if (this.inFlight) await this.inFlight;
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

  private flushBatch(): void {
    const whole = this.records.length <= this.maxBatch;
    const batch = whole ? this.records : this.records.splice(0, this.maxBatch);
    const waiters = whole ? this.waiters : this.waiters.splice(0, this.maxBatch);
    if (whole) {
      this.records = [];
      this.waiters = [];
    }
    let failed: Map<WriteRecord, unknown> | null = null;
    const onFailure = (record: WriteRecord, err: unknown): void => {
      (failed ??= new Map()).set(record, err);
    };
    this.flushing = true;
    let applied: void | Promise<void>;
    try {
      applied = this.fence ? this.store.applyWrites(batch, onFailure, this.fence()) : this.store.applyWrites(batch, onFailure);
    } catch (err) {
      this.flushing = false;
      this.lost(batch, waiters, err);
      return;
    }
    if (applied instanceof Promise) {
      this.inFlight = applied.then(
        () => this.settle(batch, waiters, failed),
        (err: unknown) => this.lost(batch, waiters, err),
      ).finally(() => {
        this.flushing = false;
        this.inFlight = null;
        // What queued meanwhile: at once if someone waits on it, else when its timer says.
        if (this.records.length > 0 && !this.scheduled && (!this.timer || this.waiters.some(Boolean))) this.flush();
      });
      return;
    }
    this.flushing = false;
    this.settle(batch, waiters, failed);
  }

  /** The commit itself failed (disk full, I/O error): nothing in the batch is durable. */
  private lost(batch: WriteRecord[], waiters: (Waiter | null)[], err: unknown): void {
    this.log.error({ err, writes: batch.length }, 'batch commit failed');
    for (const w of waiters) w?.reject(err);
  }

  private settle(batch: WriteRecord[], waiters: (Waiter | null)[], failed: Map<WriteRecord, unknown> | null): void {
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
