const ISO = /^(\d{4})-(\d{2})-(\d{2})([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Epoch milliseconds of an ISO 8601 date or date-time, or NaN when it is not one. Date.parse
 * alone would take "3" or "March 5", and rolls an impossible day (February 30) into the next
 * month; both are refused here.
 */
export function parseIsoInstant(value: string): number {
  const m = ISO.exec(value);
  if (!m) return NaN;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCFullYear() !== year || calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return NaN;
  return Date.parse(value);
}

const DAY_MS = 86_400_000;

/**
 * A `from`/`to` bound in epoch milliseconds (NaN when not ISO 8601). Bounds are inclusive, so a
 * date-only `to` names its whole day and ends at the day's last millisecond (UTC):
 * `from=2026-11-23&to=2026-11-23` is that day, not an empty window.
 */
export function parseIsoBound(value: string, bound: 'from' | 'to'): number {
  const ms = parseIsoInstant(value);
  return bound === 'to' && isDateOnly(value) ? ms + DAY_MS - 1 : ms;
}

function isDateOnly(value: string): boolean {
  return ISO.exec(value)?.[4] === undefined;
}
