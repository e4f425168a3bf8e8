import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { AlertPipeline, OUTBOX_GRACE_MS, type AlertPipelineDeps } from '../../src/alerts/alert-pipeline.js';
import { loadConfig, resolveConfig } from '../../src/config.js';
import { DEFAULT_SETTINGS } from '../../src/core/check-settings.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { AlertEvent } from '../../src/domain/events.js';
import type { Check } from '../../src/domain/records.js';
import type { OutboxEvent } from '../../src/store/alert-outbox.js';
import type { AlertsWrite, WriteRecord } from '../../src/store/writes.js';
import { outboxSweepJob } from '../../src/alerts/outbox-sweep.js';
import { JobRunner } from '../../src/util/job-runner.js';
import { FakeTimers } from '../helpers/fake-timers.js';

/**
 * The alert pipeline's side of the outbox: the alerts write of a drain claims every outbox event
 * it routed (alert or not) and names each alert's event; an event whose routing failed stays for
 * the sweep; the sweep hands in what is old enough and not already here.
 */

const T0 = Date.UTC(2026, 5, 1, 12);
const config = resolveConfig(loadConfig({ warn: () => {} }), 8080);

function check(id: string, accountId: string): Check {
  return {
    ...DEFAULT_SETTINGS, id, seq: 1, accountId, name: id, url: 'https://example.com/', type: 'website',
    disabled: false, disabledReason: null, maintenance: false, maintenanceUntil: null, windowMaintenance: false, heartbeatToken: null,
    status: 'down', consecutiveFailures: 1, degraded: false, lastChecked: null, lastResponseTime: null, lastStatusCode: null,
    lastError: 'HTTP 500', lastStatusChange: T0, probesTotal: 1, probesUp: 0, ssl: null, domain: null, regions: null,
    errorAlerted: false, sslAlerts: null, createdAt: T0, updatedAt: T0,
  } as Check;
}

const down = (at: number): AlertEvent => ({
  type: 'website_down', at, previousStatus: 'up', status: 'down', error: 'HTTP 500', statusCode: 500, responseTime: 10, ssl: null, since: at - 60_000,
  regions: { primary: null, peer: null, regionsTotal: 1, regionsDown: 1, confirmedDown: true },
});

function world() {
  const clock = new ManualClock(T0);
  const commits: WriteRecord[] = [];
  const due: OutboxEvent[] = [];
  let release: () => void = () => {};
  let hold = false;
  const hook = { id: 'whk_1', enabled: true, events: ['website_down'], checkIds: [], folders: [], tags: [] };
  const deps = {
    store: {
      checks: {
        byId: async (id: string) => {
          if (id === 'chk_boom') throw new Error('store read failed');
          return check(id, 'acc_1');
        },
      },
      alerts: { outbox: { due: async (before: number) => due.filter((e) => e.createdAt <= before) } },
    },
    routing: { targets: async (accountId: string) => ({ claimed: true, email: null, webhooks: accountId === 'acc_quiet' ? [] : [hook] }) },
    writer: {
      commit: (w: WriteRecord) => {
        commits.push(w);
        return hold ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
      },
    },
    sender: { wake: () => {}, retryUntil: (now: number) => now + 3_600_000 },
    mailer: { configured: false },
    clock, config, log: pino({ level: 'silent' }),
  } as unknown as AlertPipelineDeps;
  const pipeline = new AlertPipeline(deps);
  return { pipeline, commits, due, clock, holdCommits: () => (hold = true), release: () => release() };
}

const alertsOf = (commits: WriteRecord[]) => commits.filter((w): w is AlertsWrite => w.kind === 'alerts');

test('a drain claims every outbox event it routed, with an alert or without; each alert names its event', async () => {
  const w = world();
  w.pipeline.handle({ id: 'chk_a', accountId: 'acc_1' }, down(T0), 'evt_heard');
  w.pipeline.handle({ id: 'chk_b', accountId: 'acc_quiet' }, down(T0), 'evt_unheard');
  w.pipeline.handle({ id: 'chk_c', accountId: 'acc_1' }, down(T0), null);
  await w.pipeline.settled();
  // A drain routes for at most half a millisecond: the three may take more than one write.
  const writes = alertsOf(w.commits);
  assert.deepEqual(writes.flatMap((x) => x.routed ?? []), [{ id: 'evt_heard', checkId: 'chk_a' }, { id: 'evt_unheard', checkId: 'chk_b' }]);
  assert.deepEqual(writes.flatMap((x) => x.alerts.map((a) => [a.checkId, a.outboxId])), [['chk_a', 'evt_heard'], ['chk_c', null]]);
});

