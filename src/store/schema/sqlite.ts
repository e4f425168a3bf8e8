import type { Column, Family, Index, Literal, Predicates, Schema, Table } from './describe.js';
import { planVersions, type Migration, type VersionPlan } from './plan.js';

/** SQLite's DDL and migrations from the schema description. */

const TYPES: Record<Family, string> = {
  text: 'TEXT', json: 'TEXT', int: 'INTEGER', bigint: 'INTEGER', time: 'INTEGER', real: 'REAL', bool: 'INTEGER', blob: 'BLOB',
};

const PREDICATES: Predicates = { yes: (c) => `${c} = 1`, no: (c) => `${c} = 0` };

const literal = (v: Literal): string => (typeof v === 'boolean' ? (v ? '1' : '0') : typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`);

/** SQLite keeps this column as the table's rowid: it is not declared. */
const hidden = (c: Column) => c.key === 'sqlite-rowid';

function column(c: Column): string {
  const parts = [c.name, TYPES[c.family]];
  // An INTEGER PRIMARY KEY is the rowid itself (AUTOINCREMENT: never reused).
  if (c.primaryKey) parts.push(c.key === 'autoincrement' ? 'PRIMARY KEY AUTOINCREMENT' : 'PRIMARY KEY');
  else if (!c.nullable) parts.push('NOT NULL');
  if (c.unique) parts.push('UNIQUE');
  if (c.caselessUnique) parts.push('UNIQUE COLLATE NOCASE');
  if (c.default !== undefined) parts.push(`DEFAULT ${literal(c.default)}`);
  if (c.check) parts.push(`CHECK (${c.check})`);
  if (c.references) parts.push(`REFERENCES ${c.references.table}(${c.references.column}) ON DELETE CASCADE`);
  return parts.join(' ');
}

function createTable(t: Table): string {
  const lines = t.columns.filter((c) => (c.since ?? t.since) === t.since && !hidden(c)).map(column);
  if (t.primaryKey) lines.push(`PRIMARY KEY (${t.primaryKey.join(', ')})`);
  for (const u of t.unique ?? []) lines.push(`UNIQUE (${u.join(', ')})`);
  return `CREATE TABLE ${t.name} (\n  ${lines.join(',\n  ')}\n)${t.sqlite?.withoutRowid ? ' WITHOUT ROWID' : ''};`;
}

function createIndex(t: Table, i: Index): string {
  // Every SQLite index ends with the rowid: a hidden rowid column at the end goes without saying.
  const columns = i.columns.filter((name, n) => !(n === i.columns.length - 1 && t.columns.some((c) => c.name === name && hidden(c))));
  const where = i.where ? ` WHERE ${i.where(PREDICATES)}` : '';
  return `CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX ${i.name} ON ${t.name}(${columns.join(', ')})${where};`;
}

export function sqliteVersionSql(plan: VersionPlan): string {
  return [
    ...plan.tables.map(createTable),
    ...plan.columns.map(({ table, column: c }) => `ALTER TABLE ${table.name} ADD COLUMN ${column(c)};`),
    ...plan.indexes.map(({ table, index }) => createIndex(table, index)),
    ...plan.steps,
  ].join('\n');
}

export function sqliteMigrations(schema: Schema): Migration[] {
  return planVersions(schema, 'sqlite').map((plan) => ({ version: plan.version, name: plan.name, sql: sqliteVersionSql(plan) }));
}
