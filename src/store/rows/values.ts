/**
 * Column values as both stores hold them: booleans are 0/1 in SQLite and booleans in
 * PostgreSQL, JSON documents are text in both.
 */
export const toBool = (v: unknown): boolean => v === 1 || v === true;
export const fromBool = (v: boolean): number => (v ? 1 : 0);
export const parseJson = <T>(v: unknown): T | null => (typeof v === 'string' ? (JSON.parse(v) as T) : null);
export const toJson = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));
