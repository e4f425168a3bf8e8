import type { RollupSample } from '../../domain/rollup.js';
import type { RuntimeWrite } from '../store.js';
import type { NodeCursor } from '../node-repo.js';
import type { WriteFailure, WriteRecord } from '../writes.js';
import { applyAwaited, stepsOf, type WriteStep, type WriteTargets } from '../write-steps.js';
import type { OutboxEvent } from '../alert-outbox.js';
import { BrokenUnit, CommitFailed, type PgDb } from './db.js';
import { eventValues, HISTORY_COLUMNS, resultValues } from '../rows/history.js';
import { ROLLUP_COLUMNS } from '../rows/rollups.js';
import { INSERT_HISTORY } from './history.js';
import { runtimeParams, type PgCheckRepo } from './checks.js';
import type { PgAlertStore } from './alerts.js';
import { countsOnly, countValues, insertCountRows, insertRows, lateOf, minuteBuckets, rowValues, type PgRollupStore } from './rollups.js';
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
 * rollups' partial minute rows each go in as arrays (unnest), gathered from the records' steps
 * (write-steps.ts). The rare steps and those that must read first (a maintenance window that ran
 * out, a status to verify after a fresh start) and alerts run one by one inside the same
 * transaction. Should the batch fail, it is applied again
 * with each record in a savepoint of its own, so a record that fails alone is reported and the
 * rest commits; a failure of the commit itself (the database gone) rejects.
 */
export function pgBatchApplier(db: PgDb, r: PgRepos): (batch: readonly WriteRecord[], failed: WriteFailure, fence?: Fence) => Promise<void> {
  const one = async (record: WriteRecord, now: number) => {
    const samples: Array<[number, number, RollupSample]> = [];
    await applyAwaited(collecting(r, samples), stepsOf(record));
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
  // The steps that read before they write, and the rare ones, go one by one, in batch order.
  const sequential: WriteStep[] = [];
  // Alert events (rare), inserted before the records that may claim them later in the batch.
  const outbox: OutboxEvent[] = [];
  const planned = batch.map(stepsOf);
  // While a batch verifies a status (after a fresh start), its state changes stay in record order.
  const verifying = planned.some((steps) => steps.some((step) => step[0] === 'verify-status'));
  for (const [i, steps] of planned.entries()) {
    try {
      for (const step of steps) {
        switch (step[0]) {
          case 'result':
            history.push(resultValues(step[1]));
            break;
          case 'event':
            history.push(eventValues(step[1]));
            break;
          case 'inbox-add': {
            const item = step[1];
            const c = inboxColumns(item);
            inboxAdded.push([item.checkId, item.slot, item.at, item.signal, c.error, c.details, c.region, item.receivedBy]);
            break;
          }
          case 'inbox-remove':
            inboxDone.push(step[1]);
            break;
          // In batch order with the other cursor writes (the statement writes the last).
          case 'node-cursor':
            cursors.set(step[1], step[2]);
            break;
          case 'runtime':
            runtimes.set(step[1], mergeRuntime(runtimes.get(step[1]), step[2]));
            break;
          case 'sample':
            samples.push([step[1], step[2], step[3]]);
            break;
          case 'outbox':
            outbox.push(...step[1]);
            break;
          case 'status-change':
            if (verifying) sequential.push(step);
            else states.push([step[1], step[2], step[3]]);
            break;
          default:
            sequential.push(step);
        }
      }
    } catch (err) {
      throw new RecordFailed(batch[i]!, err);
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
      await applyAwaited(r, sequential);
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

/** The repositories with the rollups' samples gathered for the caller to write (PgRollupStore.write). */
function collecting(r: PgRepos, samples: Array<[number, number, RollupSample]>): WriteTargets<'promise'> {
  return { ...r, rollups: { addSample: (seq, at, sample) => void samples.push([seq, at, sample]) } };
}
