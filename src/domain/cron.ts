import { Cron } from 'croner';

/** A cron schedule evaluated in a time zone (croner handles DST gaps and repeats). */
export function cronSchedule(pattern: string, timezone: string | null): Cron {
  return new Cron(pattern, { paused: true, timezone: timezone ?? 'UTC' });
}

/** What a schedule may be, in the words of the error and of docs/api.md. */
export const CRON_FORMS =
  '5 fields (minute hour day-of-month month day-of-week), 6 (seconds first) or 7 (seconds first, year last), or a nickname (@hourly, @daily, @weekly, @monthly, @yearly)';

/** Why a pattern cannot be used, or null when it can. */
export function cronProblem(pattern: string, timezone: string | null): string | null {
  const trimmed = pattern.trim();
  const fields = trimmed === '' ? 0 : trimmed.split(/\s+/).length;
  // Counted here so that the message names every accepted form (croner's names only the counts)
  // and a date, which croner would take as a single run, is no schedule.
  if (!trimmed.startsWith('@') && (fields < 5 || fields > 7)) {
    return `it has ${fields} field${fields === 1 ? '' : 's'}; use ${CRON_FORMS}`;
  }
  try {
    const cron = cronSchedule(pattern, timezone);
    if (!cron.nextRun()) return 'it never runs';
    return null;
  } catch (err) {
    return (err as Error).message.replace(/^CronPattern: /, '');
  }
}

/** The first run strictly after `after`, epoch ms; null when the schedule has ended. */
export function nextRunAfter(cron: Cron, after: number): number | null {
  return cron.nextRun(new Date(after))?.getTime() ?? null;
}
