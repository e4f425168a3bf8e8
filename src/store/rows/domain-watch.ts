import type { DomainMemory } from '../alert-store.js';

/** A row of `domain_watch` as either store reads it. */
export interface DomainMemoryRowDb {
  check_id: string;
  expires_at: number | null;
  alerted: string;
  checked_at: number | null;
  last_error: string | null;
}

export const rowToDomainMemory = (r: DomainMemoryRowDb): DomainMemory => ({
  checkId: r.check_id,
  expiresAt: r.expires_at,
  alerted: r.alerted as DomainMemory['alerted'],
  checkedAt: r.checked_at,
  lastError: r.last_error,
});
