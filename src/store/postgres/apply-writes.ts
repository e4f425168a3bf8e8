import type { RollupSample } from '../../domain/rollup.js';
import type { RuntimeWrite } from '../store.js';
import type { NodeCursor } from '../node-repo.js';
import type { ObservationWrite, WriteFailure, WriteRecord } from '../writes.js';
import type { OutboxEvent } from '../alert-outbox.js';
import { BrokenUnit, CommitFailed, type PgDb } from './db.js';
import { maintenanceEndEvent } from '../sqlite/apply-writes.js';
import { eventValues, HISTORY_COLUMNS, INSERT_HISTORY, resultValues } from './history.js';
import { runtimeParams, type PgCheckRepo } from './checks.js';
import type { PgAlertStore } from './alerts.js';
import { countsOnly, countValues, insertCountRows, insertRows, lateOf, minuteBuckets, ROLLUP_COLUMNS, rowValues, type PgRollupStore } from './rollups.js';
import type { Async } from './types.js';
import type { HistoryRepo, StateChangeRepo } from '../store.js';
import type { NodeRepo } from '../node-repo.js';
import { inboxColumns, type PingInboxRepo } from '../ping-inbox.js';
import { StaleOwner, type Fence } from '../cluster-repo.js';
import { FENCE_QUERY, fenceHolds } from './cluster.js';
import { arrayColumns } from './array-literals.js';

export interface PgRepos {
  checks: PgCheckRepo;
  history: Async<HistoryRepo>;
  stateChanges: Async<StateChangeRepo>;
  alerts: PgAlertStore;
  rollups: PgRollupStore;
  nodes: Async<NodeRepo>;
  pingInbox: Async<PingInboxRepo>;
}

/** A record whose rows could not even be built (a value JSON cannot hold): it fails alone. */
class RecordFailed extends Error {
  constructor(readonly record: WriteRecord, readonly error: unknown) {
    super('a record of the batch failed');
  }
}

const RUNTIME_UPDATE = `UPDATE checks c SET status = u.status, consecutive_failures = u.cf, degraded = u.degraded, last_error = u.last_error,
    last_status_change = u.lsc, probes_total = u.pt, probes_up = u.pu, ssl = u.ssl, regions = u.regions, error_alerted = u.ea, ssl_alerts = u.sa,
    last_checked = CASE WHEN u.sync THEN u.lc ELSE c.last_checked END,
    last_response_time = CASE WHEN u.sync THEN u.lrt ELSE c.last_response_time END,
    last_status_code = CASE WHEN u.sync THEN u.lsco ELSE c.last_status_code END,
    last_synced_at = CASE WHEN u.sync THEN u.lc ELSE c.last_synced_at END
  FROM unnest($1::text[], $2::int[], $3::bool[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::text[], $9::text[], $10::bool[], $11::text[],
    $12::bool[], $13::bigint[], $14::float8[], $15::int[], $16::text[])
    AS u(status, cf, degraded, last_error, lsc, pt, pu, ssl, regions, ea, sa, sync, lc, lrt, lsco, id)
  WHERE c.id = u.id`;
const STATE_INSERT = 'INSERT INTO state_changes (check_seq, at, status) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[])';
const INBOX_DELETE = 'DELETE FROM ping_inbox WHERE seq = ANY($1::bigint[])';
const INBOX_INSERT = `INSERT INTO ping_inbox (check_id, slot, at, signal, error, details, region, received_by)
  SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])`;
/** What the one statement fails on (a text that is no integer) when its fence does not hold. */
const STALE_OWNER = 'vigil: the writer no longer holds its lease';
const CURSOR_UPDATE = `UPDATE nodes n SET epoch = u.epoch, last_seq = u.seq FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u(id, epoch, seq) WHERE n.id = u.id`;

/**
 * Store.applyWrites over PostgreSQL: one transaction per batch (group commit) and one statement
 * per table per batch: history rows, check runtimes, state changes, node cursors and the
 * rollups' partial minute rows each go in as arrays (unnest). The rare parts that must read
 * first (a maintenance window that ran out, a status to verify after a fresh start) and alerts
 * run record by record inside the same transaction. Should the batch fail, it is applied again
 * with each record in a savepoint of its own, so a record that fails alone is reported and the
 * rest commits; a failure of the commit itself (the database gone) rejects.
 */
