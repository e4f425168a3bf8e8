import type { CreateMaintenanceWindowInput } from '../core/schemas/maintenance-windows.js';
import { isTimeZone } from '../core/check-settings.js';
import { MAX_WINDOW_MINUTES } from '../domain/maintenance-windows.js';
import type { KumaMaintenance } from '../store/kuma-source.js';

/** A Kuma maintenance as a Vigil window (its checks are filled in by the importer), or why not. */
export type MaintenanceMapping =
  | { ok: true; input: Omit<CreateMaintenanceWindowInput, 'checkIds'>; notes: string[] }
  | { ok: false; reason: string };

const TIME = /^(\d{1,2}):(\d{2})/;
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?/;
const DAY_MINUTES = 24 * 60;

/**
 * Kuma's strategies: `single` becomes a one-off window; `cron`, `recurring-weekday`,
 * `recurring-day-of-month` and a daily `recurring-interval` become recurring ones (Kuma's date
 * range bounds them); `manual` and intervals of several days have no Vigil equivalent. Kuma's
 * dates and times are local to the window's time zone.
 */
export function mapMaintenance(m: KumaMaintenance): MaintenanceMapping {
  if (!m.active) return { ok: false, reason: 'paused in Kuma (Vigil windows cannot be paused): schedule it again when it is wanted' };
  const notes: string[] = [];
  let timezone = m.timezone ?? 'UTC';
  if (timezone === 'SAME_AS_SERVER' || !isTimeZone(timezone)) {
    notes.push(`time zone ${timezone}: Vigil needs an IANA zone; UTC is used (set timezone on the window if the Kuma server ran elsewhere)`);
    timezone = 'UTC';
  }
  const base = { title: m.title.slice(0, 200), ...(m.description ? { description: m.description.slice(0, 2000) } : {}) };
  const starts = m.startDate ? localInstant(m.startDate, timezone) : null;
  const ends = m.endDate ? localInstant(m.endDate, timezone) : null;
  const bounds = { ...(starts !== null ? { startsAt: new Date(starts).toISOString() } : {}), ...(ends !== null ? { endsAt: new Date(ends).toISOString() } : {}) };

  if (m.strategy === 'single') {
    if (starts === null || ends === null || ends <= starts) return { ok: false, reason: 'a one-off window without a valid start and end' };
    return { ok: true, input: { ...base, ...bounds }, notes };
  }
  if (m.strategy === 'manual') return { ok: false, reason: 'manual (active until stopped): use POST /v1/public/checks/{id}/maintenance, or a one-off window' };

  let schedule: string | null = null;
  let duration: number | null = null;
  if (m.strategy === 'cron') {
    schedule = m.cron?.trim() ?? null;
    duration = m.duration === null ? null : Math.round(m.duration / 60);
    if (schedule === null || schedule.split(/\s+/).length !== 5) return { ok: false, reason: `cron ${m.cron ?? '(none)'}: Vigil takes 5-field cron expressions` };
  } else {
    const times = dailyTimes(m);
    if (times === null) return { ok: false, reason: `${m.strategy} without a valid start and end time` };
    duration = times.minutes;
    const at = `${times.minute} ${times.hour}`;
    if (m.strategy === 'recurring-weekday') {
      if (m.weekdays.length === 0) return { ok: false, reason: 'recurring on weekdays, but none chosen' };
      schedule = `${at} * * ${m.weekdays.join(',')}`;
    } else if (m.strategy === 'recurring-day-of-month') {
      const days = m.daysOfMonth.filter((d): d is number => typeof d === 'number' && d >= 1 && d <= 31);
      const other = m.daysOfMonth.filter((d) => !days.includes(d as number));
      if (other.length > 0) notes.push(`days ${other.join(', ')} (from the end of the month): Vigil's cron names days 1 to 31 only`);
      if (days.length === 0) return { ok: false, reason: 'recurring on days of the month counted from its end: Vigil\'s 5-field cron cannot say that' };
      schedule = `${at} ${days.join(',')} * *`;
    } else if (m.strategy === 'recurring-interval') {
      if (m.intervalDay !== 1) return { ok: false, reason: `every ${m.intervalDay ?? '?'} days: a 5-field cron cannot count days from a start date` };
      schedule = `${at} * * *`;
    } else {
      return { ok: false, reason: `strategy ${m.strategy}: Vigil has no equivalent` };
    }
  }
  if (duration === null || duration < 1) return { ok: false, reason: 'a recurring window without a duration' };
  if (duration > MAX_WINDOW_MINUTES) {
    notes.push(`duration ${duration} minutes: Vigil windows last at most ${MAX_WINDOW_MINUTES}`);
    duration = MAX_WINDOW_MINUTES;
  }
  return { ok: true, input: { ...base, ...bounds, schedule, durationMinutes: duration, timezone }, notes };
}

/** Start hour and minute and the length in minutes of Kuma's daily start and end times (an end before the start is the next day). */
function dailyTimes(m: KumaMaintenance): { hour: number; minute: number; minutes: number } | null {
  const start = m.startTime ? TIME.exec(m.startTime) : null;
  const end = m.endTime ? TIME.exec(m.endTime) : null;
  if (!start || !end) return null;
  const from = Number(start[1]) * 60 + Number(start[2]);
  const to = Number(end[1]) * 60 + Number(end[2]);
  if (from >= DAY_MINUTES || to > DAY_MINUTES) return null;
  const minutes = to > from ? to - from : to + DAY_MINUTES - from;
  return { hour: Math.floor(from / 60), minute: from % 60, minutes };
}

/**
 * Epoch ms of a local date-time in an IANA zone: the earlier of two in a repeated hour, and in
 * a skipped hour the instant the clock would show had it not jumped (so later than asked).
 */
export function localInstant(local: string, timeZone: string): number | null {
  const m = LOCAL.exec(local);
  if (!m) return null;
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
  // The zone's offsets a day either side cover any change in between.
  const before = wall - offsetAt(wall - 86_400_000, timeZone);
  const after = wall - offsetAt(wall + 86_400_000, timeZone);
  const real = [before, after].filter((at) => at + offsetAt(at, timeZone) === wall);
  return real.length > 0 ? Math.min(...real) : before;
}

const formats = new Map<string, Intl.DateTimeFormat>();
function offsetAt(instant: number, timeZone: string): number {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formats.set(timeZone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(instant)).map((x) => [x.type, x.value]));
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return asUtc - Math.floor(instant / 1000) * 1000;
}
