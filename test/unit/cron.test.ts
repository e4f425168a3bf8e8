import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CRON_FORMS, cronProblem } from '../../src/domain/cron.js';

test('schedules of 5, 6 or 7 fields and the nicknames are accepted', () => {
  for (const pattern of ['*/5 * * * *', '0 */5 * * * *', '0 0 12 * * MON 2030', '@hourly', '@daily', '@weekly', '@monthly', '@yearly', '  0 3 * * *  ']) {
    assert.equal(cronProblem(pattern, null), null, pattern);
  }
});

test('any other number of fields says which forms are accepted, in the words of the docs', () => {
  for (const [pattern, fields] of [['', 0], ['nope', 1], ['* *', 2], ['1 2 3 4', 4], ['0 0 0 1 1 * 2030 x', 8], ['2030-01-01T00:00:00', 1]] as const) {
    assert.equal(cronProblem(pattern, null), `it has ${fields} field${fields === 1 ? '' : 's'}; use ${CRON_FORMS}`, JSON.stringify(pattern));
  }
  const api = readFileSync(fileURLToPath(new URL('../../../docs/api.md', import.meta.url)), 'utf8');
  assert.ok(api.replace(/`/g, '').replace(/\s+/g, ' ').includes(CRON_FORMS), 'docs/api.md names the same forms');
});

test('a pattern of the right size but a bad field is explained by croner', () => {
  assert.match(cronProblem('99 * * * *', null)!, /minute/i);
  assert.equal(cronProblem('0 0 30 2 *', null), 'it never runs');
});
