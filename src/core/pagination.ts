import { errors } from '../domain/errors.js';

/**
 * Offset and cursor pagination (spec 4.1, decisions §5). A cursor is opaque to clients:
 * base64url JSON of the sort key of the last row served and the page number it ends.
 */
export interface PageRequest {
  limit: number;
  page: number;
  cursor?: string;
  includeTotal: boolean;
}

export interface PageMeta {
  page: number;
  limit: number;
  total?: number;
  cursor: string | null;
}

export interface CursorState<K> {
  key: K;
  page: number;
}

export function encodeCursor<K>(key: K, page: number): string {
  return Buffer.from(JSON.stringify({ k: key, p: page })).toString('base64url');
}

export function decodeCursor<K>(cursor: string, isKey: (v: unknown) => v is K): CursorState<K> {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { k?: unknown; p?: unknown };
    if (isKey(parsed.k) && Number.isInteger(parsed.p) && (parsed.p as number) >= 1) {
      return { key: parsed.k, page: parsed.p as number };
    }
  } catch {
    // fall through: any undecodable cursor is the same client error
  }
  throw errors.badRequest('cursor is malformed; pass meta.cursor from the previous response unchanged');
}

/**
 * Serves one page from rows fetched with limit + 1 (the extra row tells whether a next page
 * exists), producing the meta the spec describes.
 */
export function pageOf<T, K>(
  rows: T[],
  req: { limit: number; page: number },
  keyOf: (row: T) => K,
  total: number | undefined,
): { data: T[]; meta: PageMeta } {
  const hasMore = rows.length > req.limit;
  const data = hasMore ? rows.slice(0, req.limit) : rows;
  const last = data[data.length - 1];
  const cursor = hasMore && last !== undefined ? encodeCursor(keyOf(last), req.page + 1) : null;
  const meta: PageMeta =
    total === undefined
      ? { page: req.page, limit: req.limit, cursor }
      : { page: req.page, limit: req.limit, total, cursor };
  return { data, meta };
}

/** Plain offset pages (the status pages' incidents and subscribers): 25 a page unless asked, the first page unless asked. */
export function offsetPage(query: { limit?: number; page?: number }): { limit: number; page: number; offset: number } {
  const limit = query.limit ?? 25;
  const page = query.page ?? 1;
  return { limit, page, offset: (page - 1) * limit };
}
