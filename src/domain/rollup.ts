import type { Timing } from './check-types.js';
import { Histogram, isRecordable } from './histogram.js';

/**
 * Per-bucket aggregate of probe results (DESIGN 7). Only successful probes feed response
 * times and phases (decisions 6: percentiles are over successful probes).
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

/** Start of the UTC minute holding t (epoch ms). */
export function minuteKey(t: number): number {
  return Math.floor(t / MINUTE_MS) * MINUTE_MS;
}

/** Start of the UTC hour holding t (epoch ms). */
export function hourKey(t: number): number {
  return Math.floor(t / HOUR_MS) * HOUR_MS;
}

export const PHASES = ['dns', 'connect', 'tls', 'ttfb'] as const;
export type Phase = (typeof PHASES)[number];

/** What a rollup needs from one result; a ProbeResult fits as is. */
export interface RollupSample {
  ok: boolean;
  responseTime: number | null;
  /** A rollup reads the phases only (the total is the response time's business). */
  timing: (Pick<Timing, Phase> & Partial<Timing>) | null;
}

export interface PhaseAggregate {
  count: number;
  sum: number;
  hist: Histogram;
}

/** Flat, column-shaped form for a store: numbers, nulls and histogram blobs. */
export interface RollupRow {
  total: number;
  success: number;
  failure: number;
  rtCount: number;
  rtSum: number;
  rtMin: number | null;
  rtMax: number | null;
  rtHist: Uint8Array;
  dnsCount: number;
  dnsSum: number;
  dnsHist: Uint8Array;
  connectCount: number;
  connectSum: number;
  connectHist: Uint8Array;
  tlsCount: number;
  tlsSum: number;
  tlsHist: Uint8Array;
  ttfbCount: number;
  ttfbSum: number;
  ttfbHist: Uint8Array;
}

/** The count and response-time sums every rollup level carries (no histograms). */
export type RollupTotals = Pick<RollupRow, 'total' | 'success' | 'failure' | 'rtCount' | 'rtSum' | 'rtMin' | 'rtMax'>;

/** Adds `from`'s counts and sums into `into` (min and max merged; null means none). */
export function addTotals(into: RollupTotals, from: RollupTotals): void {
  into.total += from.total;
  into.success += from.success;
  into.failure += from.failure;
  into.rtCount += from.rtCount;
  into.rtSum += from.rtSum;
  into.rtMin = minOf(into.rtMin, from.rtMin);
  into.rtMax = maxOf(into.rtMax, from.rtMax);
}

export class Rollup {
  total = 0;
  success = 0;
  failure = 0;
  rtCount = 0;
  rtSum = 0;
  rtMin: number | null = null;
  rtMax: number | null = null;
  rt = new Histogram();
  phases: Record<Phase, PhaseAggregate> = {
    dns: emptyPhase(),
    connect: emptyPhase(),
    tls: emptyPhase(),
    ttfb: emptyPhase(),
  };

  /** Throws RangeError, changing nothing, on a negative or non-finite time. */
  add(sample: RollupSample): this {
    if (sample.ok) assertRecordable(sample);
    this.total++;
    if (!sample.ok) {
      this.failure++;
      return this;
    }
    this.success++;
    const rt = sample.responseTime;
    if (rt !== null) {
      this.rt.record(rt);
      this.rtCount++;
      this.rtSum += rt;
      this.rtMin = this.rtMin === null ? rt : Math.min(this.rtMin, rt);
      this.rtMax = this.rtMax === null ? rt : Math.max(this.rtMax, rt);
    }
    // A phase the protocol lacks is 0 and is counted as 0: "no TLS time" is a true reading.
    if (sample.timing !== null) {
      for (const phase of PHASES) {
        const value = sample.timing[phase];
        const agg = this.phases[phase];
        agg.hist.record(value);
        agg.count++;
        agg.sum += value;
      }
    }
    return this;
  }

  merge(other: Rollup): this {
    addTotals(this, other);
    this.rt.merge(other.rt);
    for (const phase of PHASES) {
      const mine = this.phases[phase];
      const theirs = other.phases[phase];
      mine.count += theirs.count;
      mine.sum += theirs.sum;
      mine.hist.merge(theirs.hist);
    }
    return this;
  }

