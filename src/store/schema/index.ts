import type { Schema } from './describe.js';
import { assertWellFormed } from './plan.js';
import { ALERT_TABLES } from './tables-alerts.js';
import { MONITORING_TABLES } from './tables-monitoring.js';
import { OPERATIONS_TABLES } from './tables-operations.js';
import { PAGE_TABLES } from './tables-pages.js';
import { PEOPLE_TABLES } from './tables-people.js';
import { VERSIONS } from './versions.js';

/**
 * Vigil's schema, once for both stores (docs/architecture.md, "How the schema is described").
 * Tables are created in the order of their versions, so a table follows those it references.
 */
export const SCHEMA: Schema = {
  tables: [...MONITORING_TABLES, ...ALERT_TABLES, ...PAGE_TABLES, ...PEOPLE_TABLES, ...OPERATIONS_TABLES].sort((a, b) => a.since - b.since),
  versions: VERSIONS,
};

assertWellFormed(SCHEMA);
