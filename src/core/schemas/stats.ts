import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { IsoDate } from './common.js';

export const StatsQuerySchema = Type.Object({
  from: Type.Optional(Type.String({ description: 'ISO 8601, inclusive; default 24 hours before `to`. Ignored with `ranges`' })),
  to: Type.Optional(Type.String({ description: 'ISO 8601, inclusive; default now' })),
  ranges: Type.Optional(
    Type.String({ description: 'Comma-separated, at most 5 of 1h, 6h, 1d, 7d, 30d, 60d, 90d; switches to multi-range statistics' }),
  ),
});
export type StatsQuery = Static<typeof StatsQuerySchema>;

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Ms = (description?: string) => Nullable(Type.Number({ description: description ?? 'Milliseconds; null without data' }));

const PhaseStats = Type.Object({ average: Ms(), p95: Ms() });

export const SingleRangeStats = Type.Object(
  {
    checkId: Type.String(),
    period: Type.Object({ from: IsoDate, to: IsoDate }),
    uptime: Type.Object({
      percentage: Nullable(Type.Number({ description: 'successfulChecks / totalChecks × 100; null without results' })),
      totalChecks: Type.Integer(),
      successfulChecks: Type.Integer(),
      failedChecks: Type.Integer(),
    }),
    responseTime: Type.Object(
      { average: Ms(), min: Ms(), max: Ms(), p50: Ms(), p90: Ms(), p95: Ms(), p99: Ms() },
      { description: 'Successful probes only; percentiles within 1% of the exact value' },
    ),
    timing: Type.Object({ dns: PhaseStats, connect: PhaseStats, tls: PhaseStats, ttfb: PhaseStats }),
    incidents: Type.Object({
      count: Type.Integer({ description: 'Down periods overlapping the range' }),
      totalDowntime: Type.Number({ description: 'Seconds down inside the range' }),
      mtbf: Type.Number({ description: 'Seconds up inside the range / max(count, 1)' }),
      mttr: Type.Number({ description: 'totalDowntime / count; 0 without incidents' }),
    }),
  },
  { $id: 'SingleRangeStats' },
);
export type SingleRangeStats = Static<typeof SingleRangeStats>;

export const RangeStats = Type.Object(
  {
    totalChecks: Type.Integer(),
    onlineChecks: Type.Integer(),
    offlineChecks: Type.Integer(),
    uptimePercentage: Nullable(Type.Number({ description: 'online / (online + offline) duration × 100; null without data' })),
    totalDurationMs: Type.Number(),
    onlineDurationMs: Type.Number(),
    offlineDurationMs: Type.Number(),
    responseSampleCount: Type.Integer(),
    avgResponseTime: Ms(),
    minResponseTime: Ms(),
    maxResponseTime: Ms(),
  },
  { $id: 'RangeStats' },
);
export type RangeStats = Static<typeof RangeStats>;

export const MultiRangeStats = Type.Record(Type.String(), RangeStats, { description: 'Keyed by range name, in request order' });
export type MultiRangeStats = Static<typeof MultiRangeStats>;

export const StatsResponse = Type.Object({ data: Type.Union([SingleRangeStats, MultiRangeStats]) });

export const RangeErrorBody = Type.Object(
  { error: Type.String({ description: 'Lists the offending values and the allowed set, or the 5-range limit' }) },
  { $id: 'RangeError' },
);
