import type { Statement } from 'better-sqlite3';
import type { Db } from '../db.js';

/** Prepared statements cached by SQL text, for queries built from optional filters. */
export class StatementCache {
  private readonly cache = new Map<string, Statement>();
  constructor(private readonly db: Db) {}
  get(sql: string): Statement {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.cache.set(sql, stmt);
    }
    return stmt;
  }
}

export const toBool = (v: unknown): boolean => v === 1 || v === true;
export const fromBool = (v: boolean): number => (v ? 1 : 0);
export const parseJson = <T>(v: unknown): T | null => (typeof v === 'string' ? (JSON.parse(v) as T) : null);
export const toJson = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));
