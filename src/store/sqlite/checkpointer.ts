import { Worker } from 'node:worker_threads';
import { bundledFile } from '../../util/bundled-file.js';
import type { Db } from '../db.js';

const WORKER = bundledFile('checkpoint-worker', new URL('./checkpoint-worker.js', import.meta.url));
/** How often the background connection copies the log back. */
const EVERY_MS = 1000;
/** How often while the log grows by fewer than QUIET_FRAMES pages between rounds (a quiet instance). */
const QUIET_EVERY_MS = 5000;
const QUIET_FRAMES = 1000;
/**
 * The writer's own checkpoint, only for a log the background one has let grow this far (pages
 * of 4 KiB): SQLite's default of 1,000 pages made the main thread checkpoint every second or so
 * under load, an fsync each time.
 */
const BACKSTOP_PAGES = 20_000;

/**
 * Moves the database's checkpoints off the thread that serves requests and records results: a
 * worker with its own connection runs them every second (checkpoint-worker.ts). Stopping waits
 * for the worker to close its connection, so the main one closes last and folds the rest of the
 * log into the database: once the store has closed, nothing writes in the data directory.
 * A quiet log is copied back every 5 s rather than every second.
 */
export function checkpointInBackground(db: Db): { stop(): Promise<void> } {
  db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  const worker = new Worker(WORKER, { workerData: { file: db.name, everyMs: EVERY_MS, quietEveryMs: QUIET_EVERY_MS, quietFrames: QUIET_FRAMES } });
  worker.unref();
  // A worker that cannot run leaves the checkpoints to the writer, as SQLite does by default.
  worker.on('error', (err) => {
    if (db.open) db.pragma('wal_autocheckpoint = 1000');
    process.emitWarning(`database checkpoints run on the main thread: the checkpoint worker failed (${err.message})`);
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    stop: () => {
      worker.ref(); // waited for now: an unreferenced worker would let the process end before it closes
      worker.postMessage('stop');
      return exited;
    },
  };
}
