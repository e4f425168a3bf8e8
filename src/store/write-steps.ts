import type { Check, DomainInfo } from '../domain/records.js';
import type { RollupSample } from '../domain/rollup.js';
import type { DomainMemory, NewAlert } from './alert-store.js';
import type { OutboxClaim, OutboxEvent } from './alert-outbox.js';
import type { NodeCursor, NodeLiveFigures } from './node-repo.js';
import type { NewInboxItem } from './ping-inbox.js';
import type { HistoryEventInput, HistoryResultInput, LoggedStatus, RuntimeWrite } from './store.js';
import type { ObservationWrite, WriteRecord } from './writes.js';

/**
 * How a write record (writes.ts) is applied, once for both stores: the repository calls it makes,
 * in order, as data. Each store runs the steps with its own small executor: at once inside a
 * better-sqlite3 transaction (applyNow), awaited on a PostgreSQL client (applyAwaited); the
 * PostgreSQL store also gathers the common steps of a batch into one statement per table.
 */
export type WriteStep =
  | readonly [kind: 'end-maintenance', checkId: string, checkSeq: number, until: number]
  | readonly [kind: 'maintenance-off', checkId: string, until: number]
  | readonly [kind: 'result', result: HistoryResultInput]
  | readonly [kind: 'event', event: HistoryEventInput]
  | readonly [kind: 'node-cursor', nodeId: string, cursor: NodeCursor]
  | readonly [kind: 'inbox-remove', seq: number]
  | readonly [kind: 'inbox-add', item: NewInboxItem]
  | readonly [kind: 'runtime', checkId: string, runtime: RuntimeWrite]
  | readonly [kind: 'domain', checkId: string, domain: DomainInfo | null]
  | readonly [kind: 'domain-memory', memory: DomainMemory]
  | readonly [kind: 'status-change', checkSeq: number, at: number, status: LoggedStatus]
  | readonly [kind: 'verify-status', checkSeq: number, at: number, status: LoggedStatus]
  | readonly [kind: 'sample', checkSeq: number, at: number, sample: RollupSample]
  | readonly [kind: 'outbox', events: OutboxEvent[]]
  | readonly [kind: 'alerts', alerts: NewAlert[], at: number, routed: OutboxClaim[] | undefined]
  | readonly [kind: 'node-live', nodeId: string, live: NodeLiveFigures];

/** The steps that read before they write: what they write depends on what they find. */
type Conditional = Extract<WriteStep, readonly ['end-maintenance' | 'verify-status', ...unknown[]]>;

/** How a store's repositories answer: with the value (SQLite) or with its promise (PostgreSQL). */
export type Answering = 'now' | 'promise';
type Reply<A extends Answering, T> = A extends 'now' ? T : Promise<T>;

/** The repository methods the steps call, as each store's repositories have them. */
export interface WriteTargets<A extends Answering> {
  checks: {
    byId(id: string): Reply<A, Check | null>;
    setMaintenance(id: string, on: boolean, until: number | null, now: number): Reply<A, unknown>;
    saveRuntime(id: string, runtime: RuntimeWrite): Reply<A, unknown>;
    saveDomain(id: string, domain: DomainInfo | null): Reply<A, unknown>;
  };
  history: {
    insertResult(result: HistoryResultInput): Reply<A, unknown>;
    insertEvent(event: HistoryEventInput): Reply<A, unknown>;
  };
  stateChanges: {
    append(checkSeq: number, at: number, status: LoggedStatus): Reply<A, unknown>;
    between(checkSeq: number, from: number, to: number): Reply<A, ReadonlyArray<{ status: LoggedStatus }>>;
  };
  alerts: {
    domainWatch: { put(memory: DomainMemory): Reply<A, unknown> };
    outbox: { add(events: readonly OutboxEvent[]): Reply<A, unknown> };
    deliveries: { enqueue(alerts: readonly NewAlert[], now: number, routed?: readonly OutboxClaim[]): Reply<A, unknown> };
  };
  rollups: { addSample(checkSeq: number, at: number, sample: RollupSample): unknown };
  nodes: {
    setCursor(id: string, cursor: NodeCursor): Reply<A, unknown>;
    saveLive(id: string, live: NodeLiveFigures): Reply<A, unknown>;
  };
  pingInbox: {
    add(item: NewInboxItem): Reply<A, unknown>;
    remove(seq: number): Reply<A, unknown>;
  };
}

/** A record's steps, in the order they are applied. */
export function stepsOf(record: WriteRecord): WriteStep[] {
  switch (record.kind) {
    case 'observation':
      return observationSteps(record);
    case 'domain-info':
      return [['domain', record.checkId, record.domain]];
    case 'alerts':
      return [['alerts', record.alerts, record.at, record.routed]];
    case 'node-cursor':
      return [['node-cursor', record.nodeId, record.cursor]];
    case 'node-live':
      return record.nodes.map((n): WriteStep => ['node-live', n.id, n.live]);
    case 'ping-inbox':
      return record.nodeCursor ? [['inbox-add', record.item], ['node-cursor', record.nodeCursor.nodeId, record.nodeCursor.cursor]] : [['inbox-add', record.item]];
  }
}

