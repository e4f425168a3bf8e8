interface Waiter<T, M> {
  resolve: (value: T) => void;
  reject: (error: Error) => void;
  meta: M;
}

/**
 * The calling side of a request/response channel to another thread or process: each request
 * gets an id that its answer carries back, and the answer settles the caller's promise. The
 * transport (a worker's port, a child's IPC channel, a batch of many requests in one message)
 * is the caller's; this keeps the waiters. `meta` is what the caller keeps with a request
 * (its deadline, where it went); `onBusy` hears when the first request opens and the last
 * settles (to ref or unref the other side, so an idle one never holds the process open).
 */
export class RequestChannel<T, M = undefined> {
  private readonly waiting = new Map<number, Waiter<T, M>>();
  private nextId = 1;

  constructor(private readonly onBusy?: (busy: boolean) => void) {}

  /** Requests waiting for their answer. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Opens a request; `send` posts it under its id (a throw fails and closes the request). */
  request(meta: M, send: (id: number) => void): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, meta });
      if (this.waiting.size === 1) this.onBusy?.(true);
      try {
        send(id);
      } catch (err) {
        this.reject(id, err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  /** What was kept with an open request; undefined once it has settled. */
  meta(id: number): M | undefined {
    return this.waiting.get(id)?.meta;
  }

  /** The open requests, oldest first (settling one while iterating is safe). */
  open(): IterableIterator<[number, Waiter<T, M>]> {
    return this.waiting.entries();
  }

  /** Answers a request; false when it had already settled (a late or duplicate answer). */
  resolve(id: number, value: T): boolean {
    const waiter = this.take(id);
    waiter?.resolve(value);
    return waiter !== undefined;
  }

  reject(id: number, error: Error): boolean {
    const waiter = this.take(id);
    waiter?.reject(error);
    return waiter !== undefined;
  }

  /** The other side is gone: every open request fails with `error`. */
  rejectAll(error: Error): void {
    for (const id of [...this.waiting.keys()]) this.reject(id, error);
  }

  private take(id: number): Waiter<T, M> | undefined {
    const waiter = this.waiting.get(id);
    if (waiter === undefined) return undefined;
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.onBusy?.(false);
    return waiter;
  }
}
