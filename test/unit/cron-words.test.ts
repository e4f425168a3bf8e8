import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cronInWords } from '../../src/domain/cron-words.js';

test('common cron shapes in words (issue 35 item 2)', () => {
  const cases: Array<[string, string | null]> = [
    ['0 3 * * *', 'At 03:00, every day'],
    ['30 2 * * 1-5', 'At 02:30, Monday to Friday'],
    ['0 9,17 * * *', 'At 09:00 and 17:00, every day'],
    ['*/15 * * * *', 'Every 15 minutes'],
    ['* * * * *', 'Every minute'],
    ['0 * * * *', 'Every hour, on the hour'],
    ['5 */6 * * *', 'Every 6 hours at minute 5'],
    ['0 4 1 * *', 'At 04:00, on day 1 of the month'],
    ['0 4 1,15 * *', 'At 04:00, on days 1 and 15 of the month'],
    ['0 0 1 1 *', 'At 00:00, on day 1 of the month, in January'],
    ['0 22 * * sun', 'At 22:00, Sunday'],
    ['0 22 * * 7', 'At 22:00, Sunday'],
    ['@daily', 'At 00:00, every day'],
    ['@hourly', 'Every hour, on the hour'],
    ['0 0 3 * * *', 'At 03:00, every day'],
    ['0 9 1-7 * 1', null],
    ['15 3 L * *', null],
    ['30 0 3 * * *', null],
    ['0 3 * * 1#2', null],
  ];
  for (const [pattern, words] of cases) assert.equal(cronInWords(pattern), words, pattern);
});
