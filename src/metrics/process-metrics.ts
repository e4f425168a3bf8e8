import { collectDefaultMetrics, Counter, Gauge, Histogram as PromHistogram, Registry } from 'prom-client';
import type { Histogram } from '../domain/histogram.js';

/** The running node's own gauges, read when scraped. */
export interface ProcessReadings {
  /** How late probes were sent (ms), since start. */
  wheelLag: Histogram;
  probesFired(): number;
  probesInFlight(): number;
  probeQueueDepth(): number;
  writerQueueLength(): number;
  pendingDeliveries(): number;
}

/**
 * The process's metrics in one prom-client registry: Node's defaults (event-loop lag, CPU,
 * memory, GC) and Vigil's engine, writer and alert queue. Base units (seconds), `_total` counters.
 */
export class ProcessMetrics {
  readonly registry = new Registry();
  private readonly batchSize: PromHistogram;

  constructor(readings: ProcessReadings) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'vigil_wheel_lag_seconds',
      help: 'How late the timing wheel sent probes after they were due, since start',
      labelNames: ['quantile'],
      registers,
      collect() {
        for (const q of [0.5, 0.99]) this.set({ quantile: String(q) }, (readings.wheelLag.percentile(q * 100) ?? 0) / 1000);
      },
    });
    new Counter({
      name: 'vigil_probes_dispatched_total',
      help: 'Probes the wheel sent to the probe workers since start',
      registers,
      collect() {
        this.reset();
        this.inc(readings.probesFired());
      },
    });
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({ name, help, registers, collect() { this.set(read()); } });
    gauge('vigil_probes_in_flight', 'Probes sent whose results are not recorded yet', readings.probesInFlight);
    gauge('vigil_probe_queue_depth', 'Probes waiting for a free probe worker slot', readings.probeQueueDepth);
    gauge('vigil_writer_queue_length', 'Writes waiting for the next group commit', readings.writerQueueLength);
    gauge('vigil_alert_deliveries_pending', 'Alert deliveries waiting to be sent or being sent', readings.pendingDeliveries);
    this.batchSize = new PromHistogram({
      name: 'vigil_writer_batch_size',
      help: 'Writes committed together in one transaction (group commit)',
      buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000],
      registers,
    });
  }

  /** The writer calls this after each commit. */
  batchCommitted(writes: number): void {
    this.batchSize.observe(writes);
  }
}
