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
  | { kind: 'end-maintenance'; checkId: string; checkSeq: number; until: number }
  | { kind: 'maintenance-off'; checkId: string; until: number }
  | { kind: 'result'; result: HistoryResultInput }
  | { kind: 'event'; event: HistoryEventInput }
  | { kind: 'node-cursor'; nodeId: string; cursor: NodeCursor }
  | { kind: 'inbox-remove'; seq: number }
  | { kind: 'inbox-add'; item: NewInboxItem }
  | { kind: 'runtime'; checkId: string; runtime: RuntimeWrite }
  | { kind: 'domain'; checkId: string; domain: DomainInfo | null }
  | { kind: 'domain-memory'; memory: DomainMemory }
  | { kind: 'status-change'; checkSeq: number; at: number; status: LoggedStatus }
  | { kind: 'verify-status'; checkSeq: number; at: number; status: LoggedStatus }
  | { kind: 'sample'; checkSeq: number; at: number; sample: RollupSample }
  | { kind: 'outbox'; events: OutboxEvent[] }
  | { kind: 'alerts'; alerts: NewAlert[]; at: number; routed: OutboxClaim[] | undefined }
  | { kind: 'node-live'; nodeId: string; live: NodeLiveFigures };

/** The steps that read before they write: what they write depends on what they find. */
type Conditional = Extract<WriteStep, { kind: 'end-maintenance' | 'verify-status' }>;

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
      return [{ kind: 'domain', checkId: record.checkId, domain: record.domain }];
    case 'alerts':
      return [{ kind: 'alerts', alerts: record.alerts, at: record.at, routed: record.routed }];
    case 'node-cursor':
      return [{ kind: 'node-cursor', nodeId: record.nodeId, cursor: record.cursor }];
    case 'node-live':
      return record.nodes.map((n): WriteStep => ({ kind: 'node-live', nodeId: n.id, live: n.live }));
    case 'ping-inbox': {
      const steps: WriteStep[] = [{ kind: 'inbox-add', item: record.item }];
      if (record.nodeCursor) steps.push({ kind: 'node-cursor', nodeId: record.nodeCursor.nodeId, cursor: record.nodeCursor.cursor });
      return steps;
    }
  }
}

function observationSteps(w: ObservationWrite): WriteStep[] {
  const steps: WriteStep[] = [];
  if (w.endMaintenance !== null) steps.push({ kind: 'end-maintenance', checkId: w.checkId, checkSeq: w.checkSeq, until: w.endMaintenance });
  if (w.result) steps.push({ kind: 'result', result: w.result });
  if (w.peerResult) steps.push({ kind: 'result', result: w.peerResult });
  if (w.nodeCursor) steps.push({ kind: 'node-cursor', nodeId: w.nodeCursor.nodeId, cursor: w.nodeCursor.cursor });
  if (w.inboxSeq) steps.push({ kind: 'inbox-remove', seq: w.inboxSeq });
  if (w.event) steps.push({ kind: 'event', event: w.event });
  if (w.runtime) steps.push({ kind: 'runtime', checkId: w.checkId, runtime: w.runtime });
  if (w.domain) steps.push({ kind: 'domain', checkId: w.checkId, domain: w.domain });
  if (w.domainMemory) steps.push({ kind: 'domain-memory', memory: w.domainMemory });
  if (w.statusChange !== null) steps.push({ kind: 'status-change', checkSeq: w.checkSeq, at: w.at, status: w.statusChange });
  else if (w.verifyStatus !== null) steps.push({ kind: 'verify-status', checkSeq: w.checkSeq, at: w.at, status: w.verifyStatus });
  // Every result that history keeps reaches the rollups too, so long and short ranges agree.
  if (w.sample) steps.push({ kind: 'sample', checkSeq: w.checkSeq, at: w.sampleAt, sample: w.sample });
  if (w.outbox) steps.push({ kind: 'outbox', events: w.outbox });
  return steps;
}

/** Applies steps with repositories that answer at once, inside the caller's transaction. */
export function applyNow(t: WriteTargets<'now'>, steps: readonly WriteStep[]): void {
  for (const step of steps) {
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

const isConditional = (step: WriteStep): step is Conditional => step.kind === 'end-maintenance' || step.kind === 'verify-status';

function read<A extends Answering>(t: WriteTargets<A>, step: Conditional): Reply<A, unknown> {
  return step.kind === 'end-maintenance' ? t.checks.byId(step.checkId) : t.stateChanges.between(step.checkSeq, step.at, step.at);
}

/** What a conditional step writes, given what read() found for it. */
function stepsAfter(step: Conditional, found: unknown): WriteStep[] {
  if (step.kind === 'verify-status') {
    // A fresh start appends the status in force unless the state-change log already ends with it.
    const changes = found as ReadonlyArray<{ status: LoggedStatus }>;
    return changes[0]?.status === step.status ? [] : [{ kind: 'status-change', checkSeq: step.checkSeq, at: step.at, status: step.status }];
  }
  // A window that ran out ends as if switched off then; one already ended or changed since is left alone.
  const current = found as Check | null;
  if (!current || !current.maintenance || current.maintenanceUntil !== step.until) return [];
  return [
    { kind: 'maintenance-off', checkId: step.checkId, until: step.until },
    { kind: 'event', event: maintenanceEndEvent(step.checkSeq, step.until) },
  ];
}

function perform<A extends Answering>(t: WriteTargets<A>, step: Exclude<WriteStep, Conditional>): unknown {
  switch (step.kind) {
    case 'maintenance-off':
      return t.checks.setMaintenance(step.checkId, false, null, step.until);
    case 'result':
      return t.history.insertResult(step.result);
    case 'event':
      return t.history.insertEvent(step.event);
    case 'node-cursor':
      return t.nodes.setCursor(step.nodeId, step.cursor);
    case 'inbox-remove':
      return t.pingInbox.remove(step.seq);
    case 'inbox-add':
      return t.pingInbox.add(step.item);
    case 'runtime':
      return t.checks.saveRuntime(step.checkId, step.runtime);
    case 'domain':
      return t.checks.saveDomain(step.checkId, step.domain);
    case 'domain-memory':
      return t.alerts.domainWatch.put(step.memory);
    case 'status-change':
      return t.stateChanges.append(step.checkSeq, step.at, step.status);
    case 'sample':
      return t.rollups.addSample(step.checkSeq, step.at, step.sample);
    case 'outbox':
      return t.alerts.outbox.add(step.events);
    case 'alerts':
      return t.alerts.deliveries.enqueue(step.alerts, step.at, step.routed);
    case 'node-live':
      return t.nodes.saveLive(step.nodeId, step.live);
  }
}

/** The `maintenance_end` event of a window that ran out, dated when it ran out. */
function maintenanceEndEvent(checkSeq: number, until: number): HistoryEventInput {
  return {
    checkSeq, at: until, status: 'maintenance_end', region: null,
    meta: { event: 'maintenance_off', until: new Date(until).toISOString() },
  };
}
