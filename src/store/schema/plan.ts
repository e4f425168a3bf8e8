import { columnSince, indexSince, type Column, type Index, type Schema, type Table } from './describe.js';

export type Dialect = 'sqlite' | 'postgres';

/** One version's SQL, in the order it runs. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** What one version brings to one dialect: tables it creates, then columns and indexes it adds to older tables, then its steps. */
export interface VersionPlan {
  version: number;
  name: string;
  tables: Table[];
  columns: Array<{ table: Table; column: Column }>;
  indexes: Array<{ table: Table; index: Index }>;
  steps: string[];
}

export function planVersions(schema: Schema, dialect: Dialect): VersionPlan[] {
  const tables = schema.tables.filter((t) => !t.only || t.only === dialect);
  return [...schema.versions].sort((a, b) => a.version - b.version).map(({ version, name, steps = [] }) => ({
    version,
    name,
    tables: tables.filter((t) => t.since === version),
    columns: tables.flatMap((table) =>
      table.since < version ? table.columns.filter((c) => columnSince(table, c) === version).map((column) => ({ table, column })) : []),
    indexes: tables.flatMap((table) => table.indexes.filter((i) => indexSince(table, i) === version).map((index) => ({ table, index }))),
    steps: steps.flatMap((s) => (s[dialect] ? [s[dialect]!] : [])),
  }));
}

/** Checks what SQL cannot: versions are unique and each element's version is one of them, after its table's. */
export function assertWellFormed(schema: Schema): void {
  const versions = new Set(schema.versions.map((v) => v.version));
  const problems: string[] = [];
  if (versions.size !== schema.versions.length) problems.push('a version is listed twice');
  const names = new Set<string>();
  const since = new Map(schema.tables.map((t) => [t.name, t.since]));
  for (const t of schema.tables) {
    if (names.has(t.name)) problems.push(`table ${t.name} is described twice`);
    names.add(t.name);
    if (!versions.has(t.since)) problems.push(`table ${t.name}: version ${t.since} is not listed`);
    const columns = new Set(t.columns.map((c) => c.name));
    for (const c of t.columns) {
      if (!versions.has(columnSince(t, c)) || columnSince(t, c) < t.since) problems.push(`${t.name}.${c.name}: version ${columnSince(t, c)}`);
      // PostgreSQL checks a reference when it is made: the table must exist by then (a version
      // creates its tables before it adds columns to older ones).
      const target = c.references?.table;
      const made = columnSince(t, c);
      const added = made > t.since && (since.get(target ?? '') ?? Infinity) <= made;
      if (target && !names.has(target) && !added) {
        problems.push(`${t.name}.${c.name}: references ${target}, which does not exist by version ${made}`);
      }
    }
    for (const i of t.indexes) {
      if (!versions.has(indexSince(t, i)) || indexSince(t, i) < t.since) problems.push(`index ${i.name}: version ${indexSince(t, i)}`);
      for (const c of i.columns) if (!columns.has(c)) problems.push(`index ${i.name}: no column ${c}`);
    }
  }
  if (problems.length) throw new Error(`the schema description is not well formed: ${problems.join('; ')}`);
}
