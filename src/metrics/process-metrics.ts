import { collectDefaultMetrics, Counter, Gauge, Histogram as PromHistogram, Registry, Summary, type MetricType } from 'prom-client';
import type { Histogram } from '../domain/histogram.js';
import type { JobReading } from '../util/job-runner.js';
import type { ClusterReading } from '../cluster/cluster.js';
import { seconds, secondsOf } from './sample-value.js';

/**
 * How often the event loop's delay is sampled (nodejs_eventloop_lag_*). prom-client's default of
 * 10 ms woke the main thread 100 times a second whatever the load: on a quiet instance (25
 * probes/s) that was 0.3 ms of CPU per probe, a third of the whole process's. A scrape resets
 * the histogram and the sample after it only starts the next interval, so a scrape every 15 s
 * sees 14 samples.
 */
const EVENT_LOOP_SAMPLE_MS = 1000;
/** The gauges read from Node's delay histogram, whose samples are the time between wake-ups. */
const SAMPLED_LAG = ['min', 'max', 'mean', 'p50', 'p90', 'p99'].map((stat) => `nodejs_eventloop_lag_${stat}_seconds`);

/**
 * Node's delay histogram records the time between the sampling timer's wake-ups, the sampling
 * interval included (prom-client's 10 ms default reads as about 10 ms of lag on an idle loop).
 * At a 1 s interval that would read as a second of lag, so these gauges report what is past the
 * interval: how late the loop woke. Each replaces prom-client's and reads it once that is set.
 */
export function reportLagBeyondSampling(registry: Registry, sampleMs: number): void {
  for (const name of SAMPLED_LAG) {
    const sampled = registry.getSingleMetric(name);
    if (sampled === undefined) continue;
    registry.removeSingleMetric(name);
    new Gauge({
      name,
      help: `${name.split('_')[3]} of how late the event loop woke past its ${sampleMs} ms sampling interval`,
      registers: [registry],
      async collect() {
        const value = (await sampled.get()).values[0]?.value;
        if (value !== undefined) this.set(Math.max(0, secondsOf(value - sampleMs / 1000)));
      },
    });
  }
}

const QUANTILES = [0.5, 0.99];
/** prom-client's typings name metric types by an enum its code does not export; its code uses the strings. */
const SUMMARY = 'summary' as unknown as MetricType;

/**
 * A summary read when scraped from a log-bucket histogram of milliseconds the engine keeps
 * anyway, so the probe path records nothing more. Quantiles come from a summary or a
 * histogram (promtool rejects a `quantile` label on anything else); a summary keeps the
 * series of the gauge it replaces. `_sum` is within the histogram's 1% of the exact sum.
 */
class MillisecondsSummary extends Summary {
  constructor(
    private readonly metricName: string,
    private readonly metricHelp: string,
    private readonly ms: Histogram,
    registers: Registry[],
  ) {
    super({ name: metricName, help: metricHelp, percentiles: QUANTILES, registers });
  }

  override async get(): ReturnType<Summary['get']> {
    const h = this.ms;
    const name = this.metricName;
    const quantiles = QUANTILES.map((q) => ({ labels: { quantile: q }, value: h.count === 0 ? NaN : seconds(h.percentile(q * 100) ?? 0) }));
    return {
      name,
      help: this.metricHelp,
      type: SUMMARY,
      aggregator: 'sum',
      collect: () => {},
      values: [
        ...quantiles,
        { metricName: `${name}_sum`, labels: {}, value: seconds(h.approximateSum()) },
        { metricName: `${name}_count`, labels: {}, value: h.count },
      ],
    };
  }
}

/** The engine's side of the probe path, read when scraped. */
export interface ProbeReadings {
  /** How late probes were sent (ms), since start. */
  wheelLag: Histogram;
  probesFired(): number;
  probesInFlight(): number;
  probeQueueDepth(): number;
}

/** The batched writer: its queue, and each commit's size as it happens. */
export interface WriterReadings {
  readonly pending: number;
  afterEachBatch(listener: (writes: number) => void): void;
}

const gauge = (registry: Registry, name: string, help: string, read: () => number | Promise<number>) =>
  new Gauge({ name, help, registers: [registry], async collect() { this.set(await read()); } });

/**
 * Node's defaults (event-loop lag, CPU, memory, GC). `eventLoopSampleMs`: the lag sampling
 * interval (tests shorten it to see samples sooner).
 */