test('an event whose routing failed is not claimed; the sweep hands in old events not already here, once', async () => {
  const w = world();
  w.pipeline.handle({ id: 'chk_boom', accountId: 'acc_1' }, down(T0), 'evt_failed');
  await w.pipeline.settled();
  assert.deepEqual(alertsOf(w.commits), [], 'nothing routed, nothing claimed');

  // One event is still being claimed here; the other was left by routing that failed.
  w.holdCommits();
  w.pipeline.handle({ id: 'chk_a', accountId: 'acc_1' }, down(T0), 'evt_busy');
  while (alertsOf(w.commits).length === 0) await new Promise((resolve) => setImmediate(resolve));
  w.due.push(
    { id: 'evt_failed', checkId: 'chk_a', accountId: 'acc_1', event: down(T0), createdAt: T0 },
    { id: 'evt_busy', checkId: 'chk_a', accountId: 'acc_1', event: down(T0), createdAt: T0 },
  );
  assert.equal(await w.pipeline.sweep(), 0, 'younger than the grace period');
  w.clock.advance(OUTBOX_GRACE_MS);
  assert.equal(await w.pipeline.sweep(), 1, 'the failed one; the one being claimed is skipped');
  assert.equal(await w.pipeline.sweep(), 0, 'already handed in');
  w.release();
  while (alertsOf(w.commits).length < 2) await new Promise((resolve) => setImmediate(resolve));
  w.release();
  await w.pipeline.settled();
  assert.deepEqual(alertsOf(w.commits)[1]!.routed, [{ id: 'evt_failed', checkId: 'chk_a' }]);
  assert.equal(w.pipeline.metrics.swept, 1);
});

test('one server: the outbox sweep runs at start and until a grace has passed, then sleeps until routing leaves an event behind', async () => {
  const w = world();
  const timers = new FakeTimers(w.clock);
  const jobs = new JobRunner({ clock: w.clock, timers, log: pino({ level: 'silent' }) });
  let sweeps = 0;
  const sweep = w.pipeline.sweep.bind(w.pipeline);
  w.pipeline.sweep = () => (sweeps++, sweep());
  jobs.add(outboxSweepJob(w.pipeline, w.clock, false));
  jobs.start();
  // A crash before this start may have left events up to a grace younger than it: swept every 2 s until then.
  await timers.advance(OUTBOX_GRACE_MS);
  assert.equal(sweeps, 1 + OUTBOX_GRACE_MS / 2_000);
  assert.equal(timers.count, 0, 'asleep: no timer');
  await timers.advance(600_000);
  assert.equal(sweeps, 1 + OUTBOX_GRACE_MS / 2_000);

  // Routing fails here: the event stays in the outbox, and the sweep hands it in once it is past its grace.
  const failedAt = w.clock.now();
  w.pipeline.handle({ id: 'chk_boom', accountId: 'acc_1' }, down(failedAt), 'evt_failed');
  await w.pipeline.settled();
  w.due.push({ id: 'evt_failed', checkId: 'chk_a', accountId: 'acc_1', event: down(failedAt), createdAt: failedAt });
  assert.equal(timers.nextAt, failedAt + OUTBOX_GRACE_MS);
  await timers.advance(OUTBOX_GRACE_MS);
  await w.pipeline.settled();
  assert.equal(w.pipeline.metrics.swept, 1);
  assert.deepEqual(alertsOf(w.commits).flatMap((x) => x.routed ?? []), [{ id: 'evt_failed', checkId: 'chk_a' }]);
  assert.equal(timers.count, 0, 'asleep again');
});

test('several centrals: the outbox sweep runs every 2 s whatever it finds (another central may die)', async () => {
  const w = world();
  const timers = new FakeTimers(w.clock);
  const jobs = new JobRunner({ clock: w.clock, timers, log: pino({ level: 'silent' }) });
  jobs.add(outboxSweepJob(w.pipeline, w.clock, true));
  jobs.start();
  await timers.advance(60_000);
  assert.equal(jobs.readings()[0]!.runs, 31);
  assert.equal(timers.count, 1);
});
