import type { HistoryKind, HistoryRow } from '../../domain/records.js';
import type { Timing } from '../../domain/check-types.js';
import type { HistoryEventInput, HistoryResultInput } from '../store.js';
import { parseJson } from './values.js';

/** A row of `history` as either store reads it (`SELECT *`). */
export interface HistoryRowDb {
  id: number;
  check_seq: number;
  at: number;
  kind: string;
  status: string;
  status_code: number | null;
  response_time: number | null;
  dns: number | null;
  connect: number | null;
  tls: number | null;
  ttfb: number | null;
  total: number | null;
  error: string | null;
  region: string | null;
  snippet: string | null;
  meta: string | null;
}

/** A row's timing columns read back the way resultValues() writes them: a null total means the probe had none. */
export function timingOf(total: number | null, dns: number | null, connect: number | null, tls: number | null, ttfb: number | null): Timing | null {
  return total === null ? null : { dns: dns ?? 0, connect: connect ?? 0, tls: tls ?? 0, ttfb: ttfb ?? 0, total };
}

export function rowToHistory(r: HistoryRowDb): HistoryRow {
  return {
    id: r.id,
    checkSeq: r.check_seq,
    at: r.at,
    kind: r.kind as HistoryKind,
    status: r.status,
    statusCode: r.status_code,
    responseTime: r.response_time,
    timing: timingOf(r.total, r.dns, r.connect, r.tls, r.ttfb),
    error: r.error,
    region: r.region,
    snippet: r.snippet,
    meta: parseJson<Record<string, unknown>>(r.meta),
  };
}

/** History columns in insert order, and one result's or event's values for them. */
export const HISTORY_COLUMNS = ['check_seq', 'at', 'kind', 'status', 'status_code', 'response_time', 'dns', 'connect', 'tls', 'ttfb', 'total', 'error', 'region', 'snippet', 'meta'] as const;

export function resultValues(r: HistoryResultInput): unknown[] {
  const t = r.timing;
  return [
    r.checkSeq, r.at, r.kind, r.status, r.statusCode, r.responseTime,
    t?.dns ?? null, t?.connect ?? null, t?.tls ?? null, t?.ttfb ?? null, t?.total ?? null,
    r.error, r.region, r.snippet, r.meta === null ? null : JSON.stringify(r.meta),
  ];
}

export function eventValues(e: HistoryEventInput): unknown[] {
  return [e.checkSeq, e.at, 'event', e.status, null, null, null, null, null, null, null, null, e.region, null, JSON.stringify(e.meta)];
}

/** A search text as a LIKE pattern that matches it anywhere, its wildcards escaped with `\`. */
export const containsPattern = (q: string): string => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
