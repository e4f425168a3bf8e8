import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyAwaited, applyNow, stepsOf, type WriteTargets } from '../../src/store/write-steps.js';
import type { ObservationWrite } from '../../src/store/writes.js';
import type { Check } from '../../src/domain/records.js';

const AT = Date.UTC(2026, 6, 1, 9);
const result = { checkSeq: 7, at: AT, kind: 'probe' as const, status: 'up' as const, statusCode: 200, responseTime: 80, timing: null, error: null, region: 'local', snippet: null, meta: null };

function observation(parts: Partial<ObservationWrite>): ObservationWrite {
  return {
    kind: 'observation', checkId: 'chk_1', checkSeq: 7, at: AT, result: null, event: null, sample: null, sampleAt: AT,
    runtime: null, statusChange: null, verifyStatus: null, endMaintenance: null, domain: null, domainMemory: null, ...parts,
  };
}

/** Targets that log each call, answering reads with `found` (now, or as promises). */
function logging<A extends 'now' | 'promise'>(answer: A, found: { check: Partial<Check> | null; lastStatus: string | null }) {
  const calls: string[] = [];
  const reply = (value: unknown) => (answer === 'now' ? value : Promise.resolve(value));
  const log = (name: string) => (...args: unknown[]) => {
    calls.push(`${name}(${args.map((a) => (typeof a === 'object' && a !== null ? 'obj' : String(a))).join(',')})`);
    return reply(undefined);
  };
  const targets = {
    checks: {
      byId: (id: string) => (calls.push(`byId(${id})`), reply(found.check)),
      setMaintenance: log('setMaintenance'), saveRuntime: log('saveRuntime'), saveDomain: log('saveDomain'),
    },
    history: { insertResult: log('insertResult'), insertEvent: log('insertEvent') },
    stateChanges: {
      append: log('append'),
      between: (seq: number) => (calls.push(`between(${seq})`), reply(found.lastStatus === null ? [] : [{ at: AT - 1, status: found.lastStatus }])),
    },
    alerts: { domainWatch: { put: log('putMemory') }, outbox: { add: log('outbox') }, deliveries: { enqueue: log('enqueue') } },
    rollups: { addSample: log('addSample') },
    nodes: { setCursor: log('setCursor'), saveLive: log('saveLive') },
    pingInbox: { add: log('inboxAdd'), remove: log('inboxRemove') },
  } as unknown as WriteTargets<A>;
  return { targets, calls };
}

describe('write steps (store/write-steps.ts)', () => {
  test('an observation with every part is applied in one order, its status verified only without a change', () => {
    const every = observation({
      endMaintenance: AT - 5, result, peerResult: { ...result, region: 'peer' }, nodeCursor: { kind: 'node-cursor', nodeId: 'nod_1', cursor: { epoch: 'e', seq: 3 } },
      inboxSeq: 4, event: { checkSeq: 7, at: AT, status: 'missed', region: null, meta: {} }, runtime: {} as ObservationWrite['runtime'],
      domain: { name: 'example.com', registrar: null, expiresAt: null, updatedAt: null }, domainMemory: { checkId: 'chk_1', expiresAt: null, alerted: 'ok', checkedAt: AT, lastError: null },
      statusChange: 'up', verifyStatus: 'up', sample: { ok: true, responseTime: 80, timing: null }, outbox: [],
    });
    assert.deepEqual(stepsOf(every).map((s) => s[0]), [
      'end-maintenance', 'result', 'result', 'node-cursor', 'inbox-remove', 'event', 'runtime', 'domain', 'domain-memory', 'status-change', 'sample', 'outbox',
    ]);
    assert.deepEqual(stepsOf(observation({ verifyStatus: 'down' })).map((s) => s[0]), ['verify-status']);
    assert.deepEqual(stepsOf(observation({})), [], 'an observation of nothing writes nothing');
  });

  test('the other records: a ping kept for another central moves its node cursor; node figures one node at a time', () => {
    const item = { checkId: 'chk_1', slot: 1, at: AT, signal: 'success', error: null, details: null, region: null, receivedBy: 'c1' } as never;
    assert.deepEqual(stepsOf({ kind: 'ping-inbox', item, nodeCursor: { kind: 'node-cursor', nodeId: 'nod_1', cursor: { epoch: 'e', seq: 1 } } }).map((s) => s[0]), ['inbox-add', 'node-cursor']);
    assert.deepEqual(stepsOf({ kind: 'ping-inbox', item } as never).map((s) => s[0]), ['inbox-add']);
    const live = {} as never;
    assert.deepEqual(stepsOf({ kind: 'node-live', nodes: [{ id: 'a', live }, { id: 'b', live }] }).map((s) => s[0]), ['node-live', 'node-live']);
    assert.deepEqual(stepsOf({ kind: 'domain-info', checkId: 'chk_1', domain: null }).map((s) => s[0]), ['domain']);
  });

  for (const answer of ['now', 'promise'] as const) {
    const run = async (found: Parameters<typeof logging>[1], record: ObservationWrite) => {
      const { targets, calls } = logging(answer, found);
      if (answer === 'now') applyNow(targets as WriteTargets<'now'>, stepsOf(record));
      else await applyAwaited(targets as WriteTargets<'promise'>, stepsOf(record));
      return calls;
    };

    test(`answered ${answer}: a lapsed window ends with its event; a window changed since, or a status already logged, writes nothing`, async () => {
      const until = AT - 5;
      const lapsed = { maintenance: true, maintenanceUntil: until };
      assert.deepEqual(await run({ check: lapsed, lastStatus: null }, observation({ endMaintenance: until, result })), [
        'byId(chk_1)', `setMaintenance(chk_1,false,null,${until})`, 'insertEvent(obj)', 'insertResult(obj)',
      ]);
      assert.deepEqual(await run({ check: { maintenance: true, maintenanceUntil: until + 1 }, lastStatus: null }, observation({ endMaintenance: until })), ['byId(chk_1)']);
      assert.deepEqual(await run({ check: null, lastStatus: null }, observation({ endMaintenance: until })), ['byId(chk_1)'], 'a check deleted meanwhile');
      assert.deepEqual(await run({ check: null, lastStatus: 'up' }, observation({ verifyStatus: 'up' })), ['between(7)']);
      assert.deepEqual(await run({ check: null, lastStatus: 'down' }, observation({ verifyStatus: 'up' })), ['between(7)', `append(7,${AT},up)`]);
    });
  }
});
