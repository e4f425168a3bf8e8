import { openPgStore } from '../../src/store/postgres/index.js';
import type { SqliteStore } from '../../src/store/sqlite/index.js';
import type { ProbeTask } from '../../src/domain/probe-types.js';
import { startServer, type TestServer } from './server.js';
import { ScriptedDispatcher } from './scripted-dispatcher.js';

/**
 * One central in this process on a PostgreSQL database (its own pool and LISTEN connection, as a
 * `vigil serve` process has), with scripted probes: `ok` says whether a probe of a task succeeds.
 * Short leases, fast checks and retries, no rate limit in the way of the test's requests.
 */
export async function startPgCentral(databaseUrl: string, name: string, ok: (task: ProbeTask) => boolean): Promise<TestServer> {
  const store = await openPgStore(databaseUrl, { watchChecks: true, changes: 'listen' });
  return startServer(
    {
      instance: { name }, cluster: { leaseMs: 3_000 }, plans: { pro: { minCheckIntervalMinutes: 0.05 } },
      alerts: { retryBaseMs: 500, timeoutMs: 2_000 }, rdap: { bootstrapUrl: null },
      rateLimits: { perKeyPerMinute: 100_000, statusPerKeyPerMinute: 100_000, statusPerAccountPerMinute: 100_000 },
    },
    undefined,
    // A PostgreSQL store where the helper's type names SQLite's: the app takes any Store.
    { store: store as unknown as SqliteStore, dispatcher: new ScriptedDispatcher((task) => ({ ok: ok(task) })) },
  );
}
