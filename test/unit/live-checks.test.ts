import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Check } from '../../src/domain/records.js';
import { DEADLINE_POLICY, LiveCheck } from '../../src/monitor/live-check.js';
import { LiveChecks } from '../../src/monitor/live-checks.js';
import { Recorder } from '../../src/monitor/recorder.js';
import type { WriteRecord } from '../../src/store/writes.js';

const NOW = Date.UTC(2026, 0, 1);

function check(id: string): Check {
  return {
    id, seq: 1, accountId: 'acc_1', status: 'up', disabled: false, maintenance: false, maintenanceUntil: null, lastChecked: null,
    probesTotal: 0, probesUp: 0, ssl: null, consecutiveFailures: 0, degraded: false, lastStatusChange: null, lastError: null,
    errorAlerted: false, sslAlerts: null, regions: null,
  } as unknown as Check;
}

test('one entry per check: put, found, replaced, and the registry counts them', () => {
  const live = new LiveChecks();
  const a = new LiveCheck(check('chk_a'), DEADLINE_POLICY, 'acc_1', undefined, NOW);
  live.set(a);
  assert.equal(live.get('chk_a'), a);
  assert.equal(live.get('chk_b'), undefined);
  const replaced = new LiveCheck(check('chk_a'), DEADLINE_POLICY, 'acc_1', a, NOW);
  live.set(replaced);
  assert.equal(live.get('chk_a'), replaced);
  assert.equal(live.size, 1);
});

test('an owner deleting an entry that has since been replaced leaves the newer one', () => {
  const live = new LiveChecks();
  const old = new LiveCheck(check('chk_a'), DEADLINE_POLICY, 'acc_1', undefined, NOW);
  live.set(old);
  const newer = new LiveCheck(check('chk_a'), DEADLINE_POLICY, 'acc_1', old, NOW);
  live.set(newer);
  live.delete('chk_a', old);
  assert.equal(live.get('chk_a'), newer);
  live.delete('chk_a', newer);
  assert.equal(live.get('chk_a'), undefined);
  live.set(newer);
  live.delete('chk_a');
  assert.equal(live.size, 0);
});

test("lastProbe is read from the check's one entry, as the recorder left it", () => {
  const live = new LiveChecks();
  const writes: WriteRecord[] = [];
  const recorder = new Recorder({ writer: { submit: (w) => void writes.push(w), commit: async () => {}, drained: async () => {} } });
  const entry = new LiveCheck(check('chk_a'), DEADLINE_POLICY, 'acc_1', undefined, NOW);
  live.set(entry);
  assert.equal(live.lastProbe('chk_a'), null);
  recorder.record(entry, { kind: 'ping', signal: 'ping', error: null, details: {}, region: 'eu', paused: false }, NOW + 1_000);
  assert.deepEqual(live.lastProbe('chk_a'), { at: NOW + 1_000, status: 'up', responseTime: null, region: 'eu' });
  assert.equal(writes.length, 1);
  assert.equal(live.lastProbe('chk_unknown'), null);
});
