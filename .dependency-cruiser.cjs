/**
 * The layers of src/ (docs/architecture.md), enforced by `npm run lint:layers` before the tests.
 * From the top: composition roots (app.ts, cli.ts) → front/, mcp/, prober/ → api/ → services
 * (core/, people/, oauth/, status-pages/, metrics/, nodes/, import/, cluster/, as-code/) → workers (engine/, alerts/, stats/,
 * monitor/, in that order) → store/ → domain/. A folder imports only folders below it;
 * domain/ imports nothing of Vigil's. config.ts, log.ts, version.ts and
 * util/ are shared infrastructure below everything but domain/.
 */
const folder = (names) => `^src/(${names.join('|')})/`;
const ROOTS = '^src/(app|cli)\\.ts$';
/**
 * Feature modules (src/features/: `*-feature.ts` and the `Feature` interface in feature.ts) stand
 * beside the composition root, above every layer (a feature brings its routes from api/ with its
 * services and jobs), in a folder of their own so no folder imports a folder that imports it.
 * Only app.ts imports them.
 */
const FEATURES = '^src/features/';
const SHARED = '^src/(config|log|version)\\.ts$|^src/util/';
const TOP = ['front', 'mcp', 'prober'];
const API = ['api'];
const SERVICES = ['core', 'people', 'oauth', 'status-pages', 'metrics', 'nodes', 'import', 'cluster', 'as-code'];
const WORKERS = ['engine', 'monitor', 'stats', 'alerts'];
const STORE = ['store'];

/** One rule per layer: nothing in `from` may import the folders listed in `to`. */
const below = (name, from, to, roots = true) => ({
  name,
  severity: 'error',
  comment: `${from.join(', ')} may import only lower layers`,
  from: { path: folder(from), pathNot: FEATURES },
  to: { path: roots ? [folder(to), ROOTS, FEATURES] : [folder(to), FEATURES] },
});

module.exports = {
  forbidden: [
    {
      name: 'domain-imports-nothing-of-vigil',
      severity: 'error',
      comment: 'domain/ is the bottom layer: types, pure arithmetic and policies',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    below('store-below-workers', STORE, [...WORKERS, ...SERVICES, ...API, ...TOP]),
    below('workers-below-services', WORKERS, [...SERVICES, ...API, ...TOP]),
    // Inside the workers' layer: monitor/ (state machine, recorder) is called by the others.
    below('monitor-below-engine-stats-alerts', ['monitor'], ['engine', 'stats', 'alerts']),
    below('stats-below-engine-alerts', ['stats'], ['engine', 'alerts']),
    below('alerts-below-engine', ['alerts'], ['engine']),
    below('services-below-api', SERVICES, [...API, ...TOP]),
    below('oauth-above-core', ['core'], ['oauth']),
    // people/ (members, sessions, sign-in) stands on core/ (principals, accounts, the audit log).
    below('people-above-core', ['core'], ['people']),
    below('api-below-front', API, TOP),
    below('mcp-beside-front', ['front'], ['mcp']),
    {
      name: 'features-below-the-root',
      severity: 'error',
      comment: 'a feature module is built by app.ts and imports no composition root',
      from: { path: FEATURES },
      to: { path: ROOTS },
    },
    {
      name: 'only-the-root-lists-features',
      severity: 'error',
      comment: 'features meet only through the parts they give one another, never by importing each other',
      from: { path: '^src/', pathNot: ROOTS },
      to: { path: '^src/.+-feature\\.ts$' },
    },
    {
      name: 'shared-infrastructure-imports-only-domain',
      severity: 'error',
      from: { path: SHARED },
      to: { path: '^src/', pathNot: `^src/domain/|${SHARED}` },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'no import cycle between modules that exists at run time (type-only cycles are erased)',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'sqlite-only-in-store',
      severity: 'error',
      comment: 'SQL lives in store/sqlite/ only (store/db.ts opens the database)',
      from: { path: '^src/', pathNot: '^src/store/(sqlite/|db\\.ts$)|^src/(app|cli)\\.ts$' },
      to: { path: 'node_modules/better-sqlite3/' },
    },
    // The two stores are adapters side by side (issue 36): what both need lives in store/ or store/rows/.
    {
      name: 'postgres-store-beside-sqlite',
      severity: 'error',
      comment: 'store/postgres/ shares code with store/sqlite/ only through store/ (e.g. store/rows/, write-steps.ts)',
      from: { path: '^src/store/postgres/' },
      to: { path: '^src/store/sqlite/' },
    },
    {
      name: 'sqlite-store-beside-postgres',
      severity: 'error',
      comment: 'store/sqlite/ shares code with store/postgres/ only through store/ (e.g. store/rows/, write-steps.ts)',
      from: { path: '^src/store/sqlite/' },
      to: { path: '^src/store/postgres/' },
    },
    {
      name: 'neutral-store-modules-beside-both',
      severity: 'error',
      comment: 'store/rows/ and the rest of store/ serve both stores, so they import neither',
      from: { path: '^src/store/', pathNot: '^src/store/(sqlite|postgres)/' },
      to: { path: '^src/store/(sqlite|postgres)/' },
    },
    {
      name: 'pg-only-in-postgres-store',
      severity: 'error',
      comment: 'the PostgreSQL client is used by store/postgres/ only',
      from: { path: '^src/', pathNot: '^src/store/postgres/' },
      to: { path: 'node_modules/pg/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
