import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AlertEvent } from '../../src/domain/events.js';
import type { DomainInfo, ProbeResult } from '../../src/domain/probe-types.js';
import type { Check } from '../../src/domain/records.js';
import type { WriteRecord, ObservationWrite } from '../../src/store/writes.js';
import { DEADLINE_POLICY, liveCheck, probePolicy, type LiveCheck } from '../../src/monitor/live-check.js';
import { COUNTERS_EVERY_MS, Recorder, SYNC_EVERY_MS, type Observation } from '../../src/monitor/recorder.js';

/**
 * The recorder on its own: an observation of a check in, its consequences out (the state it
 * leaves on the live check, the one write, the events, the change notices), with a writer
 * that only collects what it is given.
 */

const T0 = Date.UTC(2026, 5, 1, 12);

/** A stored check as the recorder's live entry is built from it: only the fields it reads. */
function stored(overrides: Partial<Check> = {}): Check {
  return {
    id: 'chk_1', seq: 7, accountId: 'acc_1', status: 'pending', consecutiveFailures: 0, degraded: false,
    lastStatusChange: null, lastError: null, errorAlerted: false, sslAlerts: null, regions: null,
    probesTotal: 0, probesUp: 0, ssl: null, lastChecked: null, maintenance: false, maintenanceUntil: null,
    downConfirmationAttempts: 1, immediateRecheckEnabled: false, responseTimeLimit: null,
    ...overrides,
  } as Check;
}

function live(overrides: Partial<Check> = {}, policy = probePolicy(stored(overrides))): LiveCheck {
  return liveCheck(stored(overrides), policy, 'acc_1', undefined, T0);
}

function result(ok: boolean, at: number, extra: Partial<ProbeResult> = {}): ProbeResult {
  return {
    ok, statusCode: ok ? 200 : 500, responseTime: 12, timing: null, error: ok ? null : 'Expected status 200, got 500',
    snippet: null, ssl: null, location: null, startedAt: at, ...extra,
  };
}

const probe = (ok: boolean, at: number, extra: Partial<Extract<Observation, { kind: 'probe' }>> = {}): Observation => ({
  kind: 'probe', result: result(ok, at), region: 'eu', peer: null, ...extra,
});
const ping = (signal: 'ping' | 'fail' | 'start', paused = false): Observation => ({
  kind: 'ping', signal, error: signal === 'fail' ? 'exit 1' : null, details: { message: 'tick' }, region: null, paused,
});

interface Harness {
  recorder: Recorder;
  submitted: WriteRecord[];
  committed: WriteRecord[];
  events: Array<{ check: { id: string; accountId: string; seq: number }; event: AlertEvent }>;
  changes: Array<'status' | 'degraded' | 'ping'>;
  /** Settles the oldest commit still waiting: `ok` commits it, else it fails. */
  settle(ok: boolean): void;
}

function harness(): Harness {
  const waiting: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  const h: Harness = {
    submitted: [],
    committed: [],
    events: [],
    changes: [],
    settle(ok) {
      const next = waiting.shift()!;
      if (ok) next.resolve();
      else next.reject(new Error('commit failed'));
    },
    recorder: null as unknown as Recorder,
  };
  h.recorder = new Recorder({
    writer: {
      submit: (w: WriteRecord) => void h.submitted.push(w),
      commit: (w: WriteRecord) => {
        h.committed.push(w);
        return new Promise<void>((resolve, reject) => waiting.push({ resolve, reject }));
      },
      drained: () => Promise.resolve(),
    },
  });
  h.recorder.onEvent((check, event) => void h.events.push({ check, event }));
  h.recorder.onChange((_check, what) => void h.changes.push(what));
  return h;
}

const only = (writes: WriteRecord[]): ObservationWrite => {
  assert.equal(writes.length, 1, `one write, not ${writes.length}`);
  const w = writes[0]!;
  assert.equal(w.kind, 'observation');
  return w as ObservationWrite;
};

