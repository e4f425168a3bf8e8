import type { Synchronous } from '../synchronous.js';
import type { SqliteAlertStore } from './alerts/index.js';
import type { RollupStore } from '../rollup-store.js';
import type { CheckRepo, HistoryEventInput, HistoryRepo, StateChangeRepo } from '../store.js';
import type { NodeRepo } from '../node-repo.js';
import type { ObservationWrite, WriteFailure, WriteRecord } from '../writes.js';
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
export function writeApplier(r: Repos): (record: WriteRecord) => void {
  const observation = (w: ObservationWrite): void => {
    if (w.endMaintenance !== null) endLapsedMaintenance(r, w.checkId, w.checkSeq, w.endMaintenance);
    if (w.result) r.history.insertResult(w.result);
    if (w.peerResult) r.history.insertResult(w.peerResult);
    if (w.nodeCursor) r.nodes.setCursor(w.nodeCursor.nodeId, w.nodeCursor.cursor);
    if (w.inboxSeq) r.pingInbox.remove(w.inboxSeq);
    if (w.event) r.history.insertEvent(w.event);
    if (w.runtime) r.checks.saveRuntime(w.checkId, w.runtime);
    if (w.domain) r.checks.saveDomain(w.checkId, w.domain);
    if (w.domainMemory) r.alerts.domainWatch.put(w.domainMemory);
    if (w.statusChange !== null) r.stateChanges.append(w.checkSeq, w.at, w.statusChange);
    else if (w.verifyStatus !== null && r.stateChanges.between(w.checkSeq, w.at, w.at)[0]?.status !== w.verifyStatus) {
      r.stateChanges.append(w.checkSeq, w.at, w.verifyStatus);
    }
    // Every result that history keeps reaches the rollups too, so long and short ranges agree.
    if (w.sample) r.rollups.addSample(w.checkSeq, w.sampleAt, w.sample);
    if (w.outbox) r.alerts.outbox.add(w.outbox);
  };
  return (record) => {
    switch (record.kind) {
      case 'observation':
        return observation(record);
      case 'domain-info':
        return r.checks.saveDomain(record.checkId, record.domain);
      case 'alerts':
        return r.alerts.deliveries.enqueue(record.alerts, record.at, record.routed);
      case 'node-cursor':
        return r.nodes.setCursor(record.nodeId, record.cursor);
      case 'node-live':
        for (const n of record.nodes) r.nodes.saveLive(n.id, n.live);
        return;
      case 'ping-inbox':
        r.pingInbox.add(record.item);
        if (record.nodeCursor) r.nodes.setCursor(record.nodeCursor.nodeId, record.nodeCursor.cursor);
        return;
    }
  };
}

/**
 * Ends a maintenance window that ran out, with its `maintenance_end` event dated at `until`, as
 * if it had been switched off then. A window already ended or changed since is left alone.
 */
function endLapsedMaintenance(r: Pick<Repos, 'checks' | 'history'>, checkId: string, checkSeq: number, until: number): void {
  const current = r.checks.byId(checkId);
  if (!current || !current.maintenance || current.maintenanceUntil !== until) return;
  r.checks.setMaintenance(checkId, false, null, until);
  r.history.insertEvent(maintenanceEndEvent(checkSeq, until));
}

/** The `maintenance_end` event of a window that ran out, dated when it ran out. */
export function maintenanceEndEvent(checkSeq: number, until: number): HistoryEventInput {
  return {
    checkSeq, at: until, status: 'maintenance_end', region: null,
    meta: { event: 'maintenance_off', until: new Date(until).toISOString() },
  };
}

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
