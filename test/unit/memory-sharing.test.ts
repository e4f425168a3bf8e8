import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { probePolicy } from '../../src/monitor/live-check.js';
import { collectStartupGarbage } from '../../src/util/startup-garbage.js';

describe('probePolicy', () => {
  const settings = { downConfirmationAttempts: 3, immediateRecheckEnabled: true, responseTimeLimit: null };

  test('checks with the same policy share one frozen copy', () => {
    const a = probePolicy({ ...settings });
    const b = probePolicy({ ...settings });
    assert.equal(a, b);
    assert.ok(Object.isFrozen(a));
    assert.deepEqual(a, settings);
  });

  test('each distinct value gets its own copy with its own values', () => {
    const base = probePolicy(settings);
    const slower = probePolicy({ ...settings, responseTimeLimit: 2000 });
    const noRecheck = probePolicy({ ...settings, immediateRecheckEnabled: false });
    const once = probePolicy({ ...settings, downConfirmationAttempts: 1 });
    assert.equal(new Set([base, slower, noRecheck, once]).size, 4);
    assert.deepEqual(slower, { ...settings, responseTimeLimit: 2000 });
    assert.deepEqual(noRecheck, { ...settings, immediateRecheckEnabled: false });
    assert.deepEqual(once, { ...settings, downConfirmationAttempts: 1 });
  });
});

describe('collectStartupGarbage', () => {
  test('collects what nothing references any more, and leaves gc unexposed', async () => {
    let garbage: object | null = { payload: new Array(1000).fill('x') };
    const ref = new WeakRef(garbage);
    garbage = null;
    // A WeakRef's target is kept until the end of the job that created or read it.
    await new Promise((resolve) => setImmediate(resolve));
    collectStartupGarbage();
    assert.equal(ref.deref(), undefined);
    assert.equal((globalThis as { gc?: unknown }).gc, undefined);
  });
});