describe('probe results', () => {
  test('the first result of a pending check: up, one write with the history row, the runtime and the status change', () => {
    const h = harness();
    const check = live();
    h.recorder.record(check, probe(true, T0 - 20), T0);
    assert.equal(check.state.status, 'up');
    assert.equal(check.probesTotal, 1);
    assert.equal(check.probesUp, 1);
    assert.deepEqual(check.lastProbe, { at: T0 - 20, status: 'up', responseTime: 12, region: 'eu' });
    const w = only(h.submitted);
    assert.equal(w.checkId, 'chk_1');
    assert.equal(w.checkSeq, 7);
    assert.deepEqual(
      { at: w.result?.at, status: w.result?.status, statusCode: w.result?.statusCode, region: w.result?.region },
      { at: T0 - 20, status: 'up', statusCode: 200, region: 'eu' },
      'the history row is dated at the probe’s start',
    );
    assert.equal(w.statusChange, 'up');
    assert.equal(w.verifyStatus, 'up', 'the first write of a freshly loaded check verifies the status log');
    assert.deepEqual(w.runtime?.sync, { lastChecked: T0 - 20, lastResponseTime: 12, lastStatusCode: 200 });
    assert.equal(w.sampleAt, T0 - 20);
    assert.deepEqual(h.changes, ['status']);
    assert.equal(h.committed.length, 0, 'a probe result is batched, not committed on its own');
  });

  test('a failure of an up check (one attempt to confirm) goes down and raises website_down with the check’s reference', () => {
    const h = harness();
    const check = live({ status: 'up', lastStatusChange: T0 - 60_000 });
    h.recorder.record(check, probe(false, T0), T0);
    assert.equal(check.state.status, 'down');
    assert.equal(check.state.lastError, 'Expected status 200, got 500');
    assert.equal(check.probesUp, 0);
    assert.deepEqual(h.events.map((e) => e.event.type), ['website_down']);
    assert.deepEqual(h.events[0]!.check, { id: 'chk_1', accountId: 'acc_1', seq: 7 });
    assert.equal(h.events[0]!.event.previousStatus, 'up');
    assert.equal(only(h.submitted).statusChange, 'down');
  });

  test('with three attempts to confirm, a first failure stays up, raises only the error alert and asks for a re-check now', () => {
    const h = harness();
    const check = live({ status: 'up', downConfirmationAttempts: 3, immediateRecheckEnabled: true });
    const recheck = h.recorder.record(check, probe(false, T0), T0);
    assert.equal(recheck, 'immediate');
    assert.equal(check.state.status, 'up');
    assert.equal(check.state.consecutiveFailures, 1);
    assert.deepEqual(h.events.map((e) => e.event.type), ['website_error']);
    const w = only(h.submitted);
    assert.equal(w.statusChange, null);
    assert.equal(w.runtime?.consecutiveFailures, 1, 'a visible change writes the runtime fields');
  });

  test('a result that changes nothing visible writes no runtime fields until the counters are due', () => {
    const h = harness();
    // Regions as the first result from 'eu' leaves them: the result then changes nothing visible.
    const regions = { primary: 'eu', peer: null, regionsTotal: 1, regionsDown: 0, confirmedDown: false };
    const check = live({ status: 'up', lastChecked: T0, regions });
    check.verifyLog = false;
    h.recorder.record(check, probe(true, T0 + 1000), T0 + 1000);
    assert.equal(only(h.submitted).runtime, null, 'the history row and the rollup sample only');
    assert.notEqual((h.submitted[0] as ObservationWrite).result, null);
    h.submitted.length = 0;
    h.recorder.record(check, probe(true, T0 + COUNTERS_EVERY_MS), T0 + COUNTERS_EVERY_MS);
    const due = only(h.submitted);
    assert.equal(due.runtime?.probesTotal, 2, 'the counters reach the row at least every ten minutes');
    assert.equal(due.runtime?.sync, null, 'the timing fields are not due yet');
    h.submitted.length = 0;
    h.recorder.record(check, probe(true, T0 + SYNC_EVERY_MS), T0 + SYNC_EVERY_MS);
    assert.notEqual(only(h.submitted).runtime?.sync, null, 'and the timing fields at least daily');
    assert.deepEqual(h.changes, []);
  });

  test('a late result (older than one applied) goes into history and the counters and moves no state', () => {
    const h = harness();
    const check = live({ status: 'up', lastStatusChange: T0 - 60_000 });
    const before = check.state;
    h.recorder.record(check, probe(false, T0 - 30_000, { late: true }), T0);
    assert.equal(check.state, before);
    assert.equal(check.probesTotal, 1);
    assert.equal(check.probesUp, 0);
    assert.equal(check.lastProbe, null, 'the latest probe is still the newer one');
    const w = only(h.submitted);
    assert.equal(w.result?.status, 'down');
    assert.equal(w.runtime, null);
    assert.equal(w.statusChange, null);
    assert.deepEqual(h.events, []);
  });

  test('a prober node’s cursor travels in the same write; a bare cursor is submitted as it is', () => {
    const h = harness();
    const check = live();
    const cursor = { kind: 'node-cursor', nodeId: 'node_1', epoch: 'e1', seq: 4 } as const;
    h.recorder.record(check, probe(true, T0, { nodeCursor: cursor as never }), T0);
    assert.deepEqual(only(h.submitted).nodeCursor, cursor);
    h.recorder.write(cursor as never);
    assert.equal(h.submitted[1], cursor);
  });

  test('a lapsed maintenance window is ended by the next observation', () => {
    const h = harness();
    const check = live({ status: 'up', maintenance: true, maintenanceUntil: T0 - 1 });
    h.recorder.record(check, probe(true, T0), T0);
    assert.equal(check.maintenance, false);
    assert.equal(only(h.submitted).endMaintenance, T0 - 1);
  });
});

