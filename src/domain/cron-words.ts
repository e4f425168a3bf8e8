/**
 * A cron schedule in words (issue 35 item 2), for people reading a heartbeat's page: "At 03:00,
 * every day", "Every 15 minutes, Monday to Friday". Common shapes only; null for the rest, which
 * are shown as the expression alone (words that were wrong would be worse than none).
 */

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAY_NAMES = new Map(DAYS.map((d, i) => [d.slice(0, 3).toLowerCase(), i]));
const MONTH_NAMES = new Map(MONTHS.map((m, i) => [m.slice(0, 3).toLowerCase(), i + 1]));

const NICKNAMES = new Map([
  ['@yearly', '0 0 1 1 *'], ['@annually', '0 0 1 1 *'], ['@monthly', '0 0 1 * *'], ['@weekly', '0 0 * * 0'],
  ['@daily', '0 0 * * *'], ['@midnight', '0 0 * * *'], ['@hourly', '0 * * * *'],
]);

/** A field as single values and ranges, or null when it uses steps, `L`, `W`, `#` or `?`-like forms. */
type Parts = Array<number | [number, number]>;

function parts(field: string, names?: Map<string, number>): Parts | null {
  const out: Parts = [];
  for (const piece of field.split(',')) {
    const bounds = piece.split('-');
    if (bounds.length > 2) return null;
    const values = bounds.map((b) => (/^\d+$/.test(b) ? Number(b) : names?.get(b.toLowerCase()) ?? NaN));
    if (values.some(Number.isNaN)) return null;
    out.push(values.length === 1 ? values[0]! : [values[0]!, values[1]!]);
  }
  return out;
}

const pad = (n: number) => String(n).padStart(2, '0');
const every = (n: number, unit: string) => (n === 1 ? `every ${unit}` : `every ${n} ${unit}s`);

function list(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

function named(p: Parts, names: readonly string[], offset: number): string | null {
  const words: string[] = [];
  for (const v of p) {
    const word = (n: number) => names[(n - offset) % names.length];
    if (typeof v === 'number') {
      if (word(v) === undefined) return null;
      words.push(word(v)!);
    } else {
      if (word(v[0]) === undefined || word(v[1]) === undefined) return null;
      words.push(`${word(v[0])} to ${word(v[1])}`);
    }
  }
  return list(words);
}

function numbers(p: Parts): string {
  return list(p.map((v) => (typeof v === 'number' ? String(v) : `${v[0]} to ${v[1]}`)));
}

/** The time of day part, or null. */
function timeWords(minute: string, hour: string): string | null {
  const step = /^\*\/(\d+)$/;
  if (minute === '*' && hour === '*') return 'every minute';
  const minuteStep = step.exec(minute);
  if (minuteStep && hour === '*') return every(Number(minuteStep[1]), 'minute');
  if (!/^\d+$/.test(minute)) return null;
  const m = Number(minute);
  if (hour === '*') return m === 0 ? 'every hour, on the hour' : `every hour at minute ${m}`;
  const hourStep = step.exec(hour);
  if (hourStep) return `${every(Number(hourStep[1]), 'hour')} at minute ${m}`;
  const hours = parts(hour);
  if (!hours || hours.length > 6) return null;
  const times: string[] = [];
  for (const h of hours) {
    if (typeof h === 'number') times.push(`${pad(h)}:${pad(m)}`);
    else return hours.length === 1 ? `every hour from ${pad(h[0])}:${pad(m)} to ${pad(h[1])}:${pad(m)}` : null;
  }
  return `at ${list(times)}`;
}

/** The days part, or null; "" for every day of every month. */
function dayWords(dom: string, month: string, dow: string): string | null {
  const any = (f: string) => f === '*' || f === '?';
  let days: string;
  if (any(dom) && any(dow)) days = 'every day';
  else if (any(dom)) {
    const d = parts(dow, DAY_NAMES);
    const words = d && named(d, DAYS, 0);
    if (!words) return null;
    days = words;
  } else if (any(dow)) {
    const d = parts(dom);
    if (!d) return null;
    days = d.length === 1 && typeof d[0] === 'number' ? `on day ${d[0]} of the month` : `on days ${numbers(d)} of the month`;
  } else return null; // both set: cron runs on either, which no short sentence says well
  if (any(month)) return days;
  const m = parts(month, MONTH_NAMES);
  const words = m && named(m, MONTHS, 1);
  return words ? `${days}, in ${words}` : null;
}

/** The schedule in words, e.g. "At 03:00, every day"; null when its shape is not a common one. */
export function cronInWords(pattern: string): string | null {
  const trimmed = pattern.trim().toLowerCase();
  let fields = (NICKNAMES.get(trimmed) ?? trimmed).split(/\s+/);
  // Seconds first (6 or 7 fields): described only when they are 0; a year last only when any.
  if (fields.length === 7) {
    if (fields[6] !== '*') return null;
    fields = fields.slice(0, 6);
  }
  if (fields.length === 6) {
    if (fields[0] !== '0') return null;
    fields = fields.slice(1);
  }
  if (fields.length !== 5) return null;
  const [minute, hour, dom, month, dow] = fields as [string, string, string, string, string];
  const time = timeWords(minute, hour);
  const days = dayWords(dom, month, dow);
  if (time === null || days === null) return null;
  const sentence = days === 'every day' && time.startsWith('every') ? time : `${time}, ${days}`;
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}
