import { after, before } from 'node:test';
import { openPgStore, type PgStore } from '../../src/store/postgres/index.js';
import type { Store } from '../../src/store/store.js';
import { startPostgres, type PgCluster } from '../helpers/postgres.js';
import { storeContract } from '../contract/store-contract.js';
import { writeStepsContract } from '../contract/write-steps-contract.js';

// The same contract as SQLite's (store-contract-sqlite.test.ts), each test on a fresh database
// of a cluster this file starts and stops.
let cluster: PgCluster;
before(async () => {
  cluster = await startPostgres();
});
after(async () => {
  await cluster.stop();
});

// Not an object literal at the call: the factory carries what every version of the contract may ask.
const factory = {
  name: 'PostgreSQL',
  asyncUnits: true,
  open: async (options?: { effectFailed?: (err: unknown) => void }) =>
    (await openPgStore(await cluster.createDatabase(), { pollMs: 0, effectFailed: options?.effectFailed })) as unknown as Store,
  close: (store: Store) => (store as unknown as PgStore).close(),
  /** The next outermost COMMIT (a unit's or a batch's) fails. */
  failNextCommit: (store: Store) => (store as unknown as PgStore).db.failNextCommit(),
};
storeContract(factory);
writeStepsContract(factory);
