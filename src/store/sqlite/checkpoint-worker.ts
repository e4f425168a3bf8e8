import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/**
 * Copies the write-ahead log back into the database file from a connection of its own, on a
 * thread of its own (checkpointer.ts). A checkpoint ends with an fsync of the database file,
 * which here took 100 ms and more: on the main thread that stalled every request and probe.
 * PASSIVE never waits for the writer; whatever it cannot copy now it copies next time.
 */
const { file, everyMs } = workerData as { file: string; everyMs: number };
const db = new Database(file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
db.pragma('cache_size = -1024');

const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or locked for a moment: the next round tries again.
  }
}, everyMs);

parentPort!.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort!.close();
});