export function nodeMetrics(registry: Registry, eventLoopSampleMs = EVENT_LOOP_SAMPLE_MS): void {
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: eventLoopSampleMs });
  reportLagBeyondSampling(registry, eventLoopSampleMs);
}

/** The wheel's lateness, probes sent and in flight, and the probe workers' queue. Base units (seconds), `_total` counters. */
export function probeMetrics(registry: Registry, readings: ProbeReadings): void {
  const registers = [registry];
  new MillisecondsSummary(
    'vigil_wheel_lag_seconds',
    'How late the timing wheel sent probes after they were due, since start',
    readings.wheelLag,
    registers,
  );
  new Counter({
    name: 'vigil_probes_dispatched_total',
    help: 'Probes the wheel sent to the probe workers since start',
    registers,
    collect() {
      this.reset();
      this.inc(readings.probesFired());
    },
  });
  gauge(registry, 'vigil_probes_in_flight', 'Probes sent whose results are not recorded yet', readings.probesInFlight);
  gauge(registry, 'vigil_probe_queue_depth', 'Probes waiting for a free probe worker slot', readings.probeQueueDepth);
}

/** The writer's queue and its group commits. */
export function writerMetrics(registry: Registry, writer: WriterReadings): void {
  gauge(registry, 'vigil_writer_queue_length', 'Writes waiting for the next group commit', () => writer.pending);
  const batchSize = new PromHistogram({
    name: 'vigil_writer_batch_size',
    help: 'Writes committed together in one transaction (group commit)',
    buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000],
    registers: [registry],
  });
  writer.afterEachBatch((writes) => batchSize.observe(writes));
}

/** Alert deliveries not sent yet. */
export function deliveryMetrics(registry: Registry, pendingDeliveries: () => number | Promise<number>): void {
  gauge(registry, 'vigil_alert_deliveries_pending', 'Alert deliveries waiting to be sent or being sent', pendingDeliveries);
}

/** This central among several (a single server reports itself, owning every check). */
export function clusterMetrics(registry: Registry, read: () => ClusterReading): void {
  const registers = [registry];
  const labelNames = ['instance'];
  new Gauge({
    name: 'vigil_cluster_owned_checks', help: 'Checks this central owns and probes now', labelNames, registers,
    collect() { const c = read(); this.set({ instance: c.name }, c.checks); },
  });
  new Gauge({
    name: 'vigil_cluster_slots', help: 'Check slots this central holds a lease on (0 on a single server, which leases none)', labelNames, registers,
    collect() { const c = read(); this.set({ instance: c.name }, c.slots); },
  });
  new Counter({
    name: 'vigil_cluster_lease_renewals_total', help: 'Lease renewals this central made since start', labelNames, registers,
    collect() { const c = read(); this.reset(); this.inc({ instance: c.name }, c.renewals); },
  });
  new Counter({
    name: 'vigil_cluster_lease_renewal_failures_total', help: 'Lease renewals that failed (the database did not answer) since start', labelNames, registers,
    collect() { const c = read(); this.reset(); this.inc({ instance: c.name }, c.renewalFailures); },
  });
}

/** Each periodic job's latest run: when it started, how long it took, and counts since start. */
export function jobMetrics(registry: Registry, jobs: () => JobReading[]): void {
  const registers = [registry];
  const labelNames = ['job'];
  const each = (set: (labels: { job: string }, value: number) => void, value: (j: JobReading) => number | null) => {
    for (const j of jobs()) {
      const v = value(j);
      if (v !== null) set({ job: j.name }, v);
    }
  };
  new Gauge({
    name: 'vigil_job_last_run_timestamp_seconds', help: 'When each periodic job last started (Unix time)', labelNames, registers,
    collect() { each((l, v) => this.set(l, v), (j) => (j.lastRunAt === null ? null : seconds(j.lastRunAt))); },
  });
  new Gauge({
    name: 'vigil_job_last_duration_seconds', help: 'How long the latest finished run of each periodic job took', labelNames, registers,
    collect() { each((l, v) => this.set(l, v), (j) => (j.lastDurationMs === null ? null : seconds(j.lastDurationMs))); },
  });
  new Counter({
    name: 'vigil_job_runs_total', help: 'Finished runs of each periodic job since start', labelNames, registers,
    collect() { this.reset(); each((l, v) => this.inc(l, v), (j) => j.runs); },
  });
  new Counter({
    name: 'vigil_job_failures_total', help: 'Runs of each periodic job that failed since start', labelNames, registers,
    collect() { this.reset(); each((l, v) => this.inc(l, v), (j) => j.failures); },
  });
}
