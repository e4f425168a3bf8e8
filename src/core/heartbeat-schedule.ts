import type { Cron } from 'croner';
import { cronSchedule, nextRunAfter } from '../domain/cron.js';
import { cronInWords } from '../domain/cron-words.js';
import type { Check } from '../domain/records.js';
import { Lru } from '../util/lru.js';

/**
 * What the API and the dashboard say of a heartbeat on a cron schedule (issue 35 item 2): it
 * has no interval, its schedule in words, and when its next ping is expected. Schedules are
 * few and parsing one is the costly part, so each is parsed once.
 */

type Scheduled = Pick<Check, 'type' | 'schedule' | 'timezone' | 'disabled'>;

const crons = new Lru<string, Cron>(1_000);
const words = new Lru<string, string | null>(1_000);

/** A heartbeat whose pings are due on a cron schedule rather than every `interval`. */
export function onCronSchedule(check: Pick<Check, 'type' | 'schedule'>): boolean {
  return check.type === 'heartbeat' && check.schedule !== null;
}

/** The record's `interval` in minutes: null for a heartbeat on a cron schedule, which has none. */
export function intervalOf(check: Pick<Check, 'type' | 'schedule' | 'intervalMinutes'>): number | null {
  return onCronSchedule(check) ? null : check.intervalMinutes;
}

/** The schedule in words ("At 03:00, every day"); null without a schedule or for a shape not put in words. */
export function scheduleInWords(check: Pick<Check, 'type' | 'schedule'>): string | null {
  if (!onCronSchedule(check)) return null;
  const pattern = check.schedule!;
  let said = words.get(pattern);
  if (said === undefined) {
    said = cronInWords(pattern);
    words.set(pattern, said);
  }
  return said;
}

/** When the next ping is due (epoch ms): the schedule's next run after `now`; null without a schedule, paused, or ended. */
export function nextExpectedAt(check: Scheduled, now: number): number | null {
  if (!onCronSchedule(check) || check.disabled) return null;
  const key = `${check.timezone ?? 'UTC'} ${check.schedule}`;
  let cron = crons.get(key);
  if (cron === undefined) {
    try {
      cron = cronSchedule(check.schedule!, check.timezone);
    } catch {
      return null; // validated on save; a stored schedule croner no longer reads has no next run
    }
    crons.set(key, cron);
  }
  return nextRunAfter(cron, now);
}