export function pgBatchApplier(db: PgDb, r: PgRepos): (batch: readonly WriteRecord[], failed: WriteFailure, fence?: Fence) => Promise<void> {
  const one = async (record: WriteRecord, now: number) => {
    const samples: Array<[number, number, RollupSample]> = [];
    await applyOne(r, record, samples);
    await r.rollups.write(samples, now);
  };
  /** With several centrals, first in the batch's transaction: the writer still holds its lease. */
  const fenced = async (fence: Fence | undefined) => {
    if (fence && !(await fenceHolds(db, fence.holder, fence.now))) throw new StaleOwner(fence.holder);
  };
  return async (batch, failed, fence) => {
    if (batch.length === 0) return;
    const now = Date.now();
    let rest = batch;
    try {
      await applyGrouped(db, r, rest, now, fence, fenced);
      return;
    } catch (err) {
      if (err instanceof StaleOwner) throw err;
      // The database failed, not a record: the whole batch is lost, and its waiters are told.
      if (err instanceof CommitFailed) throw err.reason;
      if (err instanceof RecordFailed) {
        // Built before any statement ran: only that record is left out.
        failed(err.record, err.error);
        rest = batch.filter((x) => x !== err.record);
        try {
          await applyGrouped(db, r, rest, now, fence, fenced);
          return;
        } catch (again) {
          if (again instanceof StaleOwner) throw again;
          if (again instanceof CommitFailed) throw again.reason;
          if (again instanceof RecordFailed) failed(again.record, again.error);
          rest = rest.filter((x) => !(again instanceof RecordFailed && x === again.record));
        }
      }
    }
    await db.transaction(async () => {
      await fenced(fence);
      for (const record of rest) {
        try {
          await db.transaction(() => one(record, now));
        } catch (err) {
          if (err instanceof BrokenUnit) throw err.reason;
          failed(record, err);
        }
      }
    });
  };
}

