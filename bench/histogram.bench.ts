import { Bench } from 'tinybench';
import { Histogram, exactPercentile } from '../src/domain/histogram.js';
import { fmt, runIfMain, table } from './lib/harness.js';
import { prng } from '../test/helpers/prng.js';

/**
 * What 90 days of hourly rollups cost to read, against the baseline of keeping raw values
 * and sorting them. Data: one probe a minute, log-normal around 180 ms, 1% slow outliers.
 */

export interface BenchFigure {
  name: string;
  meanMs: number;
  opsPerSec: number;
  /** Relative margin of error of the mean, percent. */
  rmePct: number;
  samples: number;
}

export interface HistogramBenchReport {
  values: number;
  hourlyBlobs: number;
  meanBlobBytes: number;
  rawBytes: number;
  /** Worst relative error of p50/p90/p95/p99 read from the merged blobs, percent. */
  maxRelativeErrorPct: number;
  figures: BenchFigure[];
  /** Baseline time / histogram time for the same answer. */
  speedup: { percentiles90d: number; record: number };
}

const HOURS = 90 * 24;
const PER_HOUR = 60;
const PS = [50, 90, 95, 99];


function responseTimes(count: number, rand: () => number): Float64Array {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const z = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
    out[i] = rand() < 0.01 ? 2000 + rand() * 28_000 : 180 * Math.exp(0.5 * z);
  }
  return out;
}

export async function runHistogramBench(options: { time?: number } = {}): Promise<HistogramBenchReport> {
  const raw = responseTimes(HOURS * PER_HOUR, prng(90));
  const hourly: Histogram[] = [];
  for (let h = 0; h < HOURS; h++) {
    const hist = new Histogram();
    for (let i = h * PER_HOUR; i < (h + 1) * PER_HOUR; i++) hist.record(raw[i] as number);
    hourly.push(hist);
  }
  const blobs = hourly.map((h) => h.serialize());
  const batch = raw.subarray(0, 1000);
  const merged = Histogram.mergeSerialized(blobs);
  const sorted = raw.slice().sort();
  let worst = 0;
  for (const p of PS) {
    const exact = exactPercentile(sorted, p) as number;
    worst = Math.max(worst, Math.abs((merged.percentile(p) as number) - exact) / exact);
  }

  let sink = 0;
  const bench = new Bench({ time: options.time ?? 500, warmupTime: 100 });
  bench
    .add('record 1000 values', () => {
      const h = new Histogram();
      for (let i = 0; i < batch.length; i++) h.record(batch[i] as number);
      sink += h.count;
    })
    .add('baseline: keep 1000 raw values', () => {
      const kept: number[] = [];
      for (let i = 0; i < batch.length; i++) kept.push(batch[i] as number);
      sink += kept.length;
    })
    .add(`mergeSerialized ${HOURS} hourly blobs`, () => {
      sink += Histogram.mergeSerialized(blobs).count;
    })
    .add(`merge ${HOURS} decoded hourly histograms`, () => {
      const h = new Histogram();
      for (const part of hourly) h.merge(part);
      sink += h.count;
    })
    .add('read p50/p90/p95/p99', () => {
      for (const p of PS) sink += merged.percentile(p) as number;
    })
    .add('90d percentiles: mergeSerialized + 4 reads', () => {
      const h = Histogram.mergeSerialized(blobs);
      for (const p of PS) sink += h.percentile(p) as number;
    })
    .add(`baseline 90d percentiles: sort ${raw.length} raw values + 4 reads`, () => {
      const s = raw.slice().sort();
      for (const p of PS) sink += exactPercentile(s, p) as number;
    });
  await bench.run();
  if (Number.isNaN(sink)) throw new Error('unreachable: keeps the work observable');

  const figures: BenchFigure[] = bench.tasks.map((task) => {
    const r = task.result;
    if (r.state !== 'completed') throw new Error(`bench task ${task.name} ended ${r.state}`);
    return {
      name: task.name,
      meanMs: r.latency.mean,
      opsPerSec: r.throughput.mean,
      rmePct: r.latency.rme,
      samples: r.latency.samplesCount,
    };
  });
  const mean = (name: string): number => figures.find((f) => f.name.startsWith(name))?.meanMs ?? Number.NaN;
  return {
    values: raw.length,
    hourlyBlobs: blobs.length,
    meanBlobBytes: blobs.reduce((sum, b) => sum + b.length, 0) / blobs.length,
    rawBytes: raw.byteLength,
    maxRelativeErrorPct: worst * 100,
    figures,
    speedup: {
      percentiles90d: mean('baseline 90d') / mean('90d percentiles'),
      record: mean('baseline: keep') / mean('record 1000'),
    },
  };
}

runIfMain(import.meta.url, async () => {
  const r = await runHistogramBench();
  return [
    `### Response-time histograms (90 days of hourly rollups: ${fmt(r.hourlyBlobs)} blobs, ${fmt(r.values)} values)`,
    '',
    table(['task', 'mean ms', 'ops/s'], r.figures.map((f) => [f.name, f.meanMs.toPrecision(3), fmt(f.opsPerSec)])),
    '',
    `90-day percentiles from merged blobs are ${fmt(r.speedup.percentiles90d, 1)}x faster than sorting the raw values; ` +
      `worst percentile error ${r.maxRelativeErrorPct.toFixed(3)}% (target <= 1%); mean blob ${fmt(r.meanBlobBytes, 1)} bytes for an hour.`,
  ].join('\n');
});
