import type { Check } from '../domain/records.js';
import type { Store } from '../store/store.js';

/**
 * In maintenance: a scheduled window is in force for the check, or manual maintenance is on
 * (one with an `until` in the past has ended, whether or not anything wrote that down).
 */
export function inMaintenance(check: Pick<Check, 'maintenance' | 'maintenanceUntil' | 'windowMaintenance'>, now: number): boolean {
  return check.windowMaintenance || (check.maintenance && (check.maintenanceUntil === null || check.maintenanceUntil > now));
}

/**
 * The `until` of a monitor's maintenance window that has run out, which it then forgets
 * (null when there is none): the caller writes the end down with `endLapsedMaintenance`.
 */
export function takeLapsedMaintenance(watch: { maintenance: boolean; maintenanceUntil: number | null }, now: number): number | null {
  const until = watch.maintenanceUntil;
  if (!watch.maintenance || until === null || until > now) return null;
  watch.maintenance = false;
  return until;
}

/**
 * Ends a maintenance window that ran out, in the store, with its `maintenance_end` event dated
 * at `until`, as if it had been switched off then. Inside the writer's transaction; a window
 * already ended or changed since is left alone.
 */
export function endLapsedMaintenance(store: Pick<Store, 'checks' | 'history'>, check: { id: string; seq: number }, until: number): void {
  const current = store.checks.byId(check.id);
  if (!current || !current.maintenance || current.maintenanceUntil !== until) return;
  store.checks.setMaintenance(check.id, false, null, until);
  store.history.insertEvent({
    checkSeq: check.seq, at: until, status: 'maintenance_end', region: null,
    meta: { event: 'maintenance_off', until: new Date(until).toISOString() },
  });
}