function observationSteps(w: ObservationWrite): WriteStep[] {
  const steps: WriteStep[] = [];
  if (w.endMaintenance !== null) steps.push(['end-maintenance', w.checkId, w.checkSeq, w.endMaintenance]);
  if (w.result) steps.push(['result', w.result]);
  if (w.peerResult) steps.push(['result', w.peerResult]);
  if (w.nodeCursor) steps.push(['node-cursor', w.nodeCursor.nodeId, w.nodeCursor.cursor]);
  if (w.inboxSeq) steps.push(['inbox-remove', w.inboxSeq]);
  if (w.event) steps.push(['event', w.event]);
  if (w.runtime) steps.push(['runtime', w.checkId, w.runtime]);
  if (w.domain) steps.push(['domain', w.checkId, w.domain]);
  if (w.domainMemory) steps.push(['domain-memory', w.domainMemory]);
  if (w.statusChange !== null) steps.push(['status-change', w.checkSeq, w.at, w.statusChange]);
  else if (w.verifyStatus !== null) steps.push(['verify-status', w.checkSeq, w.at, w.verifyStatus]);
  // Every result that history keeps reaches the rollups too, so long and short ranges agree.
  if (w.sample) steps.push(['sample', w.checkSeq, w.sampleAt, w.sample]);
  if (w.outbox) steps.push(['outbox', w.outbox]);
  return steps;
}

/** Applies steps with repositories that answer at once, inside the caller's transaction. */
export function applyNow(t: WriteTargets<'now'>, steps: readonly WriteStep[]): void {
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if (isConditional(step)) applyNow(t, stepsAfter(step, read(t, step)));
    else perform(t, step);
  }
}

/** Applies steps with repositories that answer with promises, one after the other. */
export async function applyAwaited(t: WriteTargets<'promise'>, steps: readonly WriteStep[]): Promise<void> {
  for (const step of steps) {
    if (isConditional(step)) await applyAwaited(t, stepsAfter(step, await read(t, step)));
    else await perform(t, step);
  }
}

const isConditional = (step: WriteStep): step is Conditional => step[0] === 'end-maintenance' || step[0] === 'verify-status';

function read<A extends Answering>(t: WriteTargets<A>, step: Conditional): Reply<A, unknown> {
  return step[0] === 'end-maintenance' ? t.checks.byId(step[1]) : t.stateChanges.between(step[1], step[2], step[2]);
}

/** What a conditional step writes, given what read() found for it. */
function stepsAfter(step: Conditional, found: unknown): WriteStep[] {
  if (step[0] === 'verify-status') {
    const [, checkSeq, at, status] = step;
    // A fresh start appends the status in force unless the state-change log already ends with it.
    const changes = found as ReadonlyArray<{ status: LoggedStatus }>;
    return changes[0]?.status === status ? [] : [['status-change', checkSeq, at, status]];
  }
  // A window that ran out ends as if switched off then; one already ended or changed since is left alone.
  const [, checkId, checkSeq, until] = step;
  const current = found as Check | null;
  if (!current || !current.maintenance || current.maintenanceUntil !== until) return [];
  return [['maintenance-off', checkId, until], ['event', maintenanceEndEvent(checkSeq, until)]];
}

function perform<A extends Answering>(t: WriteTargets<A>, step: Exclude<WriteStep, Conditional>): unknown {
  // The steps of a probe result or a ping first: they are nearly every step.
  switch (step[0]) {
    case 'result':
      return t.history.insertResult(step[1]);
    case 'runtime':
      return t.checks.saveRuntime(step[1], step[2]);
    case 'sample':
      return t.rollups.addSample(step[1], step[2], step[3]);
    case 'maintenance-off':
      return t.checks.setMaintenance(step[1], false, null, step[2]);
    case 'event':
      return t.history.insertEvent(step[1]);
    case 'node-cursor':
      return t.nodes.setCursor(step[1], step[2]);
    case 'inbox-remove':
      return t.pingInbox.remove(step[1]);
    case 'inbox-add':
      return t.pingInbox.add(step[1]);
    case 'domain':
      return t.checks.saveDomain(step[1], step[2]);
    case 'domain-memory':
      return t.alerts.domainWatch.put(step[1]);
    case 'status-change':
      return t.stateChanges.append(step[1], step[2], step[3]);
    case 'outbox':
      return t.alerts.outbox.add(step[1]);
    case 'alerts':
      return t.alerts.deliveries.enqueue(step[1], step[2], step[3]);
    case 'node-live':
      return t.nodes.saveLive(step[1], step[2]);
  }
}

/** The `maintenance_end` event of a window that ran out, dated when it ran out. */
function maintenanceEndEvent(checkSeq: number, until: number): HistoryEventInput {
  return {
    checkSeq, at: until, status: 'maintenance_end', region: null,
    meta: { event: 'maintenance_off', until: new Date(until).toISOString() },
  };
}
