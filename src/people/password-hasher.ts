import { Piscina } from 'piscina';
import { errors } from '../domain/errors.js';
import { bundledFile } from '../util/bundled-file.js';

const WORKER = bundledFile('password-worker', new URL('./password-worker.js', import.meta.url));

/** One scrypt derivation: what the password thread computes. */
export interface Derivation {
  password: string;
  salt: Uint8Array;
  N: number;
  r: number;
  p: number;
  bytes: number;
}

export interface PasswordHashingSettings {
  /** Threads that hash passwords (each hash holds 32 MiB while it runs). */
  threads: number;
  /** Hashes waiting for a thread beyond which a sign-in is answered 503 at once. */
  maxQueued: number;
}

/**
 * Password hashes on a thread pool of their own (issue 34). node's async scrypt runs on libuv's
 * pool, the one that resolves every probe's host name: a burst of sign-ins there held probes
 * back until they timed out. Here a burst waits in a bounded queue, and what does not fit is
 * refused with a 503 rather than held in memory.
 */
export class PasswordHasher {
  private pool: Piscina<Derivation, Uint8Array> | null = null;

  constructor(private readonly settings: PasswordHashingSettings) {}

  async derive(d: Derivation): Promise<Buffer> {
    const pool = (this.pool ??= new Piscina<Derivation, Uint8Array>({
      filename: WORKER,
      minThreads: this.settings.threads,
      maxThreads: this.settings.threads,
      idleTimeout: Infinity,
      recordTiming: false,
    }));
    if (pool.queueSize >= this.settings.maxQueued) {
      throw errors.unavailable('Too many passwords are being checked right now; try again in a moment').withHeaders({ 'Retry-After': '1' });
    }
    const key = await pool.run(d);
    return Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  }

  /** Waiting now for the pool's thread. */
  get queued(): number {
    return this.pool?.queueSize ?? 0;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.destroy();
  }
}
