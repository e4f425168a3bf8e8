import type { HistoryQuery, RecentResult, Store } from '../store/store.js';
import type { ChecksService } from './checks-service.js';
import { errors } from '../domain/errors.js';
import { decodeCursor, pageOf, type PageMeta, type PageRequest } from './pagination.js';
import { accessAllows, type Principal } from './principal.js';
import type { HistoryRow } from '../domain/records.js';
import { parseIsoBound } from './iso-date.js';

export interface HistoryFilter {
  from?: string;
  to?: string;
  status?: 'up' | 'down' | 'error';
  q?: string;
}

const isKey = (v: unknown): v is [number, number] => Array.isArray(v) && v.length === 2 && v.every(Number.isInteger);

/** A check's history, newest first, with the spec's filters (4.2) and both paginations (4.1). */
export class HistoryService {
  constructor(
    private readonly store: Store,
    private readonly checks: ChecksService,
  ) {}

  async list(principal: Principal, checkId: string, filter: HistoryFilter, page: PageRequest): Promise<{ checkId: string; data: HistoryRow[]; meta: PageMeta }> {
    const check = await this.checks.get(principal, checkId);
    const from = parseDate('from', filter.from);
    const to = parseDate('to', filter.to);
    if (from !== null && to !== null && from > to) throw errors.badRequest('from must not be after to');
    const query: HistoryQuery = { checkSeq: check.seq, from, to, status: filter.status ?? null, q: filter.q?.length ? filter.q : null };
    const cursor = page.cursor === undefined ? null : decodeCursor(page.cursor, isKey);
    const rows = await this.store.history.list(query, {
      limit: page.limit + 1,
      offset: cursor ? 0 : (page.page - 1) * page.limit,
      before: cursor?.key ?? null,
    });
    const total = page.includeTotal ? await this.store.history.count(query) : undefined;
    return { checkId, ...pageOf(rows, { limit: page.limit, page: cursor?.page ?? page.page }, (r) => [r.at, r.id], total) };
  }

  /**
   * The latest results of several checks at once (the dashboard's beat bars), oldest first.
   * Ids the caller may not see, or that no longer exist, are left out: the list may be stale.
   */
  async recent(principal: Principal, ids: readonly string[], limit: number): Promise<Array<{ id: string; results: RecentResult[] }>> {
    const out: Array<{ id: string; results: RecentResult[] }> = [];
    for (const id of new Set(ids)) {
      const check = await this.checks.find(id);
      if (!check || check.accountId !== principal.account.id || !accessAllows(principal.access, check)) continue;
      out.push({ id, results: (await this.store.history.recentResults(check.seq, limit)).reverse() });
    }
    return out;
  }
}

/** A from/to query parameter: null when absent, a 400 when it is not an ISO 8601 instant. */
export function parseDate(name: 'from' | 'to', value: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  const ms = parseIsoBound(value, name);
  if (Number.isNaN(ms)) throw errors.badRequest(`${name} must be an ISO 8601 date-time, got ${value}`);
  return ms;
}
