/**
 * Time spent in each state, and incidents, from a state-change log (decisions 6).
 *
 * Each entry holds from its `at` until the next entry: feeding it state changes or raw
 * results gives the same answer, which is the multi-range rule "time between two
 * consecutive results belongs to the state of the earlier one". The last entry holds until
 * the end of the window, so pass `to` already clamped to now.
 */

export type MonitorStatus = 'up' | 'down' | 'paused' | 'pending';

export interface StateChange {
  /** Epoch ms. */
  at: number;
  status: MonitorStatus;
}

/** Half-open [from, to), epoch ms. */
export interface TimeWindow {
  from: number;
  to: number;
}

/** Spec 2.5 `incidents`; all times in seconds. */
export interface IncidentStats {
  count: number;
  totalDowntime: number;
  mttr: number;
  mtbf: number;
}

export interface DurationStats {
  totalDurationMs: number;
  onlineDurationMs: number;
  offlineDurationMs: number;
  /** online / (online + offline) × 100; null when no state is known anywhere in the window. */
  uptimePercentage: number | null;
  incidents: IncidentStats;
}

/**
 * `changes` ascend by `at` and may start before the window (the last one at or before
 * `from` sets the state there). `prior` is the state before the first entry, if known;
 * time in no known state, and time paused or pending, is neither online nor offline.
 * An incident is a maximal run of `down`; it counts when it overlaps the window by more
 * than zero time.
 */
export function computeDurations(
  changes: readonly StateChange[],
  window: TimeWindow,
  prior: MonitorStatus | null = null,
): DurationStats {
  const { from, to } = window;
  if (!(from <= to)) throw new RangeError(`window starts after it ends: ${from} > ${to}`);

  let online = 0;
  let offline = 0;
  let incidents = 0;
  let state: MonitorStatus | null = prior;
  let since = Number.NEGATIVE_INFINITY;
  let downSince = prior === 'down' ? Number.NEGATIVE_INFINITY : Number.NaN;

  const overlap = (start: number, end: number): number => Math.min(end, to) - Math.max(start, from);
  const closeSegment = (end: number): void => {
    const span = overlap(since, end);
    if (span <= 0) return;
    if (state === 'up') online += span;
    else if (state === 'down') offline += span;
  };

  for (let i = 0; i < changes.length; i++) {
    const change = changes[i] as StateChange;
    if (change.at < since) throw new RangeError('state changes must be in ascending time order');
    // Of entries sharing one instant only the last is ever in force.
    if (changes[i + 1]?.at === change.at) continue;
    closeSegment(change.at);
    if (state === 'down' && change.status !== 'down') {
      if (overlap(downSince, change.at) > 0) incidents++;
    } else if (state !== 'down' && change.status === 'down') {
      downSince = change.at;
    }
    state = change.status;
    since = change.at;
    if (since >= to) break;
  }
  closeSegment(Number.POSITIVE_INFINITY);
  if (state === 'down' && overlap(downSince, Number.POSITIVE_INFINITY) > 0) incidents++;

  const totalDowntime = offline / 1000;
  return {
    totalDurationMs: to - from,
    onlineDurationMs: online,
    offlineDurationMs: offline,
    uptimePercentage: online + offline === 0 ? null : (online / (online + offline)) * 100,
    incidents: {
      count: incidents,
      totalDowntime,
      mttr: incidents === 0 ? 0 : totalDowntime / incidents,
      mtbf: online / 1000 / Math.max(incidents, 1),
    },
  };
}
