/** How much of an oversized body is read and thrown away before its 413, and for how long. */
export interface DrainBounds {
  /** Bytes discarded past the limit before the answer is written regardless. */
  bytes: number;
  /** A pause this long in the client's sending ends the drain (it may be waiting for the answer). */
  idleMs: number;
  /** The drain never lasts longer than this. */
  totalMs: number;
}

export const DRAIN_BOUNDS: DrainBounds = { bytes: 8 * 1024 * 1024, idleMs: 2_000, totalMs: 10_000 };

/**
 * Reads and discards the rest of a body past the limit, so that the 413 is written once the
 * client has stopped sending (a lingering close). Closing a socket that still holds unread
 * bytes resets the connection: a client still writing then gets EPIPE or ECONNRESET and never
 * reads the answer. `finish` is called once: at the body's end, after `idleMs` without a byte,
 * past `bytes` discarded, or after `totalMs`; past a bound the client may still lose it.
 */
export class BodyDrain {
  private discarded = 0;
  private finished = false;
  private readonly idle: NodeJS.Timeout;
  private readonly deadline: NodeJS.Timeout;

  constructor(
    private readonly bounds: DrainBounds,
    private readonly finish: () => void,
  ) {
    this.idle = setTimeout(() => this.end(), bounds.idleMs);
    this.deadline = setTimeout(() => this.end(), bounds.totalMs);
  }

  get done(): boolean {
    return this.finished;
  }

  /** One chunk of the body arrived (its bytes are dropped by the caller). */
  data(bytes: number, isLast: boolean): void {
    if (this.finished) return;
    this.discarded += bytes;
    if (isLast || this.discarded > this.bounds.bytes) this.end();
    else this.idle.refresh();
  }

  /** The connection went away: nothing is left to answer. */
  cancel(): void {
    this.finished = true;
    clearTimeout(this.idle);
    clearTimeout(this.deadline);
  }

  private end(): void {
    if (this.finished) return;
    this.cancel();
    this.finish();
  }
}
