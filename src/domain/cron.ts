import { Cron } from 'croner';

/** A cron schedule evaluated in a time zone (croner handles DST gaps and repeats). */
export function cronSchedule(pattern: string, timezone: string | null): Cron {
  return new Cron(pattern, { paused: true, timezone: timezone ?? 'UTC' });
}

/** Why a pattern cannot be used, or null when it can. */
export function cronProblem(pattern: string, timezone: string | null): string | null {
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
