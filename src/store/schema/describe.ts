/**
 * The words the schema is described in (docs/architecture.md, "How the schema is described"):
 * tables of typed columns, each element with the schema version that brought it, from which
 * store/schema/sqlite.ts and store/schema/postgres.ts write each dialect's DDL and migrations.
 */

/** What a column holds; each dialect picks its type (sqlite.ts, postgres.ts). */
export type Family =
  | 'text'
  /** JSON kept as text in both dialects (read and written whole by the row mappers). */
  | 'json'
  | 'int'
  | 'bigint'
  /** Epoch milliseconds. */
  | 'time'
  | 'real'
  | 'bool'
  | 'blob';

/**
 * A key the database numbers.
 * - `autoincrement`: never hands a number out twice (SQLite AUTOINCREMENT, PostgreSQL BIGSERIAL):
 *   cursors and logs keyed by it stay right.
 * - `rowid`: SQLite's INTEGER PRIMARY KEY; on PostgreSQL a sequence's default (the table is
 *   partitioned, so it has no primary key of its own).
 * - `sqlite-rowid`: SQLite keeps it as the table's hidden rowid (not declared; every SQLite index
 *   ends with the rowid, so it is left off an index's end); PostgreSQL declares a BIGSERIAL key.
 */
export type Key = 'autoincrement' | 'rowid' | 'sqlite-rowid';

export type Literal = string | number | boolean;

export interface Column {
  name: string;
  family: Family;
  nullable: boolean;
  default?: Literal;
  /** The version that added the column; its table's when absent. */
  since?: number;
  primaryKey?: boolean;
  key?: Key;
  unique?: boolean;
  /**
   * Unique whatever its case: SQLite's `UNIQUE COLLATE NOCASE`, PostgreSQL's unique index of this
   * name on `lower(column)`.
   */
  caselessUnique?: string;
  /** Deleting the referenced row deletes this one (every reference here cascades). */
  references?: { table: string; column: string };
  check?: string;
}

/** How each dialect writes a boolean test in a partial index's predicate. */
export interface Predicates {
  yes(column: string): string;
  no(column: string): string;
}

export interface Index {
  name: string;
  columns: string[];
  unique?: boolean;
  where?: (p: Predicates) => string;
  /** The version that added the index; its table's when absent. */
  since?: number;
}

export interface Table {
  name: string;
  since: number;
  /** In one dialect only (the reason is said where the table is described). */
  only?: 'sqlite' | 'postgres';
  columns: Column[];
  /** A key of several columns. */
  primaryKey?: string[];
  /** UNIQUE constraints of several columns. */
  unique?: string[][];
  indexes: Index[];
  sqlite?: {
    /** The rows are kept in their primary key's order (small keyed tables). */
    withoutRowid?: boolean;
  };
  postgres?: {
    /** Partitioned by range of this time column, with a DEFAULT partition for what falls outside. */
    partitionBy?: string;
    /** The primary key is an ordinary index of this name (rows may share a key: see the table). */
    keyAsIndex?: string;
    /** Free room on each page, so an update stays a heap-only tuple. */
    fillfactor?: number;
  };
}

/** Raw SQL of a version beside its tables: data it moves, rows it seeds, SQLite's triggers. */
export interface Step {
  sqlite?: string;
  postgres?: string;
}

export interface Version {
  version: number;
  name: string;
  steps?: Step[];
}

/** The whole description: tables in creation order (a table follows those it references). */
export interface Schema {
  tables: Table[];
  versions: Version[];
}

/** A column, built in the order its SQL reads: `text('email').notNull().caselessUnique('accounts_email')`. */
export class ColumnBuilder {
  readonly column: Column;

  constructor(name: string, family: Family) {
    this.column = { name, family, nullable: true };
  }

  notNull(): this {
    this.column.nullable = false;
    return this;
  }

  default(value: Literal): this {
    this.column.default = value;
    return this;
  }

  primaryKey(key?: Key): this {
    this.column.primaryKey = true;
    this.column.nullable = false;
    if (key) this.column.key = key;
    return this;
  }

  unique(): this {
    this.column.unique = true;
    return this;
  }

  caselessUnique(postgresIndex: string): this {
    this.column.caselessUnique = postgresIndex;
    return this;
  }

  references(table: string, column = 'id'): this {
    this.column.references = { table, column };
    return this;
  }

  check(sql: string): this {
    this.column.check = sql;
    return this;
  }

  since(version: number): this {
    this.column.since = version;
    return this;
  }
}

const family = (f: Family) => (name: string) => new ColumnBuilder(name, f);
export const text = family('text');
export const json = family('json');
export const int = family('int');
export const bigint = family('bigint');
export const time = family('time');
export const real = family('real');
export const bool = family('bool');
export const blob = family('blob');

export type TableOptions = Omit<Table, 'name' | 'since' | 'columns' | 'indexes'> & { indexes?: Index[] };

export function table(name: string, since: number, columns: ColumnBuilder[], options: TableOptions = {}): Table {
  return { name, since, ...options, columns: columns.map((c) => c.column), indexes: options.indexes ?? [] };
}

export function index(name: string, columns: string[], options: Omit<Index, 'name' | 'columns'> = {}): Index {
  return { name, columns, ...options };
}

export const columnSince = (t: Table, c: Column): number => c.since ?? t.since;
export const indexSince = (t: Table, i: Index): number => i.since ?? t.since;
