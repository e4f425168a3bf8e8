import type { ChecksService } from './checks-service.js';
import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import { parseDate } from './history-service.js';
import type { Principal } from './principal.js';
import type { MultiRangeStats, RangeStats, SingleRangeStats, StatsQuery } from './schemas/stats.js';
import { sumTotals, type RollupReads } from '../store/rollup-store.js';
import type { StateChangeRepo } from '../store/store.js';
import { DAY_MS, planExactCover, type SourceLimits } from '../domain/cover.js';
import { computeDurations, type DurationStats, type StateChange } from '../stats/durations.js';
import { parseRanges, rangeWindow } from '../domain/ranges.js';
import { MINUTE_MS, Rollup, summarizeRollup } from '../domain/rollup.js';

/** What statistics read: rollups (and the raw edges they point to) and the state-change log. */
export interface StatsStore {
  stateChanges: Pick<StateChangeRepo, 'between'>;
  rollups: RollupReads;
}

/**
 * The exclusive end of the stretch a window [from, to] reads. Nothing is recorded after now,
 * so a window reaching now or later may end at the next minute boundary: the current minute
 * is then read from its rollup (row plus buffer), not from raw history, however busy it is.
 */
function coverEnd(to: number, now: number): number {
  return to >= now ? Math.ceil((to + 1) / MINUTE_MS) * MINUTE_MS : to + 1;
}

/**
 * Milliseconds, and seconds, to 3 decimals: averages of float sums carry noise
 * (0.6699999999999999) that means nothing, while a microsecond is finer than any probe measures.
 */
function round3(value: number): number;
function round3(value: number | null): number | null;
function round3(value: number | null): number | null {
  return value === null ? null : Math.round(value * 1000) / 1000;
}

function roundedTimes<T extends Record<string, number | null>>(times: T): T {
  const out: Record<string, number | null> = {};
  for (const [k, v] of Object.entries(times)) out[k] = round3(v);
  return out as T;
}

/**
 * Statistics of one check (spec 2.5, 2.6, decisions 6). Counts, response times and
 * percentiles come from rollups (each bucket's row merged with what is still buffered for
 * it), with raw rows only for the partial minute at a window's start (and at its end when it
 * ends in the past), so they are exact (percentiles within 1%) at any boundary; durations and
 * incidents come from the state-change log. `to` is inclusive.
 */
export class StatsService {
  constructor(
    private readonly store: StatsStore,
    private readonly checks: Pick<ChecksService, 'get'>,
    private readonly clock: Clock,
  ) {}

  /** Multi-range when `ranges` is present, else single-range (spec 4.2 rule 3). */
  async forQuery(principal: Principal, checkId: string, query: StatsQuery): Promise<SingleRangeStats | MultiRangeStats> {
    if (query.ranges !== undefined) return this.multiRange(principal, checkId, query.ranges, query.to);
    return this.singleRange(principal, checkId, query.from, query.to);
  }

  async singleRange(principal: Principal, checkId: string, fromIso?: string, toIso?: string): Promise<SingleRangeStats> {
    const check = await this.checks.get(principal, checkId);
    const now = this.clock.now();
    const to = parseDate('to', toIso) ?? now;
    const from = parseDate('from', fromIso) ?? to - DAY_MS;
    if (from > to) throw errors.badRequest('from must not be after to');

    const rollups = this.store.rollups;
    const plan = planExactCover(from, coverEnd(to, now), await this.limits(check.seq));
    const rollup = await rollups.rollup(check.seq, 'day', plan.days);
    rollup.merge(await rollups.rollup(check.seq, 'hour', plan.hours)).merge(await rollups.rollup(check.seq, 'minute', plan.minutes));
    for (const sample of (await rollups.rawSamples(check.seq, plan.raw))) rollup.add(sample);
    const summary = summarizeRollup(rollup);
    const { incidents } = await this.durations(check.seq, from, to, now);
    return {
      checkId,
      period: { from: new Date(from).toISOString(), to: new Date(to).toISOString() },
      uptime: {
        percentage: summary.uptimePercentage,
        totalChecks: summary.totalChecks,
        successfulChecks: summary.successfulChecks,
        failedChecks: summary.failedChecks,
      },
      responseTime: roundedTimes(summary.responseTime),
      timing: {
        dns: roundedTimes(summary.timing.dns),
        connect: roundedTimes(summary.timing.connect),
        tls: roundedTimes(summary.timing.tls),
        ttfb: roundedTimes(summary.timing.ttfb),
      },
      incidents: { count: incidents.count, totalDowntime: round3(incidents.totalDowntime), mtbf: round3(incidents.mtbf), mttr: round3(incidents.mttr) },
    };
  }

  async multiRange(principal: Principal, checkId: string, rangesQuery: string, toIso?: string): Promise<MultiRangeStats> {
    const check = await this.checks.get(principal, checkId);
    const ranges = parseRanges(rangesQuery);
    if (typeof ranges === 'string') throw errors.rangeInvalid(ranges);
    const now = this.clock.now();
    const to = parseDate('to', toIso) ?? now;

    const rollups = this.store.rollups;
    const limits = await this.limits(check.seq);
    const longest = Math.max(...ranges.map((r) => r.ms));
    // One read of the log serves every window: they all end at `to`.
    const changes = await this.changes(check.seq, to - longest, to, now);
    const out: MultiRangeStats = {};
    for (const range of ranges) {
      const { from } = rangeWindow(range, to);
      const plan = planExactCover(from, coverEnd(to, now), limits);
      const raw = new Rollup();
      for (const sample of (await rollups.rawSamples(check.seq, plan.raw))) raw.add(sample);
      const t = sumTotals([
        (await rollups.totals(check.seq, 'day', plan.days)),
        (await rollups.totals(check.seq, 'hour', plan.hours)),
        (await rollups.totals(check.seq, 'minute', plan.minutes)),
        { total: raw.total, success: raw.success, failure: raw.failure, rtCount: raw.rtCount, rtSum: raw.rtSum, rtMin: raw.rtMin, rtMax: raw.rtMax },
      ]);
      const d = await this.durations(check.seq, from, to, now, changes);
      const stats: RangeStats = {
        totalChecks: t.total,
        onlineChecks: t.success,
        offlineChecks: t.failure,
        uptimePercentage: d.uptimePercentage,
        totalDurationMs: range.ms,
        onlineDurationMs: d.onlineDurationMs,
        offlineDurationMs: d.offlineDurationMs,
        responseSampleCount: t.rtCount,
        avgResponseTime: t.rtCount === 0 ? null : round3(t.rtSum / t.rtCount),
        minResponseTime: round3(t.rtMin),
        maxResponseTime: round3(t.rtMax),
      };
      out[range.name] = stats;
    }
    return out;
  }

  private async limits(seq: number): Promise<SourceLimits> {
    return this.store.rollups.horizons(seq);
  }

  /** The state-change log over [from, to], cut at now: the future has no state yet. */
  private async changes(seq: number, from: number, to: number, now: number): Promise<StateChange[]> {
    return this.store.stateChanges.between(seq, from, Math.max(from, Math.min(to, now)));
  }

  private async durations(seq: number, from: number, to: number, now: number, changes?: StateChange[]): Promise<DurationStats> {
    const end = Math.max(from, Math.min(to, now));
    return computeDurations(changes ?? (await this.changes(seq, from, to, now)), { from, to: end });
  }
}