describe('heartbeats', () => {
  test('a ping is committed before its consequences: events and notices follow the commit', async () => {
    const h = harness();
    const check = live({ status: 'down', lastStatusChange: T0 - 60_000 }, DEADLINE_POLICY);
    const done = h.recorder.recordDurably(check, ping('ping'), T0);
    assert.equal(h.committed.length, 1);
    assert.equal(h.events.length, 0, 'nothing is told before the commit');
    assert.equal(h.changes.length, 0);
    h.settle(true);
    await done;
    assert.deepEqual(h.events.map((e) => e.event.type), ['website_up']);
    assert.deepEqual(h.changes, ['status']);
    assert.equal((h.committed[0] as ObservationWrite).result?.kind, 'ping');
  });

  test('a ping whose commit fails tells nobody', async () => {
    const h = harness();
    const check = live({ status: 'down' }, DEADLINE_POLICY);
    const done = h.recorder.recordDurably(check, ping('ping'), T0);
    h.settle(false);
    await assert.rejects(done, /commit failed/);
    assert.deepEqual(h.events, []);
    assert.deepEqual(h.changes, []);
  });

  test('a ping that changes no status is still a notice (live views show the last ping)', async () => {
    const h = harness();
    const check = live({ status: 'up' }, DEADLINE_POLICY);
    const done = h.recorder.recordDurably(check, ping('ping'), T0);
    h.settle(true);
    await done;
    assert.deepEqual(h.changes, ['ping']);
    assert.deepEqual(h.events, []);
  });

  test('a start ping and a ping to a paused check are history only: no state, and a start is not counted', () => {
    const h = harness();
    const check = live({ status: 'up' }, DEADLINE_POLICY);
    const before = check.state;
    h.recorder.record(check, ping('start'), T0);
    assert.equal(check.probesTotal, 0);
    h.recorder.record(check, ping('fail', true), T0 + 1);
    assert.equal(check.state, before);
    assert.equal(check.probesTotal, 1);
    assert.equal(check.probesUp, 0);
    assert.deepEqual(h.submitted.map((w) => (w as ObservationWrite).result?.status), ['start', 'down']);
    assert.deepEqual(h.submitted.map((w) => (w as ObservationWrite).sample), [null, { ok: false, responseTime: null, timing: null }]);
    assert.deepEqual(h.events, []);
  });

  test('a missed deadline: nothing for a pending check; an up one goes down with a "missed" event row', () => {
    const h = harness();
    const pending = live({}, DEADLINE_POLICY);
    h.recorder.record(pending, { kind: 'missed', error: 'No ping within 5 min', region: null }, T0);
    assert.deepEqual(h.submitted, [], 'a missed deadline that changes nothing leaves no trace');
    const up = live({ status: 'up' }, DEADLINE_POLICY);
    h.recorder.record(up, { kind: 'missed', error: 'No ping within 5 min', region: null }, T0);
    assert.equal(up.state.status, 'down');
    const w = only(h.submitted);
    assert.equal(w.result, null, 'no ping is the result');
    assert.deepEqual(w.event?.meta, { event: 'missed', error: 'No ping within 5 min' });
    assert.deepEqual(h.events.map((e) => e.event.type), ['website_down']);
  });
});

