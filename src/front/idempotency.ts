import { createHash } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import type { IdempotencyRepo } from '../store/store.js';
import type { Reply } from '../api/http-types.js';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 256;

/**
 * Idempotency-Key handling (decisions §7): keys are scoped to the account; a replay within
 * 24 hours returns the original status and body; the same key with another body or path is 422.
 * Only successful (2xx) answers are remembered, so a request that failed can be retried as is.
 */
export class Idempotency {
  /** Keys whose first request is still being answered (async handlers). */
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly repo: IdempotencyRepo,
    private readonly clock: Clock,
  ) {}

  static readKey(headers: Record<string, string>, required: boolean): string | null {
    const key = headers['idempotency-key'];
    if (key === undefined || key === '') {
      if (required) throw errors.badRequest('Idempotency-Key header is required');
      return null;
    }
    if (key.length > MAX_KEY_LENGTH) throw errors.badRequest(`Idempotency-Key must be at most ${MAX_KEY_LENGTH} characters`);
    return key;
  }

  static fingerprint(body: unknown): string {
    return createHash('sha256').update(canonicalJson(body)).digest('hex');
  }

  /** The stored answer to replay, or null when this key is new. */
  async replay(accountId: string, key: string, method: string, path: string, bodyHash: string): Promise<Reply | null> {
    const record = await this.repo.get(accountId, key);
    if (!record || record.createdAt <= this.clock.now() - IDEMPOTENCY_WINDOW_MS) {
      if (this.inFlight.has(`${accountId}\0${key}`)) {
        throw errors.conflict('A request with this Idempotency-Key is still being processed');
      }
      return null;
    }
    if (record.method !== method || record.path !== path || record.bodyHash !== bodyHash) {
      throw errors.unprocessable('Idempotency-Key was already used with a different request');
    }
    return { status: record.status, body: JSON.parse(record.response), headers: { 'Idempotent-Replayed': 'true' } };
  }

  begin(accountId: string, key: string): () => void {
    const id = `${accountId}\0${key}`;
    this.inFlight.add(id);
    return () => this.inFlight.delete(id);
  }

  async remember(accountId: string, key: string, method: string, path: string, bodyHash: string, reply: Reply): Promise<void> {
    if (reply.status < 200 || reply.status >= 300) return;
    await this.repo.put({
      accountId, key, method, path, bodyHash,
      status: reply.status,
      response: JSON.stringify(reply.body ?? null),
      createdAt: this.clock.now(),
    });
  }

  async prune(): Promise<number> {
    return this.repo.deleteOlderThan(this.clock.now() - IDEMPOTENCY_WINDOW_MS);
  }
}

/** JSON with object keys sorted, so reordered fields still count as the same request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
