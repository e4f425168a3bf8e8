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