describe('domain lookups', () => {
  const info = (expiresAt: string): DomainInfo => ({ name: 'example.com', expiresAt } as DomainInfo);
  const lookup = (checkType: 'domain' | 'website', i: DomainInfo | null, error: string | null = null): Observation => ({
    kind: 'domain', checkType, info: i, error, ms: 80, memory: null, region: 'eu',
  });

  test('a domain check whose registration runs is up; once expired it is down, with the date in the error', () => {
    const h = harness();
    const check = live({}, DEADLINE_POLICY);
    h.recorder.record(check, lookup('domain', info('2027-01-01T00:00:00Z')), T0);
    assert.equal(check.state.status, 'up');
    assert.equal(only(h.submitted).result?.responseTime, 80);
    h.submitted.length = 0;
    h.recorder.record(check, lookup('domain', info('2026-05-01T00:00:00Z')), T0 + 1);
    assert.equal(check.state.status, 'down');
    assert.equal(check.state.lastError, 'Domain example.com expired on 2026-05-01');
    const w = only(h.submitted);
    assert.equal(w.statusChange, 'down');
    assert.equal(w.domainMemory?.checkId, 'chk_1');
    assert.ok(h.events.some((e) => e.event.type === 'domain_expired'), JSON.stringify(h.events.map((e) => e.event.type)));
  });

  test('a website check only learns its domain: no history row, no status change', () => {
    const h = harness();
    const check = live({ status: 'up' });
    const before = check.state;
    h.recorder.record(check, lookup('website', info('2027-01-01T00:00:00Z')), T0);
    assert.equal(check.state, before);
    const w = only(h.submitted);
    assert.equal(w.result, null);
    assert.equal(w.statusChange, null);
    assert.equal(w.domain?.name, 'example.com');
  });

  test('a failed lookup keeps a domain check’s status and remembers the error', () => {
    const h = harness();
    const check = live({ status: 'up' }, DEADLINE_POLICY);
    h.recorder.record(check, lookup('domain', null, 'RDAP timed out'), T0);
    assert.equal(check.state.status, 'up');
    assert.equal(only(h.submitted).domainMemory?.lastError, 'RDAP timed out');
  });
});

