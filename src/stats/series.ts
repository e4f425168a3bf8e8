import type { BucketSums, RollupLevel, RollupReads } from '../store/rollup-store.js';
import type { HistoryRepo, StateChangeRepo } from '../store/store.js';
import { DAY_MS } from '../domain/cover.js';
import { HOUR_MS, MINUTE_MS, PHASES } from '../domain/rollup.js';

/** Chart ranges of the dashboard's check page and the rollup level and step that draw each. */
export const SERIES_RANGES = {
  '1h': { ms: HOUR_MS, level: 'minute', step: MINUTE_MS },
  '6h': { ms: 6 * HOUR_MS, level: 'minute', step: 5 * MINUTE_MS },
  '1d': { ms: DAY_MS, level: 'minute', step: 15 * MINUTE_MS },
  '7d': { ms: 7 * DAY_MS, level: 'hour', step: HOUR_MS },
  '30d': { ms: 30 * DAY_MS, level: 'hour', step: 6 * HOUR_MS },
  '90d': { ms: 90 * DAY_MS, level: 'day', step: DAY_MS },
} as const satisfies Record<string, { ms: number; level: RollupLevel; step: number }>;
export type SeriesRange = keyof typeof SERIES_RANGES;

/** Column arrays, one entry per step (uPlot's data layout); null where no probe succeeded. */
export interface Series {
  step: number;
  at: number[];
  total: number[];
  uptime: Array<number | null>;
  responseTime: Array<number | null>;
  dns: Array<number | null>;
  connect: Array<number | null>;
  tls: Array<number | null>;
  ttfb: Array<number | null>;
}

export interface Incident {
  start: number;
  /** Null while the check is still down. */
  end: number | null;
  durationMs: number;
  /** The error of the failure that took the check down, when history still has it. */
  error: string | null;
}

/** Incidents a series names, newest first: enough for any chart, bounded however flappy the check. */
const MAX_INCIDENTS = 50;
/** How far before a down transition its failing result may lie (the confirmations before it). */
const CAUSE_WINDOW_MS = 60 * 60 * 1000;

const avg = (sum: number, count: number): number | null => (count === 0 ? null : Math.round((sum / count) * 10) / 10);

/** Rollup buckets [from, to) folded into steps (each step sums whole buckets). */
export function seriesOf(buckets: readonly BucketSums[], from: number, to: number, step: number): Series {
  const n = Math.ceil((to - from) / step);
  const sums = Array.from({ length: n }, () => ({ total: 0, success: 0, rtCount: 0, rtSum: 0, dnsCount: 0, dnsSum: 0, connectCount: 0, connectSum: 0, tlsCount: 0, tlsSum: 0, ttfbCount: 0, ttfbSum: 0 }));
  for (const b of buckets) {
    const s = sums[Math.floor((b.at - from) / step)];
    if (!s) continue;
    for (const k of Object.keys(s) as Array<keyof typeof s>) s[k] += b[k];
  }
  const series: Series = { step, at: [], total: [], uptime: [], responseTime: [], dns: [], connect: [], tls: [], ttfb: [] };
  sums.forEach((s, i) => {
    series.at.push(from + i * step);
    series.total.push(s.total);
    series.uptime.push(s.total === 0 ? null : Math.round((s.success / s.total) * 100_000) / 1000);
    series.responseTime.push(avg(s.rtSum, s.rtCount));
    for (const p of PHASES) series[p].push(avg(s[`${p}Sum`], s[`${p}Count`]));
  });
  return series;
}

/** Down periods overlapping [from, to] from the state-change log (which includes the state in force at from). */
export function incidentsOf(changes: ReadonlyArray<{ at: number; status: string }>, from: number, now: number): Incident[] {
  const out: Incident[] = [];
  let open: number | null = null;
  for (const change of changes) {
    if (change.status === 'down' && open === null) open = Math.max(change.at, from);
    else if (change.status !== 'down' && open !== null) {
      out.push({ start: open, end: change.at, durationMs: change.at - open, error: null });
      open = null;
    }
  }
  if (open !== null) out.push({ start: open, end: null, durationMs: now - open, error: null });
  return out.reverse().slice(0, MAX_INCIDENTS);
}

/** Reads for charts: a check's series over a named range and its incidents. */
export class SeriesReader {
  constructor(
    private readonly rollups: Pick<RollupReads, 'buckets'>,
    private readonly stateChanges: Pick<StateChangeRepo, 'between'>,
    private readonly history: Pick<HistoryRepo, 'list'>,
  ) {}

  async series(seq: number, range: SeriesRange, now: number): Promise<{ from: number; to: number; series: Series; incidents: Incident[] }> {
    const { ms, level, step } = SERIES_RANGES[range];
    const to = Math.ceil((now + 1) / step) * step;
    const from = to - Math.ceil(ms / step) * step;
    const series = seriesOf(await this.rollups.buckets(seq, level, from, to), from, to, step);
    const incidents = incidentsOf(await this.stateChanges.between(seq, from, now), from, now);
    for (const incident of incidents) incident.error = await this.causeOf(seq, incident.start);
    return { from, to, series, incidents };
  }

  /** The newest failed result at or before the moment the check went down. */
  private async causeOf(seq: number, start: number): Promise<string | null> {
    const [row] = await this.history.list({ checkSeq: seq, from: start - CAUSE_WINDOW_MS, to: start, status: 'down', q: null }, { limit: 1, offset: 0, before: null });
    return row?.error ?? null;
  }
}
