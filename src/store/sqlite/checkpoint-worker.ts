import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/**
 * Copies the write-ahead log back into the database file from a connection of its own, on a
 * thread of its own (checkpointer.ts). A checkpoint ends with an fsync of the database file,
 * which here took 100 ms and more: on the main thread that stalled every request and probe.
 * PASSIVE never waits for the writer; whatever it cannot copy now it copies next time.
 */
const { file, everyMs, quietEveryMs, quietFrames } = workerData as { file: string; everyMs: number; quietEveryMs: number; quietFrames: number };
const db = new Database(file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
db.pragma('cache_size = -1024');

/** A log that grew little is copied back less often: each round costs a wake-up and an fsync however little it copies. */
const round = (): void => {
  let frames = quietFrames;
  try {
    frames = (db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]?.log ?? quietFrames;
  } catch {
    // Busy or locked for a moment: the next round tries again.
  }
  timer = setTimeout(round, frames < quietFrames ? quietEveryMs : everyMs);
};
let timer = setTimeout(round, everyMs);

parentPort!.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  clearTimeout(timer);
  db.close();
  parentPort!.close();
});
