import { cronSchedule, nextRunAfter } from './cron.js';
import type { Cron } from 'croner';
import { hasAnyTag } from './tags.js';

/**
 * Scheduled maintenance windows (issue 27 item 2): a one-off span, or a cron schedule (5 fields,
 * in an IANA time zone, so 02:00 stays 02:00 local across daylight-saving changes) whose runs
 * each open a window of `durationMinutes`, optionally bounded by `startsAt`/`endsAt`.
 */
export interface MaintenanceWindow {
  id: string;
  accountId: string;
  title: string;
  description: string | null;
  checkIds: string[];
  folders: string[];
  tags: string[];
  allChecks: boolean;
  /** One-off: the start; recurring: no run before it (null: from creation on). */
  startsAt: number | null;
  /** One-off: the end; recurring: every occurrence is cut here (null: for ever). */
  endsAt: number | null;
  schedule: string | null;
  durationMinutes: number | null;
  timezone: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface Occurrence {
  start: number;
  end: number;
}

export const MAX_WINDOW_MINUTES = 10_080;
const MINUTE = 60_000;
/** Runs merged into one occurrence when they overlap: a bound on a degenerate schedule (every minute, 7 days long). */
const MAX_MERGED_RUNS = 500;

/** Croner instances, one per (schedule, zone): building one parses the pattern. */
const schedules = new Map<string, Cron>();
function cronOf(w: Pick<MaintenanceWindow, 'schedule' | 'timezone'>): Cron {
  const key = `${w.schedule}\n${w.timezone ?? 'UTC'}`;
  let cron = schedules.get(key);
  if (cron === undefined) {
    if (schedules.size > 1000) schedules.clear();
    cron = cronSchedule(w.schedule!, w.timezone ?? 'UTC');
    schedules.set(key, cron);
  }
  return cron;
}

/** The occurrence whose first run is `start`, merged with the runs that begin before it ends, cut at `endsAt`. */
function occurrenceFrom(w: MaintenanceWindow, cron: Cron, start: number): Occurrence {
  const length = w.durationMinutes! * MINUTE;
  let end = start + length;
  let last = start;
  for (let i = 0; i < MAX_MERGED_RUNS; i++) {
    const next = nextRunAfter(cron, last);
    if (next === null || next >= end) break;
    last = next;
    end = Math.max(end, next + length);
  }
  return { start, end: w.endsAt === null ? end : Math.min(end, w.endsAt) };
}

/** The occurrence in force at `at` (start <= at < end), or null. */
export function occurrenceAt(w: MaintenanceWindow, at: number): Occurrence | null {
  if (w.schedule === null) {
    return w.startsAt !== null && w.endsAt !== null && w.startsAt <= at && at < w.endsAt ? { start: w.startsAt, end: w.endsAt } : null;
  }
  if (w.endsAt !== null && at >= w.endsAt) return null;
  const cron = cronOf(w);
  const length = w.durationMinutes! * MINUTE;
  // The first run whose occurrence has not ended by `at`: after at - length (and not before startsAt).
  const from = Math.max(at - length, w.startsAt === null ? -Infinity : w.startsAt - 1);
  const start = nextRunAfter(cron, from);
  if (start === null || start > at) return null;
  const occurrence = occurrenceFrom(w, cron, start);
  return occurrence.end > at ? occurrence : null;
}

/** The occurrence in force at `at`, else the next one to begin; null when none is left. */
export function currentOrNext(w: MaintenanceWindow, at: number): Occurrence | null {
  const now = occurrenceAt(w, at);
  if (now !== null) return now;
  if (w.schedule === null) return w.startsAt !== null && w.startsAt > at ? { start: w.startsAt, end: w.endsAt! } : null;
  const from = Math.max(at, w.startsAt === null ? -Infinity : w.startsAt - 1);
  const start = nextRunAfter(cronOf(w), from);
  if (start === null || (w.endsAt !== null && start >= w.endsAt)) return null;
  return occurrenceFrom(w, cronOf(w), start);
}

/** When the window next starts or ends after `at` (what a scheduler waits for); null: never again. */
export function nextBoundary(w: MaintenanceWindow, at: number): number | null {
  const o = currentOrNext(w, at);
  if (o === null) return null;
  return o.start > at ? o.start : o.end;
}

/** True when the window covers the check (by id, folder, tag, or every check of its account). */
export function windowCovers(w: MaintenanceWindow, check: { id: string; accountId: string; folder: string | null; tags: readonly string[] }): boolean {
  if (check.accountId !== w.accountId) return false;
  if (w.allChecks) return true;
  return w.checkIds.includes(check.id) || (check.folder !== null && w.folders.includes(check.folder)) || hasAnyTag(check.tags, w.tags);
}