  toRow(): RollupRow {
    const { dns, connect, tls, ttfb } = this.phases;
    return {
      total: this.total,
      success: this.success,
      failure: this.failure,
      rtCount: this.rtCount,
      rtSum: this.rtSum,
      rtMin: this.rtMin,
      rtMax: this.rtMax,
      rtHist: this.rt.serialize(),
      dnsCount: dns.count,
      dnsSum: dns.sum,
      dnsHist: dns.hist.serialize(),
      connectCount: connect.count,
      connectSum: connect.sum,
      connectHist: connect.hist.serialize(),
      tlsCount: tls.count,
      tlsSum: tls.sum,
      tlsHist: tls.hist.serialize(),
      ttfbCount: ttfb.count,
      ttfbSum: ttfb.sum,
      ttfbHist: ttfb.hist.serialize(),
    };
  }

  static fromRow(row: RollupRow): Rollup {
    return Rollup.fromRows([row]);
  }

  /** Sums many rows, merging each histogram column straight from its blobs. */
  static fromRows(rows: Iterable<RollupRow>): Rollup {
    const list = [...rows];
    const r = new Rollup();
    for (const row of list) {
      addTotals(r, row);
      r.phases.dns.count += row.dnsCount;
      r.phases.dns.sum += row.dnsSum;
      r.phases.connect.count += row.connectCount;
      r.phases.connect.sum += row.connectSum;
      r.phases.tls.count += row.tlsCount;
      r.phases.tls.sum += row.tlsSum;
      r.phases.ttfb.count += row.ttfbCount;
      r.phases.ttfb.sum += row.ttfbSum;
    }
    r.rt = Histogram.mergeSerialized(list.map((row) => row.rtHist));
    r.phases.dns.hist = Histogram.mergeSerialized(list.map((row) => row.dnsHist));
    r.phases.connect.hist = Histogram.mergeSerialized(list.map((row) => row.connectHist));
    r.phases.tls.hist = Histogram.mergeSerialized(list.map((row) => row.tlsHist));
    r.phases.ttfb.hist = Histogram.mergeSerialized(list.map((row) => row.ttfbHist));
    return r;
  }
}

/** The numbers spec 2.5 and 2.6 read from a rollup; null where there is nothing to average. */
export interface RollupSummary {
  totalChecks: number;
  successfulChecks: number;
  failedChecks: number;
  /** successful / total × 100 (decisions 6, count based). */
  uptimePercentage: number | null;
  responseSampleCount: number;
  responseTime: {
    average: number | null;
    min: number | null;
    max: number | null;
    p50: number | null;
    p90: number | null;
    p95: number | null;
    p99: number | null;
  };
  timing: Record<Phase, { average: number | null; p95: number | null }>;
}

export function summarizeRollup(r: Rollup): RollupSummary {
  // The exact percentile lies within [min, max], so clamping only ever moves the estimate closer.
  const rtPercentile = (p: number): number | null => {
    const v = r.rt.percentile(p);
    if (v === null || r.rtMin === null || r.rtMax === null) return v;
    return Math.min(r.rtMax, Math.max(r.rtMin, v));
  };
  const phase = (p: Phase): { average: number | null; p95: number | null } => {
    const agg = r.phases[p];
    return { average: agg.count === 0 ? null : agg.sum / agg.count, p95: agg.hist.percentile(95) };
  };
  return {
    totalChecks: r.total,
    successfulChecks: r.success,
    failedChecks: r.failure,
    uptimePercentage: r.total === 0 ? null : (r.success / r.total) * 100,
    responseSampleCount: r.rtCount,
    responseTime: {
      average: r.rtCount === 0 ? null : r.rtSum / r.rtCount,
      min: r.rtMin,
      max: r.rtMax,
      p50: rtPercentile(50),
      p90: rtPercentile(90),
      p95: rtPercentile(95),
      p99: rtPercentile(99),
    },
    timing: { dns: phase('dns'), connect: phase('connect'), tls: phase('tls'), ttfb: phase('ttfb') },
  };
}

function assertRecordable(sample: RollupSample): void {
  let good = sample.responseTime === null || isRecordable(sample.responseTime);
  if (sample.timing !== null) for (const phase of PHASES) good &&= isRecordable(sample.timing[phase]);
  if (!good) throw new RangeError(`bad time in probe result: ${JSON.stringify(sample)}`);
}

function emptyPhase(): PhaseAggregate {
  return { count: 0, sum: 0, hist: new Histogram() };
}

function minOf(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null ? a : Math.min(a, b);
}

function maxOf(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null ? a : Math.max(a, b);
}
