import type Database from 'better-sqlite3';
import type pg from 'pg';

/**
 * A database's schema as it is, read from the database itself (SQLite's catalog and pragmas,
 * PostgreSQL's information_schema and pg_index), in terms both dialects share: the parity test
 * compares a SQLite and a PostgreSQL store, the upgrade test a migrated store and a fresh one.
 */
export interface LiveSchema {
  tables: Record<string, LiveTable>;
  /** PostgreSQL's partitions (tables of their own in its catalog). */
  partitions: string[];
  triggers: string[];
}

export interface LiveTable {
  /** By name: a column added later sits last in one store and elsewhere in the other. */
  columns: LiveColumn[];
  primaryKey: string[];
  /** Indexes and unique constraints, sorted by signature. */
  indexes: LiveIndex[];
  /** `column -> table(column) on delete`, sorted. */
  references: string[];
  /**
   * What only its own dialect has words for (CHECK constraints as the dialect prints them,
   * WITHOUT ROWID, partitioning, storage parameters): compared between stores of one dialect only.
   */
  options: string[];
}

/** What a value is stored as: SQLite's storage classes; PostgreSQL's booleans and integers are `integer`. */
export type StorageFamily = 'integer' | 'real' | 'text' | 'blob';

export interface LiveColumn {
  name: string;
  /** The dialect's own type (`INTEGER`; `bigint`, `boolean`): compared between stores of one dialect only. */
  type: string;
  family: StorageFamily;
  notNull: boolean;
  /** The default as a literal (`0`, `'[]'`), `generated` for a sequence's, or null. */
  default: string | null;
}

export interface LiveIndex {
  /** Null for one a constraint made (its name is the dialect's). */
  name: string | null;
  /** Column names; `lower(x)` for a column unique whatever its case. */
  columns: string[];
  unique: boolean;
  partial: boolean;
}

const signature = (i: LiveIndex) => `${i.unique ? 'unique ' : ''}(${i.columns.join(', ')})${i.partial ? ' partial' : ''}`;

function sqliteFamily(type: string): StorageFamily {
  const t = type.toUpperCase();
  if (t === 'INTEGER') return 'integer';
  if (t === 'REAL') return 'real';
  if (t === 'BLOB') return 'blob';
  if (t === 'TEXT') return 'text';
  throw new Error(`unexpected SQLite column type ${type}`);
}

function pgFamily(type: string): StorageFamily {
  if (['integer', 'bigint', 'smallint', 'boolean'].includes(type)) return 'integer';
  if (type === 'double precision' || type === 'real') return 'real';
  if (type === 'bytea') return 'blob';
  if (type === 'text') return 'text';
  throw new Error(`unexpected PostgreSQL column type ${type}`);
}

const table = (t: LiveTable): LiveTable => ({
  columns: [...t.columns].sort((a, b) => a.name.localeCompare(b.name)),
  primaryKey: t.primaryKey,
  references: [...t.references].sort(),
  options: [...t.options].sort(),
  indexes: [...t.indexes].sort((a, b) => signature(a).localeCompare(signature(b)) || (a.name ?? '').localeCompare(b.name ?? '')),
});

export function readSqliteSchema(db: Database.Database): LiveSchema {
  const tables: Record<string, LiveTable> = {};
  const rows = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string; sql: string }>;
  for (const { name, sql } of rows) {
    const info = db.pragma(`table_info(${name})`) as Array<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>;
    const autoincrement = /AUTOINCREMENT/i.test(sql);
    const indexes = (db.pragma(`index_list(${name})`) as Array<{ name: string; unique: number; origin: string; partial: number }>)
      .filter((i) => i.origin !== 'pk')
      .map((i) => {
        const keys = (db.pragma(`index_xinfo(${i.name})`) as Array<{ name: string; key: number; coll: string }>).filter((k) => k.key === 1);
        return {
          name: i.origin === 'c' ? i.name : null,
          columns: keys.map((k) => (k.coll.toUpperCase() === 'NOCASE' ? `lower(${k.name})` : k.name)),
          unique: i.unique === 1,
          partial: i.partial === 1,
        };
      });
    tables[name] = table({
      columns: info.map((c) => ({
        name: c.name,
        type: c.type,
        family: sqliteFamily(c.type),
        // A primary key holds no null in PostgreSQL; SQLite's rowid tables let one in, which no store writes.
        notNull: c.notnull === 1 || c.pk > 0,
        default: c.pk > 0 && autoincrement && c.type.toUpperCase() === 'INTEGER' ? 'generated' : c.dflt_value,
      })),
      primaryKey: info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
      indexes,
      references: (db.pragma(`foreign_key_list(${name})`) as Array<{ table: string; from: string; to: string; on_delete: string }>)
        .map((f) => `${f.from} -> ${f.table}(${f.to}) ${f.on_delete.toLowerCase()}`),
      options: [
        ...(/WITHOUT ROWID\s*$/i.test(sql) ? ['without rowid'] : []),
        ...[...sql.matchAll(/CHECK \(((?:[^()]|\([^()]*\))*)\)/gi)].map((m) => `check ${m[1]!.replace(/\s+/g, ' ')}`),
      ],
    });
  }
  const triggers = db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").pluck().all() as string[];
  return { tables, partitions: [], triggers };
}

function pgDefault(value: string | null): string | null {
  if (value === null) return null;
  if (value.startsWith('nextval(')) return 'generated';
  const bare = value.replace(/::[a-z ]+$/, '');
  return bare === 'false' ? '0' : bare === 'true' ? '1' : bare;
}

