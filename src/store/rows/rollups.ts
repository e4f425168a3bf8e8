import { isRecordable } from '../../domain/histogram.js';
import { DAY_MS } from '../../domain/cover.js';
import { HOUR_MS, MINUTE_MS, PHASES, type RollupRow, type RollupSample } from '../../domain/rollup.js';
import type { RollupLevel } from '../rollup-store.js';

/** Each level's table, and its bucket in ms. */
export const ROLLUP_TABLE: Record<RollupLevel, string> = { minute: 'rollup_minute', hour: 'rollup_hour', day: 'rollup_day' };
export const BUCKET_MS: Record<RollupLevel, number> = { minute: MINUTE_MS, hour: HOUR_MS, day: DAY_MS };

/** What a rollup column holds: a count, a time in ms (sum, min or max), or a serialized histogram. */
export type RollupValue = 'count' | 'time' | 'histogram';

/** Column name, RollupRow field and what it holds, in table order after (check_seq, at). */
export const ROLLUP_COLUMNS: ReadonlyArray<readonly [column: string, field: keyof RollupRow, value: RollupValue]> = [
  ['total', 'total', 'count'],
  ['success', 'success', 'count'],
  ['failure', 'failure', 'count'],
  ['rt_count', 'rtCount', 'count'],
  ['rt_sum', 'rtSum', 'time'],
  ['rt_min', 'rtMin', 'time'],
  ['rt_max', 'rtMax', 'time'],
  ['rt_hist', 'rtHist', 'histogram'],
  ...PHASES.flatMap((p) => [
    [`${p}_count`, `${p}Count`, 'count'],
    [`${p}_sum`, `${p}Sum`, 'time'],
    [`${p}_hist`, `${p}Hist`, 'histogram'],
  ] as const),
];

/**
 * The sample a result feeds a rollup. A time no histogram can hold (negative, NaN, infinite)
 * is dropped rather than thrown, identically for live results and raw rows read back, so a
 * bad probe reading can neither lose its result nor make the two paths disagree.
 */
export function sampleOf(ok: boolean, responseTime: number | null, timing: RollupSample['timing']): RollupSample {
  return {
    ok,
    responseTime: responseTime !== null && isRecordable(responseTime) ? responseTime : null,
    timing: timing !== null && PHASES.every((p) => isRecordable(timing[p])) ? timing : null,
  };
}

/** The histogram columns, response time first then PHASES' (RollupRow's order). */
export const HISTOGRAM_COLUMNS = ROLLUP_COLUMNS.filter(([, , value]) => value === 'histogram').map(([column]) => column);
