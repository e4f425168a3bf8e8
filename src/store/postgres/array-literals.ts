/**
 * Rows as column arrays for unnest, each column already a PostgreSQL array literal (text).
 * pg encodes a JavaScript array parameter element by element, through two regular-expression
 * replaces per element; the group commit of pings sends thousands of elements a second, most of
 * them numbers and short strings that need no escaping, so they are written here directly.
 * Elements are what the store's writes hold: null, numbers, booleans, strings (JSON already
 * stringified), bytes (bytea); anything else is encoded as pg would (JSON).
 */
export function arrayColumns(rows: readonly unknown[][], width: number): string[] {
  const columns: string[] = [];
  const parts: string[] = new Array<string>(rows.length);
  for (let i = 0; i < width; i++) {
    for (let r = 0; r < rows.length; r++) parts[r] = element(rows[r]![i]);
    columns.push(`{${parts.join(',')}}`);
  }
  return columns;
}

const ESCAPED = /["\\]/;

function element(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text =
    typeof value === 'string' ? value
    : value instanceof Uint8Array ? `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`
    : value instanceof Date ? value.toISOString()
    : JSON.stringify(value);
  return ESCAPED.test(text) ? `"${text.replace(/["\\]/g, '\\$&')}"` : `"${text}"`;
}
