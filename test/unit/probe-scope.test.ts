import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { ProbeScope, ProbeTimeoutError } from '../../src/engine/probes/probe-scope.js';

const never = new Promise<never>(() => {});

test('a race settles like its promise while the deadline has not passed', async () => {
  const scope = new ProbeScope(60_000);
  try {
    assert.equal(await scope.race(Promise.resolve(7)), 7);
    await assert.rejects(scope.race(Promise.reject(new Error('refused'))), /refused/);
    assert.equal(scope.expired, false);
  } finally {
    scope.close();
  }
});

test('the deadline rejects every pending race, and later races at once, with ProbeTimeoutError', async () => {
  const scope = new ProbeScope(20);
  try {
    const pending = [scope.race(never), scope.race(never)];
    for (const race of pending) await assert.rejects(race, (err: unknown) => err instanceof ProbeTimeoutError && err.timeoutMs === 20);
    assert.equal(scope.expired, true);
    await assert.rejects(scope.race(Promise.resolve(1)), ProbeTimeoutError);
  } finally {
    scope.close();
  }
});

test('a signal asked for before the deadline aborts at it; one asked for after is already aborted', async () => {
  const early = new ProbeScope(20);
  const late = new ProbeScope(20);
  try {
    const signal = early.signal;
    assert.equal(signal.aborted, false);
    await once(signal, 'abort');
    assert.ok(signal.reason instanceof ProbeTimeoutError);
    await assert.rejects(late.race(never), ProbeTimeoutError);
    assert.equal(late.signal.aborted, true);
    assert.ok(late.signal.reason instanceof ProbeTimeoutError);
  } finally {
    early.close();
    late.close();
  }
});
