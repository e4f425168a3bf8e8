import { hash } from 'node:crypto';

/** Ping tokens are 64 hex characters; another length is not worth a hash. */
const TOKEN_LENGTH = 64;

/**
 * Ping tokens by hash -> check id. Kept exact by the heartbeat monitor on every create,
 * regeneration and delete, so a regenerated or deleted token is 404 on the very next ping.
 */
export class HeartbeatTokens {
  private readonly byHash = new Map<string, string>();
  private readonly hashOf = new Map<string, string>();

  /** Raw digest bytes as a 32-character (latin1) string: the map key, shortest to hash and compare. */
  static hash(token: string): string {
    return hash('sha256', token, 'binary');
  }

  /** The check a ping token belongs to; null for malformed, unknown or invalidated tokens. */
  lookup(token: string): string | null {
    // Anything but a stored token's exact text misses the map (the uppercase hex of one too).
    if (token.length !== TOKEN_LENGTH) return null;
    return this.byHash.get(HeartbeatTokens.hash(token)) ?? null;
  }

  set(checkId: string, token: string): void {
    const hash = HeartbeatTokens.hash(token);
    const old = this.hashOf.get(checkId);
    if (old === hash) return;
    if (old) this.byHash.delete(old);
    this.byHash.set(hash, checkId);
    this.hashOf.set(checkId, hash);
  }

  delete(checkId: string): void {
    const hash = this.hashOf.get(checkId);
    if (hash) this.byHash.delete(hash);
    this.hashOf.delete(checkId);
  }

  get size(): number {
    return this.byHash.size;
  }
}