describe('live state follows what commits (issue 24 item 3)', () => {
  /** A writer that reports each batch's fate, as the batch writer does once it is applied. */
  function committing() {
    const submitted: WriteRecord[] = [];
    let settled: ((batch: readonly WriteRecord[], failed: ReadonlyMap<WriteRecord, unknown> | 'all') => void) | null = null;
    const recorder = new Recorder({
      writer: {
        submit: (w: WriteRecord) => void submitted.push(w),
        commit: async (w: WriteRecord) => void submitted.push(w),
        drained: () => Promise.resolve(),
        afterEachCommit: (listener) => void (settled = listener),
      },
    });
    const flush = (failed: 'all' | WriteRecord[] | null) => {
      const batch = submitted.splice(0);
      settled!(batch, failed === 'all' ? 'all' : new Map((failed ?? []).map((w) => [w, new Error('refused')])));
    };
    return { recorder, submitted, flush };
  }

  test('a result whose batch commits stays; one whose commit fails moves the live entry back, and the log is verified next', () => {
    const { recorder, submitted, flush } = committing();
    const check = live();
    recorder.record(check, probe(true, T0 - 20), T0);
    flush(null);
    assert.equal(check.state.status, 'up');
    assert.equal(check.probesTotal, 1);
    check.verifyLog = false;

    recorder.record(check, probe(false, T0 + 60_000), T0 + 60_000);
    assert.equal(check.state.status, 'down', 'the next transition needs it at once');
    assert.equal(check.probesTotal, 2);
    flush('all');
    assert.equal(check.state.status, 'up', 'the failed result is gone from memory as from the database');
    assert.equal(check.probesTotal, 1);
    assert.equal(check.probesUp, 1);
    assert.equal(check.verifyLog, true);

    recorder.record(check, probe(false, T0 + 120_000), T0 + 120_000);
    const w = only(submitted);
    assert.equal(w.statusChange, 'down', 'the next result makes the change again, and writes it');
    assert.equal(w.verifyStatus, 'down');
  });

  test('a record that fails on its own moves its check back; another check of the batch keeps its state', () => {
    const { recorder, submitted, flush } = committing();
    const a = live();
    const b = liveCheck(stored({ id: 'chk_2', seq: 8 }), probePolicy(stored()), 'acc_1', undefined, T0);
    recorder.record(a, probe(true, T0), T0);
    recorder.record(b, probe(true, T0), T0);
    const [wa] = submitted;
    flush([wa!]);
    assert.equal(a.state.status, 'pending');
    assert.equal(a.probesTotal, 0);
    assert.equal(b.state.status, 'up');
    assert.equal(b.probesTotal, 1);
  });

  test('a failed write with a later one of the same check already submitted: the later one carries the state on', () => {
    const { recorder, submitted, flush } = committing();
    const check = live();
    recorder.record(check, probe(true, T0), T0);
    const first = submitted.splice(0);
    recorder.record(check, probe(true, T0 + 60_000), T0 + 60_000);
    submitted.unshift(...first);
    flush([first[0]!]);
    assert.equal(check.state.status, 'up', 'the second write holds the whole runtime state and committed');
    assert.equal(check.probesTotal, 2);
    assert.equal(check.verifyLog, true, 'the status log is checked on the next write');
  });
});

describe('the alert outbox (events committed with their state change)', () => {
  const routing = () => {
    const h = harness();
    const told: Array<{ type: string; outboxId: string | null | undefined }> = [];
    h.recorder.onEvent((_check, event, outboxId) => void told.push({ type: event.type, outboxId }), { outbox: true });
    return { h, told };
  };

  test('a transition\'s events ride on its write with an id each, and the sinks are told the same ids', () => {
    const { h, told } = routing();
    const check = live({ status: 'up', lastStatusChange: T0 - 60_000 });
    h.recorder.record(check, probe(false, T0), T0);
    const w = only(h.submitted);
    assert.equal(w.statusChange, 'down');
    assert.equal(w.outbox?.length, 1);
    const kept = w.outbox![0]!;
    assert.match(kept.id, /^evt_[0-9a-f]{20}$/);
    assert.deepEqual({ checkId: kept.checkId, accountId: kept.accountId, type: kept.event.type, createdAt: kept.createdAt }, { checkId: 'chk_1', accountId: 'acc_1', type: 'website_down', createdAt: T0 });
    assert.deepEqual(told, [{ type: 'website_down', outboxId: kept.id }]);
    assert.equal(h.events[0]!.event, kept.event, 'every sink hears the same event');
  });

  test('a result with no transition writes nothing to the outbox', () => {
    const { h, told } = routing();
    const check = live({ status: 'up', lastStatusChange: T0 - 60_000 });
    h.recorder.record(check, probe(true, T0), T0);
    assert.equal(only(h.submitted).outbox ?? null, null);
    assert.deepEqual(told, []);
  });

  test('a ping\'s event is in the write it commits, and told with its id after the commit', async () => {
    const { h, told } = routing();
    const check = live({ status: 'down', lastStatusChange: T0 - 60_000 }, DEADLINE_POLICY);
    const done = h.recorder.recordDurably(check, ping('ping'), T0);
    const w = only(h.committed);
    assert.equal(w.outbox?.[0]?.event.type, 'website_up');
    assert.deepEqual(told, []);
    h.settle(true);
    await done;
    assert.deepEqual(told, [{ type: 'website_up', outboxId: w.outbox![0]!.id }]);
  });

  test('without a sink that routes alerts, events are told with no id and nothing is kept', () => {
    const h = harness();
    const check = live({ status: 'up', lastStatusChange: T0 - 60_000 });
    h.recorder.record(check, probe(false, T0), T0);
    assert.equal(h.events.length, 1);
    assert.equal(only(h.submitted).outbox ?? null, null);
  });
});
