import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIsoBound, parseIsoInstant } from '../../src/core/iso-date.js';

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

test('a date-only `to` bound is the last millisecond of its day; other bounds are the instant named', () => {
  assert.equal(parseIsoBound('2026-11-23', 'from'), Date.UTC(2026, 10, 23));
  assert.equal(parseIsoBound('2026-11-23', 'to'), Date.UTC(2026, 10, 24) - 1);
  assert.equal(parseIsoBound('2024-02-29', 'to'), Date.UTC(2024, 2, 1) - 1);
  assert.equal(parseIsoBound('2026-11-23T00:00:00Z', 'to'), Date.UTC(2026, 10, 23));
  assert.equal(parseIsoBound('2026-11-23T10:00+02:00', 'to'), Date.UTC(2026, 10, 23, 8));
  assert.ok(Number.isNaN(parseIsoBound('2026-02-30', 'to')));
});
