import type { Db } from '../db.js';
import type { CheckQuery } from '../store.js';
import { Lru } from '../../util/lru.js';
import { StatementCache } from './statements.js';
import { hasEveryTag } from '../../domain/tags.js';

/** The checks a query matches, in dashboard order: ids with their sequence numbers (the cursor key). */
export interface OrderedChecks {
  ids: string[];
  seqs: number[];
}

/**
 * Which checks each list query matches, kept between requests. Pages then cost a slice instead
 * of an ORDER BY ... OFFSET scan (a late page of a 10,000-check account read thousands of index
 * entries). The lists hold ids only; the records come from the record cache. Anything that can
 * change a list's members or order (a check created, deleted, paused, moved to another folder,
 * or changing status) calls `changed()`, and every list is read again on its next use: such
 * changes are rare next to the reads, and probe results that change nothing else do not call it.
 */
export function checkLists(db: Db): { ordered(q: CheckQuery): OrderedChecks; changed(): void } {
  const statements = new StatementCache(db);
  const lists = new Lru<string, { version: number; list: OrderedChecks }>(64);
  let version = 0;
  return {
    ordered(q) {
      const key = keyOf(q);
      const hit = lists.get(key);
      if (hit && hit.version === version) return hit.list;
      const w = where(q);
      const tags = q.tags ?? [];
      let rows: Array<[string, number]>;
      if (tags.length === 0) rows = statements.get(`SELECT id, seq FROM checks WHERE ${w.sql} ORDER BY seq`).raw().all(...w.params) as Array<[string, number]>;
      else {
        // Matched here rather than in SQL, so case folding is JavaScript's everywhere (SQLite's lower() folds ASCII only).
        const tagged = statements.get(`SELECT id, seq, tags FROM checks WHERE ${w.sql} AND tags != '[]' ORDER BY seq`).raw().all(...w.params) as Array<[string, number, string]>;
        rows = tagged.filter((r) => hasEveryTag(JSON.parse(r[2]) as string[], tags)).map((r) => [r[0], r[1]]);
      }
      const list: OrderedChecks = { ids: rows.map((r) => r[0]), seqs: rows.map((r) => r[1]) };
      lists.set(key, { version, list });
      return list;
    },
    changed() {
      version++;
    },
  };
}

/** A page of an ordered list: after the cursor's sequence number, or from the offset; a negative limit is no limit. */
export function pageOfOrdered(list: OrderedChecks, page: { limit: number; offset: number; afterSeq: number | null }): string[] {
  const start = page.afterSeq === null ? page.offset : firstAfter(list.seqs, page.afterSeq);
  return list.ids.slice(start, page.limit < 0 ? undefined : start + page.limit);
}

function firstAfter(seqs: number[], seq: number): number {
  let lo = 0;
  let hi = seqs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (seqs[mid]! <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function keyOf(q: CheckQuery): string {
  const access = q.access ? JSON.stringify([q.access.checkIds, q.access.folders]) : '*';
  return `${q.accountId}\n${q.status ?? ''}\n${access}\n${q.tags?.length ? JSON.stringify(q.tags.map((t) => t.toLowerCase())) : ''}`;
}

/** WHERE clause and parameters for an account's checks as one credential may see them. */
function where(q: CheckQuery): { sql: string; params: unknown[] } {
  const parts = ['account_id = ?'];
  const params: unknown[] = [q.accountId];
  if (q.status === 'paused') parts.push('disabled = 1');
  else if (q.status) {
    parts.push('disabled = 0 AND status = ?');
    params.push(q.status);
  }
  if (q.access) {
    const ids = q.access.checkIds;
    const folders = q.access.folders;
    const alternatives: string[] = [];
    if (ids.length) alternatives.push(`id IN (${ids.map(() => '?').join(',')})`);
    if (folders.length) alternatives.push(`folder IN (${folders.map(() => '?').join(',')})`);
    parts.push(alternatives.length ? `(${alternatives.join(' OR ')})` : '0');
    params.push(...ids, ...folders);
  }
  return { sql: parts.join(' AND '), params };
}
