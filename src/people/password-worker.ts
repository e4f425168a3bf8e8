import { isMainThread } from 'node:worker_threads';
import { scryptSync } from 'node:crypto';
import type { Derivation } from './password-hasher.js';

/**
 * The password pool's task (piscina loads this module on its thread): scrypt run synchronously,
 * so it occupies this thread and never libuv's pool, where the probes resolve names.
 */
function derive(d: Derivation): Uint8Array {
  // scrypt needs 128·N·r bytes; allow twice that.
  return scryptSync(d.password, d.salt, d.bytes, { N: d.N, r: d.r, p: d.p, maxmem: 256 * d.N * d.r });
}

export default isMainThread ? undefined : derive;
