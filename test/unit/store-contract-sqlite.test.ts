import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import type { Store } from '../../src/store/store.js';
import { storeContract, type StoreFactory } from '../contract/store-contract.js';
import { writeStepsContract } from '../contract/write-steps-contract.js';

const dirs = new Map<Store, string>();
const failing = new Set<Store>();

const factory: StoreFactory = {
  name: 'SQLite',
  open: async (options) => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-contract-'));
    const store: Store = openSqliteStore(dir, {
      effectFailed: options.effectFailed,
      // A real failing COMMIT: with foreign keys deferred, a row pointing at no check is refused
      // only when the transaction commits, after everything in it has run.
      beforeCommit: (db) => {
        if (!failing.delete(store)) return;
        db.pragma('defer_foreign_keys = ON');
        db.prepare("INSERT INTO domain_watch (check_id) VALUES ('chk_none')").run();
      },
    });
    dirs.set(store, dir);
    return store;
  },
  close: async (store) => {
    await store.close();
    rmSync(dirs.get(store)!, { recursive: true, force: true });
    dirs.delete(store);
  },
  failNextCommit: (store) => void failing.add(store),
};
storeContract(factory);
writeStepsContract(factory);
