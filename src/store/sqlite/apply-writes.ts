import type { Synchronous } from '../synchronous.js';
import type { SqliteAlertStore } from './alerts/index.js';
import type { RollupStore } from '../rollup-store.js';
import type { CheckRepo, HistoryRepo, StateChangeRepo } from '../store.js';
import type { NodeRepo } from '../node-repo.js';
import type { WriteFailure, WriteRecord } from '../writes.js';
import { applyNow, stepsOf } from '../write-steps.js';
import type { Db } from '../db.js';
import type { RollupSample } from '../../domain/rollup.js';
import { StaleOwner, type ClusterRepo, type Fence } from '../cluster-repo.js';
import type { PingInboxRepo } from '../ping-inbox.js';

/** The repositories as SQLite answers them, at once, inside the batch's transaction. */
export interface Repos {
  checks: Synchronous<CheckRepo>;
  history: Synchronous<HistoryRepo>;
  stateChanges: Synchronous<StateChangeRepo>;
  alerts: SqliteAlertStore;
  rollups: Pick<RollupStore, 'addSample'>;
  nodes: Pick<Synchronous<NodeRepo>, 'setCursor' | 'saveLive'>;
  pingInbox: Pick<Synchronous<PingInboxRepo>, 'add' | 'remove'>;
}

/** Applies one typed write record with the repositories, inside the batch's transaction. */
const writeApplier = (r: Repos) => (record: WriteRecord): void => applyNow(r, stepsOf(record));

/** A record of the batch failed on its own (the batch is then applied again, record by record). */
class RecordFailed {
  constructor(readonly record: WriteRecord, readonly error: unknown) {}
}

/**
 * Store.applyWrites over one better-sqlite3 connection: a failing record leaves none of its rows
 * and none of its result in the rollups' open minutes, and the rest of its batch commits.
 *
 * A savepoint per record costs about a sixth of a probe result's write, so the batch first runs
 * without any: every record's rows, then the results into the open minutes (the only memory a
 * write moves; a minute written when it closes is a row of the same transaction). Should a
 * record fail, that whole transaction rolls back before the open minutes were touched, and the
 * batch runs again with each record in a savepoint of its own, its result added inside it. A
 * failure of the open minutes' own writes, or of the commit, fails the batch (disk full, I/O).
 */
export function batchApplier(
  db: Db, r: Repos, forget: () => void, cluster: Pick<Synchronous<ClusterRepo>, 'holds'>, beforeCommit?: () => void,
): (batch: readonly WriteRecord[], failed: WriteFailure, fence?: Fence) => void {
  let samples: Array<[number, number, RollupSample]> = [];
  const rows = writeApplier({ ...r, rollups: { addSample: (seq, at, sample) => void samples.push([seq, at, sample]) } });
  const fenced = (fence: Fence | undefined) => {
    if (fence && !cluster.holds(fence.holder, fence.now)) throw new StaleOwner(fence.holder);
  };
  const whole = db.transaction((batch: readonly WriteRecord[], fence: Fence | undefined) => {
    fenced(fence);
    samples = [];
    for (const record of batch) {
      try {
        rows(record);
      } catch (err) {
        throw new RecordFailed(record, err);
      }
    }
    for (const [seq, at, sample] of samples) r.rollups.addSample(seq, at, sample);
    beforeCommit?.();
  });
  const one = db.transaction(writeApplier(r));
  const eachInSavepoint = db.transaction((batch: readonly WriteRecord[], failed: WriteFailure, fence: Fence | undefined) => {
    fenced(fence);
    for (const record of batch) {
      try {
        one(record);
      } catch (err) {
        // Its check may be cached with what the savepoint undid.
        forget();
        failed(record, err);
      }
    }
    beforeCommit?.();
  });
  return (batch, failed, fence) => {
    try {
      whole(batch, fence);
      return;
    } catch (err) {
      // Records read or written by the rolled-back transaction may have been cached.
      forget();
      if (!(err instanceof RecordFailed)) throw err;
    }
    eachInSavepoint(batch, failed, fence);
  };
}