/** Everything a batch writes, gathered per table; building a record's rows may throw (RecordFailed). */
async function applyGrouped(
  db: PgDb, r: PgRepos, batch: readonly WriteRecord[], now: number, fence: Fence | undefined, fenced: (fence: Fence | undefined) => Promise<void>,
): Promise<void> {
  const history: unknown[][] = [];
  const inboxDone: number[] = [];
  const inboxAdded: unknown[][] = [];
  const runtimes = new Map<string, RuntimeWrite>();
  const states: unknown[][] = [];
  const cursors = new Map<string, NodeCursor>();
  const samples: Array<[number, number, RollupSample]> = [];
  const sequential: WriteRecord[] = [];
  // Alert events (rare), inserted before the records that may claim them later in the batch.
  const outbox: OutboxEvent[] = [];
  const verifying = batch.some((x) => x.kind === 'observation' && x.verifyStatus !== null && x.statusChange === null);
  for (const record of batch) {
    try {
      if (record.kind === 'ping-inbox') {
        const c = inboxColumns(record.item);
        inboxAdded.push([record.item.checkId, record.item.slot, record.item.at, record.item.signal, c.error, c.details, c.region, record.item.receivedBy]);
        // In batch order with the other cursor writes (the statement writes the last).
        if (record.nodeCursor) cursors.set(record.nodeCursor.nodeId, record.nodeCursor.cursor);
        continue;
      }
      if (record.kind !== 'observation') {
        if (record.kind === 'node-cursor') cursors.set(record.nodeId, record.cursor);
        else sequential.push(record);
        continue;
      }
      const w = record;
      // The parts that read before they write, and the rare ones, go record by record.
      // While a batch verifies a status (after a fresh start), its state changes stay in record order.
      const ordered = verifying && (w.statusChange !== null || w.verifyStatus !== null);
      if (w.endMaintenance !== null || w.domain !== null || w.domainMemory !== null || ordered) {
        sequential.push({
          ...w, result: null, peerResult: null, event: null, runtime: null, sample: null, nodeCursor: null, inboxSeq: null, outbox: null,
          statusChange: ordered ? w.statusChange : null, verifyStatus: ordered ? w.verifyStatus : null,
        });
      }
      if (w.result) history.push(resultValues(w.result));
      if (w.peerResult) history.push(resultValues(w.peerResult));
      if (w.event) history.push(eventValues(w.event));
      if (w.nodeCursor) cursors.set(w.nodeCursor.nodeId, w.nodeCursor.cursor);
      if (w.inboxSeq) inboxDone.push(w.inboxSeq);
      if (w.runtime) runtimes.set(w.checkId, mergeRuntime(runtimes.get(w.checkId), w.runtime));
      if (!verifying && w.statusChange !== null) states.push([w.checkSeq, w.at, w.statusChange]);
      if (w.sample) samples.push([w.checkSeq, w.sampleAt, w.sample]);
      if (w.outbox) outbox.push(...w.outbox);
    } catch (err) {
      throw new RecordFailed(record, err);
    }
  }
  const buckets = minuteBuckets(samples);
  const late = lateOf(buckets, now);
  const statement = new OneStatement();
  if (history.length > 0) statement.add('h', INSERT_HISTORY, arrayColumns(history, HISTORY_COLUMNS.length));
  if (runtimes.size > 0) statement.add('r', RUNTIME_UPDATE, arrayColumns([...runtimes].map(([id, runtime]) => runtimeParams(id, runtime)), 16));
  if (states.length > 0) statement.add('s', STATE_INSERT, arrayColumns(states, 3));
  if (inboxDone.length > 0) statement.add('i', INBOX_DELETE, [`{${inboxDone.join(',')}}`]);
  if (inboxAdded.length > 0) statement.add('b', INBOX_INSERT, arrayColumns(inboxAdded, 8));
  if (cursors.size > 0) statement.add('n', CURSOR_UPDATE, arrayColumns([...cursors].map(([id, c]) => [id, c.epoch, c.seq]), 3));
  const counted = buckets.filter(([, , rollup]) => countsOnly(rollup));
  const full = counted.length === buckets.length ? [] : buckets.filter(([, , rollup]) => !countsOnly(rollup));
  if (full.length > 0) statement.add('m', insertRows('minute'), arrayColumns(full.map(([seq, at, rollup]) => rowValues(seq, at, rollup.toRow())), 2 + ROLLUP_COLUMNS.length));
  if (counted.length > 0) statement.add('k', insertCountRows('minute'), arrayColumns(counted.map(([seq, at, rollup]) => countValues(seq, at, rollup)), 5));
  if (sequential.length === 0 && outbox.length === 0 && late.length === 0 && !db.inUnit() && !db.commitFailureArmed) {
    // The common batch (results, pings): one statement, atomic by itself, one round trip, its fence included.
    if (fence) statement.fence(fence);
    await statement.run(db);
  } else {
    await db.transaction(async () => {
      await fenced(fence);
      if (outbox.length > 0) await r.alerts.outbox.add(outbox);
      // Ended maintenance windows first, as record by record would (they only touch maintenance).
      for (const record of sequential) await applyOne(r, record, samples);
      await statement.run(db);
      await r.rollups.mergeLate(late, now);
    });
  }
  if (runtimes.size > 0 || sequential.length > 0) r.checks.touched();
}

/**
 * Data-modifying statements joined as the parts of one (WITH … SELECT): each part's `$n` are
 * renumbered after the parts before it. Named by its shape, so each shape is prepared once.
 */
class OneStatement {
  private readonly parts: string[] = [];
  private readonly params: unknown[] = [];
  private shape = '';

  add(name: string, sql: string, params: readonly unknown[]): void {
    const base = this.params.length;
    this.parts.push(`${name} AS (${sql.replace(/\$(\d+)/g, (_, n: string) => `$${base + Number(n)}`)})`);
    this.params.push(...params);
    this.shape += name;
  }

