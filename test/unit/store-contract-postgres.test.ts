import { after, before } from 'node:test';
import { openPgStore, type PgStore } from '../../src/store/postgres/index.js';
import type { Store } from '../../src/store/store.js';
import { startPostgres, type PgCluster } from '../helpers/postgres.js';
import { storeContract } from '../contract/store-contract.js';

// The same contract as SQLite's (store-contract-sqlite.test.ts), each test on a fresh database
// of a cluster this file starts and stops.
let cluster: PgCluster;
before(async () => {
  cluster = await startPostgres();
});
after(async () => {
  await cluster.stop();
});

storeContract({
  name: 'PostgreSQL',
  asyncUnits: true,
  open: async () => (await openPgStore(await cluster.createDatabase(), { pollMs: 0 })) as unknown as Store,
  close: (store) => (store as unknown as PgStore).close(),
});
