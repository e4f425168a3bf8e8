/**
 * A request body collected into one buffer that grows by doubling, up to a cap. A body sent in
 * tiny chunks (chunked transfer encoding, one byte each) then costs a few reallocations, not
 * one allocation per chunk: a megabyte in 1-byte chunks made a million buffers before.
 */
export class BodyBuffer {
  private bytes: Buffer;
  private size = 0;

  /** `expected`: the declared Content-Length, if any, so a plain body is allocated once. */
  constructor(
    private readonly cap: number,
    expected = 0,
  ) {
    this.bytes = Buffer.allocUnsafe(Math.min(cap, Number.isFinite(expected) ? Math.max(expected, 1024) : 1024));
  }

  /** Appends a chunk (copied: the caller may reuse its memory); false once the body passes the cap. */
  append(chunk: Uint8Array): boolean {
    const needed = this.size + chunk.byteLength;
    if (needed > this.cap) return false;
    if (needed > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.cap, Math.max(needed, this.bytes.length * 2)));
      this.bytes.copy(grown, 0, 0, this.size);
      this.bytes = grown;
    }
    this.bytes.set(chunk, this.size);
    this.size = needed;
    return true;
  }

  /** The body read so far, without the spare capacity. */
  contents(): Buffer {
    return this.bytes.subarray(0, this.size);
  }
}
