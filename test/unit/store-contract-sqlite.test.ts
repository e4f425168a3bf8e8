import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/index.js';
import { storeContract } from '../contract/store-contract.js';

const dirs = new Map<SqliteStore, string>();

storeContract({
  name: 'SQLite',
  open: () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-contract-'));
    const store = openSqliteStore(dir);
    dirs.set(store, dir);
    return store;
  },
  close: (store) => {
    store.close();
    rmSync(dirs.get(store as SqliteStore)!, { recursive: true, force: true });
  },
});