export async function readPgSchema(client: pg.ClientBase): Promise<LiveSchema> {
  const relations = (await client.query<{ name: string; partition: boolean; options: string[] }>(
    `SELECT c.relname AS name, c.relispartition AS partition,
            array_remove(coalesce(c.reloptions, '{}') || ARRAY[CASE WHEN c.relkind = 'p' THEN 'partitioned by ' || pg_get_partkeydef(c.oid) END], NULL) ||
            ARRAY(SELECT 'check ' || pg_get_constraintdef(k.oid) FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'c') AS options
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
  )).rows;
  const columns = (await client.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string; column_default: string | null }>(
    "SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'public'",
  )).rows;
  const indexes = (await client.query<{ table: string; name: string; primary: boolean; unique: boolean; partial: boolean; constraint: boolean; columns: string[] }>(
    `SELECT t.relname AS table, ic.relname AS name, i.indisprimary AS primary, i.indisunique AS unique, i.indpred IS NOT NULL AS partial,
            EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = i.indexrelid) AS constraint,
            ARRAY(SELECT pg_get_indexdef(i.indexrelid, k, true) FROM generate_series(1, i.indnkeyatts) k ORDER BY k) AS columns
     FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = 'public'`,
  )).rows;
  const references = (await client.query<{ table: string; line: string }>(
    `SELECT c.conrelid::regclass::text AS table,
            a.attname || ' -> ' || c.confrelid::regclass::text || '(' || af.attname || ') ' ||
            CASE c.confdeltype WHEN 'c' THEN 'cascade' WHEN 'a' THEN 'no action' ELSE c.confdeltype::text END AS line
     FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
     JOIN pg_attribute af ON af.attrelid = c.confrelid AND af.attnum = c.confkey[1]
     WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace`,
  )).rows;
  const triggers = (await client.query<{ name: string }>(
    "SELECT t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal AND c.relnamespace = 'public'::regnamespace ORDER BY 1",
  )).rows.map((r) => r.name);
  const tables: Record<string, LiveTable> = {};
  for (const { name, options } of relations.filter((r) => !r.partition)) {
    const own = indexes.filter((i) => i.table === name);
    tables[name] = table({
      columns: columns.filter((c) => c.table_name === name).map((c) => ({
        name: c.column_name, type: c.data_type, family: pgFamily(c.data_type), notNull: c.is_nullable === 'NO', default: pgDefault(c.column_default),
      })),
      primaryKey: own.find((i) => i.primary)?.columns ?? [],
      indexes: own.filter((i) => !i.primary).map((i) => ({ name: i.constraint ? null : i.name, columns: i.columns, unique: i.unique, partial: i.partial })),
      references: references.filter((r) => r.table === name).map((r) => r.line),
      options,
    });
  }
  return { tables, partitions: relations.filter((r) => r.partition).map((r) => r.name), triggers };
}

/**
 * Where two schemas differ, one line each, in words a reader can act on. Index names are left
 * out (each dialect names those its constraints make); the stores' labels say which is which.
 */
export function schemaDrift(a: LiveSchema, b: LiveSchema, [la, lb]: [string, string]): string[] {
  const drift: string[] = [];
  const names = [...new Set([...Object.keys(a.tables), ...Object.keys(b.tables)])].sort();
  for (const name of names) {
    const ta = a.tables[name];
    const tb = b.tables[name];
    if (!ta || !tb) {
      drift.push(`table ${name} only in ${ta ? la : lb}`);
      continue;
    }
    const columns = [...new Set([...ta.columns, ...tb.columns].map((c) => c.name))].sort();
    for (const column of columns) {
      const ca = ta.columns.find((c) => c.name === column);
      const cb = tb.columns.find((c) => c.name === column);
      if (!ca || !cb) {
        drift.push(`${name}.${column} only in ${ca ? la : lb}`);
        continue;
      }
      if (ca.family !== cb.family) drift.push(`${name}.${column}: ${ca.family} in ${la}, ${cb.family} in ${lb}`);
      if (ca.notNull !== cb.notNull) drift.push(`${name}.${column}: ${ca.notNull ? 'not null' : 'nullable'} in ${la}, ${cb.notNull ? 'not null' : 'nullable'} in ${lb}`);
      if (ca.default !== cb.default) drift.push(`${name}.${column}: default ${ca.default ?? 'none'} in ${la}, ${cb.default ?? 'none'} in ${lb}`);
    }
    if (ta.primaryKey.join() !== tb.primaryKey.join()) {
      drift.push(`${name}: primary key (${ta.primaryKey.join(', ')}) in ${la}, (${tb.primaryKey.join(', ')}) in ${lb}`);
    }
    for (const r of ta.references) if (!tb.references.includes(r)) drift.push(`${name}: reference ${r} only in ${la}`);
    for (const r of tb.references) if (!ta.references.includes(r)) drift.push(`${name}: reference ${r} only in ${lb}`);
    const sa = ta.indexes.map(signature);
    const sb = tb.indexes.map(signature);
    for (const s of sa) if (!sb.includes(s)) drift.push(`${name}: index ${s} only in ${la}`);
    for (const s of sb) if (!sa.includes(s)) drift.push(`${name}: index ${s} only in ${lb}`);
  }
  for (const t of a.triggers) if (!b.triggers.includes(t)) drift.push(`trigger ${t} only in ${la}`);
  for (const t of b.triggers) if (!a.triggers.includes(t)) drift.push(`trigger ${t} only in ${lb}`);
  return drift;
}
