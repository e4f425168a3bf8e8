import type { Check } from '../domain/records.js';
import { liveCheck } from '../monitor/live-check.js';
import type { Observation, Recorder } from '../monitor/recorder.js';
import type { KumaBeat } from '../store/kuma-source.js';

/** Kuma heartbeat statuses (manifest `db`): 3 is maintenance, which Vigil's history does not record as a result. */
const UP = 1;
const MAINTENANCE = 3;

/** One Kuma heartbeat as the observation a live probe or ping would have made. */
export function observationOf(check: Pick<Check, 'type'>, beat: KumaBeat): Observation {
  const ok = beat.status === UP;
  if (check.type === 'heartbeat') {
    return ok
      ? { kind: 'ping', signal: 'ping', error: null, details: {}, region: null, paused: false }
      : { kind: 'missed', error: beat.msg || 'No push received in time (Uptime Kuma)', region: null };
  }
  return {
    kind: 'probe',
    region: null,
    peer: null,
    result: {
      ok, statusCode: null, responseTime: beat.ping, timing: null, error: ok ? null : beat.msg || 'Down (Uptime Kuma)',
      snippet: null, ssl: null, location: null, startedAt: beat.at,
    },
  };
}

/**
 * `--with-history`: replays a monitor's Kuma heartbeats, oldest first, through the recorder
 * live results use, so history rows, the status log and rollups come out as if Vigil had
 * probed. No alert sink is attached: old outages are history, not news. Returns how many.
 */
export function replayHistory(recorder: Recorder, check: Check, beats: KumaBeat[]): number {
  const policy = { downConfirmationAttempts: check.downConfirmationAttempts, immediateRecheckEnabled: false, responseTimeLimit: check.responseTimeLimit };
  const live = liveCheck(check, policy, check.accountId, undefined, beats[0]?.at ?? 0);
  let count = 0;
  for (const beat of beats) {
    if (beat.status === MAINTENANCE || !Number.isFinite(beat.at)) continue;
    recorder.record(live, observationOf(check, beat), beat.at);
    count++;
  }
  return count;
}
