import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Histogram } from '../../src/domain/histogram.js';
import { Gauge, Registry } from 'prom-client';
import {
  clusterMetrics, deliveryMetrics, jobMetrics, nodeMetrics, probeMetrics, reportLagBeyondSampling, writerMetrics,
} from '../../src/metrics/process-metrics.js';
import type { JobReading } from '../../src/util/job-runner.js';

/** The process registry as the features fill it (each registers its own series). */
function metrics(eventLoopSampleMs?: number, jobs: JobReading[] = []): { registry: Registry } {
  const registry = new Registry();
  nodeMetrics(registry, eventLoopSampleMs);
  probeMetrics(registry, { wheelLag: new Histogram(), probesFired: () => 0, probesInFlight: () => 0, probeQueueDepth: () => 0 });
  writerMetrics(registry, { pending: 0, afterEachBatch: () => {} });
  deliveryMetrics(registry, () => 0);
  jobMetrics(registry, () => jobs);
  clusterMetrics(registry, () => ({ name: 'central-a:8080', checks: 12, slots: 512, renewals: 7, renewalFailures: 1 }));
  return { registry };
}

/** Every value of the exposition whose name starts with `prefix`, by name. */
async function values(m: { registry: Registry }, prefix: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const metric of await m.registry.getMetricsAsJSON()) {
    if (metric.name.startsWith(prefix)) out.set(metric.name, metric.values[0]?.value ?? NaN);
  }
  return out;
}

test('the event-loop lag gauges are all there and a sample of an idle loop reads in order', async () => {
  // Sampled every 20 ms here (once a second in service), so that samples come soon.
  const m = metrics(20);
  let lag = await values(m, 'nodejs_eventloop_lag_');
  assert.deepEqual(
    [...lag.keys()].sort(),
    ['max', 'mean', 'min', 'p50', 'p90', 'p99', 'seconds', 'stddev'].map((s) => (s === 'seconds' ? 'nodejs_eventloop_lag_seconds' : `nodejs_eventloop_lag_${s}_seconds`)).sort(),
  );
  // Each scrape resets the histogram, and the first sample after a reset only starts the next
  // interval: a sample shows two intervals after a scrape, so each look waits five.
  const mean = 'nodejs_eventloop_lag_mean_seconds';
  for (let i = 0; i < 100 && !Number.isFinite(lag.get(mean)); i++) {
    await sleep(100);
    lag = await values(m, 'nodejs_eventloop_lag_');
  }
  const get = (stat: string) => lag.get(`nodejs_eventloop_lag_${stat}_seconds`)!;
  assert.ok(Number.isFinite(get('mean')), 'a sample was taken');
  assert.ok(get('min') >= 0 && get('min') <= get('p50') && get('p50') <= get('p99') && get('p99') <= get('max'));
});

test('the lag gauges report the delay past the sampling interval, never below zero', async () => {
  const registry = new Registry();
  const raw = { mean: 1.25, min: 0.9995, max: 3 };
  for (const [stat, value] of Object.entries(raw)) {
    new Gauge({ name: `nodejs_eventloop_lag_${stat}_seconds`, help: 'raw', registers: [registry] }).set(value);
  }
  reportLagBeyondSampling(registry, 1000);
  const read = async (stat: string) => (await registry.getSingleMetric(`nodejs_eventloop_lag_${stat}_seconds`)!.get()).values[0]?.value;
  assert.equal(await read('mean'), 0.25);
  assert.equal(await read('min'), 0, 'a wake-up a little early is no lag, not a negative one');
  assert.equal(await read('max'), 2);
});

test('each periodic job shows its last run, its duration and its counts, labelled by name; a job never run shows no times', async () => {
  const m = metrics(undefined, [
    { name: 'rollup-build', runs: 3, failures: 1, lastRunAt: 1_700_000_000_000, lastDurationMs: 250, running: false },
    { name: 'raw-retention', runs: 0, failures: 0, lastRunAt: null, lastDurationMs: null, running: false },
  ]);
  const text = await m.registry.metrics();
  assert.match(text, /^vigil_job_last_run_timestamp_seconds\{job="rollup-build"\} 1700000000$/m);
  assert.match(text, /^vigil_job_last_duration_seconds\{job="rollup-build"\} 0\.25$/m);
  assert.match(text, /^vigil_job_runs_total\{job="rollup-build"\} 3$/m);
  assert.match(text, /^vigil_job_failures_total\{job="rollup-build"\} 1$/m);
  assert.match(text, /^vigil_job_runs_total\{job="raw-retention"\} 0$/m);
  assert.doesNotMatch(text, /vigil_job_last_run_timestamp_seconds\{job="raw-retention"\}/);
});

test('this central: owned checks, slots and lease renewals, labelled by instance', async () => {
  const text = await metrics().registry.metrics();
  assert.match(text, /^vigil_cluster_owned_checks\{instance="central-a:8080"\} 12$/m);
  assert.match(text, /^vigil_cluster_slots\{instance="central-a:8080"\} 512$/m);
  assert.match(text, /^vigil_cluster_lease_renewals_total\{instance="central-a:8080"\} 7$/m);
  assert.match(text, /^vigil_cluster_lease_renewal_failures_total\{instance="central-a:8080"\} 1$/m);
});
