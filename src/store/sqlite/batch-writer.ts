import type { Logger } from 'pino';
import type { Store } from '../store.js';

interface QueuedWrite {
  write: () => void;
  done?: { resolve: () => void; reject: (err: unknown) => void };
}

/**
 * Group commit (DESIGN 6): writes queue up and are committed together, many per transaction.
 * The batch is flushed once the event loop has handled the I/O already waiting (setImmediate),
 * so every request that arrived meanwhile joins it and nobody waits on a fixed timer. `commit` resolves only after its transaction is durable, which is
 * what a heartbeat acknowledgement waits for; `submit` is for writes nobody waits on (probe
 * results). One failing write is reported and skipped; it never sinks the rest of its batch.
 */
export class BatchWriter {
  private queue: QueuedWrite[] = [];
  private scheduled: NodeJS.Immediate | null = null;
  private flushing = false;
  private closed = false;
  /** Told the size of every committed batch (the batch-size metric). */
  onBatch: ((writes: number) => void) | null = null;

  constructor(
    private readonly store: Pick<Store, 'transaction'>,
    private readonly log: Logger,
    private readonly maxBatch = 5000,
  ) {}

  submit(write: () => void): void {
    this.enqueue({ write });
  }

  commit(write: () => void): Promise<void> {
    return new Promise((resolve, reject) => this.enqueue({ write, done: { resolve, reject } }));
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Commits everything queued now (shutdown, tests). */
  flush(): void {
    if (this.scheduled) {
      clearImmediate(this.scheduled);
      this.scheduled = null;
    }
    while (this.queue.length && !this.flushing) this.flushBatch();
  }

  close(): void {
    this.flush();
    this.closed = true;
  }

  private enqueue(p: QueuedWrite): void {
    if (this.closed) {
      p.done?.reject(new Error('writer is closed'));
      return;
    }
    this.queue.push(p);
    if (this.queue.length >= this.maxBatch) this.flush();
    else if (!this.scheduled) {
      this.scheduled = setImmediate(() => {
        this.scheduled = null;
        this.flush();
      });
    }
  }

  private flushBatch(): void {
    const batch = this.queue.length > this.maxBatch ? this.queue.splice(0, this.maxBatch) : this.queue.splice(0);
    const failed = new Map<QueuedWrite, unknown>();
    this.flushing = true;
    try {
      this.store.transaction(() => {
        for (const p of batch) {
          try {
            p.write();
          } catch (err) {
            failed.set(p, err);
          }
        }
      });
    } catch (err) {
      // The commit itself failed (disk full, I/O error): nothing in the batch is durable.
      this.log.error({ err, writes: batch.length }, 'batch commit failed');
      for (const p of batch) p.done?.reject(err);
      return;
    } finally {
      this.flushing = false;
    }
    this.onBatch?.(batch.length);
    for (const p of batch) {
      const err = failed.get(p);
      if (err === undefined) p.done?.resolve();
      else {
        this.log.error({ err }, 'write failed');
        p.done?.reject(err);
      }
    }
  }
}
