import { displayName } from '../domain/display-name.js';
import { uniqueTags } from '../domain/tags.js';
import { instant, type WindowView } from '../core/maintenance-windows-service.js';
import type { MaintenanceWindowEntryInput } from './file-schema.js';

/**
 * A maintenance window as a monitoring file says it (issue 30), in the service's own
 * normalisation so that what the file says and what the account holds compare field by field:
 * checks by key, instants as ISO strings in UTC, a recurring window's time zone UTC by default.
 */
export interface WindowState {
  title: string;
  description: string | null;
  checks: string[];
  folders: string[];
  tags: string[];
  allChecks: boolean;
  startsAt: string | null;
  endsAt: string | null;
  schedule: string | null;
  durationMinutes: number | null;
  timezone: string | null;
}

/** What an entry declares: a field left out has its create default. The rules across fields (timing, a target) are the service's. */
export function windowState(entry: MaintenanceWindowEntryInput): WindowState {
  const schedule = entry.schedule?.trim() || null;
  return {
    title: displayName(entry.title, 'title'),
    description: entry.description?.trim() || null,
    checks: [],
    folders: [...new Set((entry.folders ?? []).map((f) => f.trim()))].filter((f) => f !== ''),
    tags: uniqueTags(entry.tags ?? []),
    allChecks: entry.allChecks ?? false,
    startsAt: isoOf(entry.startsAt, 'startsAt'),
    endsAt: isoOf(entry.endsAt, 'endsAt'),
    schedule,
    durationMinutes: entry.durationMinutes ?? null,
    timezone: entry.timezone ?? (schedule === null ? null : 'UTC'),
  };
}

/** A stored window as the same state (its checks named by `keyOf`, checks without a key left out). */
export function windowStateOf(w: WindowView, keysOf: (ids: readonly string[]) => string[]): WindowState {
  return {
    title: w.title, description: w.description, checks: keysOf(w.checkIds), folders: w.folders, tags: w.tags, allChecks: w.allChecks,
    startsAt: w.startsAt, endsAt: w.endsAt, schedule: w.schedule, durationMinutes: w.durationMinutes, timezone: w.timezone,
  };
}

/** The fields a file needs to say: those that differ from the create defaults (its title always). */
export function writtenWindow(state: WindowState): Record<string, unknown> {
  const { title, description, checks, folders, tags, allChecks, startsAt, endsAt, schedule, durationMinutes, timezone } = state;
  return {
    title,
    ...(description === null ? {} : { description }),
    ...(checks.length ? { checks } : {}),
    ...(folders.length ? { folders } : {}),
    ...(tags.length ? { tags } : {}),
    ...(allChecks ? { allChecks } : {}),
    ...(startsAt === null ? {} : { startsAt }),
    ...(endsAt === null ? {} : { endsAt }),
    ...(schedule === null ? {} : { schedule }),
    ...(durationMinutes === null ? {} : { durationMinutes }),
    ...(timezone === null || (schedule !== null && timezone === 'UTC') ? {} : { timezone }),
  };
}

function isoOf(value: string | null | undefined, field: string): string | null {
  const ms = instant(value ?? null, field);
  return ms === null ? null : new Date(ms).toISOString();
}
