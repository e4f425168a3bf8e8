import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIsoInstant } from '../../src/core/iso-date.js';

test('ISO 8601 dates and date-times parse to epoch milliseconds', () => {
  assert.equal(parseIsoInstant('2026-03-01'), Date.UTC(2026, 2, 1));
  assert.equal(parseIsoInstant('2024-02-29T12:30:00Z'), Date.UTC(2024, 1, 29, 12, 30));
  assert.equal(parseIsoInstant('2026-03-01T10:00:00+02:00'), Date.UTC(2026, 2, 1, 8));
  assert.equal(parseIsoInstant('2026-03-01t10:00:00.250z'), Date.UTC(2026, 2, 1, 10, 0, 0, 250));
});

test('days that do not exist, other formats and out-of-range fields are NaN, never a neighbouring day', () => {
  for (const value of ['2026-02-30', '2025-02-29T00:00:00Z', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00', '2026-01-01T23:60:00Z', 'March 5', '3', '', '2026-1-5']) {
    assert.ok(Number.isNaN(parseIsoInstant(value)), value);
  }
});