  /**
   * The batch's fence as a part of it: the writer's row locked FOR SHARE as fenceHolds() locks
   * it, held until the statement commits; when the lease no longer holds, the statement fails
   * (a cast of STALE_OWNER) and writes nothing.
   */
  fence(fence: Fence): void {
    this.add('f', FENCE_QUERY, [fence.holder.name, fence.holder.epoch, fence.now]);
    this.fenced = fence;
  }

  private fenced: Fence | null = null;

  async run(db: PgDb): Promise<void> {
    if (this.parts.length === 0) return;
    const result = this.fenced ? `SELECT (CASE WHEN EXISTS (SELECT 1 FROM f) THEN '1' ELSE '${STALE_OWNER}' END)::int` : 'SELECT 1';
    try {
      await db.run(`WITH ${this.parts.join(', ')} ${result}`, this.params, `vigil_batch_${this.shape}`);
    } catch (err) {
      if (this.fenced && (err as Error).message?.includes(STALE_OWNER)) throw new StaleOwner(this.fenced.holder);
      throw err;
    }
  }
}

/** A later runtime of the same check wins; its timing fields only if it writes them. */
function mergeRuntime(earlier: RuntimeWrite | undefined, later: RuntimeWrite): RuntimeWrite {
  if (!earlier || later.sync !== null) return later;
  return { ...later, sync: earlier.sync, statusChanged: later.statusChanged || earlier.statusChanged };
}

/** One record with the repositories, in order (the slow path, and the parts that read first). */
async function applyOne(r: PgRepos, record: WriteRecord, samples: Array<[number, number, RollupSample]>): Promise<void> {
  switch (record.kind) {
    case 'observation':
      return observation(r, record, samples);
    case 'domain-info':
      return r.checks.saveDomain(record.checkId, record.domain);
    case 'alerts':
      return r.alerts.deliveries.enqueue(record.alerts, record.at, record.routed);
    case 'node-cursor':
      return r.nodes.setCursor(record.nodeId, record.cursor);
    case 'node-live':
      for (const n of record.nodes) await r.nodes.saveLive(n.id, n.live);
      return;
    case 'ping-inbox':
      await r.pingInbox.add(record.item);
      if (record.nodeCursor) await r.nodes.setCursor(record.nodeCursor.nodeId, record.nodeCursor.cursor);
      return;
  }
}

async function observation(r: PgRepos, w: ObservationWrite, samples: Array<[number, number, RollupSample]>): Promise<void> {
  if (w.endMaintenance !== null) await endLapsedMaintenance(r, w.checkId, w.checkSeq, w.endMaintenance);
  if (w.result) await r.history.insertResult(w.result);
  if (w.peerResult) await r.history.insertResult(w.peerResult);
  if (w.nodeCursor) await r.nodes.setCursor(w.nodeCursor.nodeId, w.nodeCursor.cursor);
  if (w.inboxSeq) await r.pingInbox.remove(w.inboxSeq);
  if (w.event) await r.history.insertEvent(w.event);
  if (w.runtime) await r.checks.saveRuntime(w.checkId, w.runtime);
  if (w.domain) await r.checks.saveDomain(w.checkId, w.domain);
  if (w.domainMemory) await r.alerts.domainWatch.put(w.domainMemory);
  if (w.statusChange !== null) await r.stateChanges.append(w.checkSeq, w.at, w.statusChange);
  else if (w.verifyStatus !== null && (await r.stateChanges.between(w.checkSeq, w.at, w.at))[0]?.status !== w.verifyStatus) {
    await r.stateChanges.append(w.checkSeq, w.at, w.verifyStatus);
  }
  if (w.sample) samples.push([w.checkSeq, w.sampleAt, w.sample]);
  if (w.outbox) await r.alerts.outbox.add(w.outbox);
}

/** A maintenance window that ran out ends as if switched off then (see store/sqlite/apply-writes.ts). */
async function endLapsedMaintenance(r: PgRepos, checkId: string, checkSeq: number, until: number): Promise<void> {
  const current = await r.checks.byId(checkId);
  if (!current || !current.maintenance || current.maintenanceUntil !== until) return;
  await r.checks.setMaintenance(checkId, false, null, until);
  await r.history.insertEvent(maintenanceEndEvent(checkSeq, until));
}
