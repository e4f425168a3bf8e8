import type { Column, Family, Index, Literal, Predicates, Schema, Table } from './describe.js';
import { planVersions, type Migration, type VersionPlan } from './plan.js';

/** PostgreSQL's DDL and migrations from the schema description. */

const TYPES: Record<Family, string> = {
  text: 'TEXT', json: 'TEXT', int: 'INTEGER', bigint: 'BIGINT', time: 'BIGINT', real: 'DOUBLE PRECISION', bool: 'BOOLEAN', blob: 'BYTEA',
};

const PREDICATES: Predicates = { yes: (c) => c, no: (c) => `NOT ${c}` };

const literal = (v: Literal): string => (typeof v === 'string' ? `'${v.replace(/'/g, "''")}'` : String(v));

const sequenceOf = (t: Table, c: Column) => `${t.name}_${c.name}_seq`;

function column(t: Table, c: Column): string {
  // Both kinds of key SQLite numbers as the rowid are a sequence's here.
  if (c.key === 'autoincrement' || c.key === 'sqlite-rowid') return `${c.name} BIGSERIAL PRIMARY KEY`;
  // A partitioned table's key would have to hold the partition column: the sequence alone numbers rows.
  if (c.key === 'rowid') return `${c.name} BIGINT NOT NULL DEFAULT nextval('${sequenceOf(t, c)}')`;
  const parts = [c.name, TYPES[c.family]];
  if (c.primaryKey) parts.push('PRIMARY KEY');
  else if (!c.nullable) parts.push('NOT NULL');
  if (c.unique) parts.push('UNIQUE');
  if (c.default !== undefined) parts.push(`DEFAULT ${literal(c.default)}`);
  if (c.check) parts.push(`CHECK (${c.check})`);
  if (c.references) parts.push(`REFERENCES ${c.references.table}(${c.references.column}) ON DELETE CASCADE`);
  return parts.join(' ');
}

/** SQLite's COLLATE NOCASE: unique and found whatever the case. */
const caselessIndex = (t: Table, c: Column) => `CREATE UNIQUE INDEX ${c.caselessUnique} ON ${t.name} (lower(${c.name}));`;

function createTable(t: Table): string[] {
  const columns = t.columns.filter((c) => (c.since ?? t.since) === t.since);
  const lines = columns.map((c) => column(t, c));
  const keyAsIndex = t.postgres?.keyAsIndex;
  if (t.primaryKey && !keyAsIndex) lines.push(`PRIMARY KEY (${t.primaryKey.join(', ')})`);
  for (const u of t.unique ?? []) lines.push(`UNIQUE (${u.join(', ')})`);
  const partitionBy = t.postgres?.partitionBy;
  const fillfactor = t.postgres?.fillfactor;
  const tail = `${partitionBy ? ` PARTITION BY RANGE (${partitionBy})` : ''}${fillfactor ? ` WITH (fillfactor = ${fillfactor})` : ''}`;
  return [
    ...columns.filter((c) => c.key === 'rowid').map((c) => `CREATE SEQUENCE ${sequenceOf(t, c)} AS BIGINT;`),
    `CREATE TABLE ${t.name} (\n  ${lines.join(',\n  ')}\n)${tail};`,
    // What falls outside every partition partitions.ts made lands here.
    ...(partitionBy ? [`CREATE TABLE ${t.name}_default PARTITION OF ${t.name} DEFAULT;`] : []),
    ...(keyAsIndex && t.primaryKey ? [`CREATE INDEX ${keyAsIndex} ON ${t.name} (${t.primaryKey.join(', ')});`] : []),
    ...columns.filter((c) => c.caselessUnique).map((c) => caselessIndex(t, c)),
  ];
}

function createIndex(t: Table, i: Index): string {
  const where = i.where ? ` WHERE ${i.where(PREDICATES)}` : '';
  return `CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX ${i.name} ON ${t.name} (${i.columns.join(', ')})${where};`;
}

export function postgresVersionSql(plan: VersionPlan): string {
  return [
    ...plan.tables.flatMap(createTable),
    ...plan.columns.flatMap(({ table, column: c }) => [
      `ALTER TABLE ${table.name} ADD COLUMN ${column(table, c)};`,
      ...(c.caselessUnique ? [caselessIndex(table, c)] : []),
    ]),
    ...plan.indexes.map(({ table, index }) => createIndex(table, index)),
    ...plan.steps,
  ].join('\n');
}

export function postgresMigrations(schema: Schema): Migration[] {
  return planVersions(schema, 'postgres').map((plan) => ({ version: plan.version, name: plan.name, sql: postgresVersionSql(plan) }));
}
