import { test } from 'node:test';
import assert from 'node:assert/strict';
import { currentOrNext, nextBoundary, occurrenceAt, windowCovers, type MaintenanceWindow } from '../../src/domain/maintenance-windows.js';

const H = 3_600_000;
const utc = (iso: string) => Date.parse(iso);
const window = (over: Partial<MaintenanceWindow>): MaintenanceWindow => ({
  id: 'mw_1', accountId: 'acc_1', title: 'w', description: null, checkIds: [], folders: [], tags: [], allChecks: true,
  startsAt: null, endsAt: null, schedule: null, durationMinutes: null, timezone: null, createdAt: 0, updatedAt: 0, ...over,
});

test('a one-off window: in force from startsAt (inclusive) to endsAt (exclusive)', () => {
  const w = window({ startsAt: utc('2026-06-01T10:00:00Z'), endsAt: utc('2026-06-01T11:00:00Z') });
  assert.equal(occurrenceAt(w, utc('2026-06-01T09:59:59Z')), null);
  assert.deepEqual(occurrenceAt(w, utc('2026-06-01T10:00:00Z')), { start: w.startsAt, end: w.endsAt });
  assert.equal(occurrenceAt(w, utc('2026-06-01T11:00:00Z')), null);
  assert.deepEqual(currentOrNext(w, utc('2026-06-01T09:00:00Z')), { start: w.startsAt, end: w.endsAt });
  assert.equal(currentOrNext(w, utc('2026-06-01T11:00:00Z')), null);
  assert.equal(nextBoundary(w, utc('2026-06-01T09:00:00Z')), w.startsAt);
  assert.equal(nextBoundary(w, utc('2026-06-01T10:30:00Z')), w.endsAt);
});

test('a recurring window keeps its local time across daylight-saving changes (Europe/Berlin, both ways)', () => {
  // Mondays 09:00 for an hour. Berlin is UTC+2 in summer and UTC+1 in winter.
  const w = window({ schedule: '0 9 * * 1', durationMinutes: 60, timezone: 'Europe/Berlin' });
  // Autumn: the clocks go back on Sunday 25 October 2026.
  assert.deepEqual(currentOrNext(w, utc('2026-10-18T00:00:00Z')), { start: utc('2026-10-19T07:00:00Z'), end: utc('2026-10-19T08:00:00Z') });
  assert.deepEqual(currentOrNext(w, utc('2026-10-20T00:00:00Z')), { start: utc('2026-10-26T08:00:00Z'), end: utc('2026-10-26T09:00:00Z') });
  assert.deepEqual(occurrenceAt(w, utc('2026-10-26T08:30:00Z')), { start: utc('2026-10-26T08:00:00Z'), end: utc('2026-10-26T09:00:00Z') });
  assert.equal(occurrenceAt(w, utc('2026-10-26T07:30:00Z')), null, '07:30 UTC is 08:30 local after the change: not yet');
  // Spring: the clocks go forward on Sunday 29 March 2026.
  assert.deepEqual(currentOrNext(w, utc('2026-03-24T00:00:00Z')), { start: utc('2026-03-30T07:00:00Z'), end: utc('2026-03-30T08:00:00Z') });
  assert.deepEqual(currentOrNext(w, utc('2026-03-17T00:00:00Z')), { start: utc('2026-03-23T08:00:00Z'), end: utc('2026-03-23T09:00:00Z') });
});

test('a 02:00 Sunday window in Berlin stays at 02:00 local; the duration is elapsed time', () => {
  const w = window({ schedule: '0 2 * * 0', durationMinutes: 120, timezone: 'Europe/Berlin' });
  assert.deepEqual(currentOrNext(w, utc('2026-10-12T00:00:00Z')), { start: utc('2026-10-18T00:00:00Z'), end: utc('2026-10-18T02:00:00Z') });
  assert.deepEqual(currentOrNext(w, utc('2026-10-26T00:00:00Z')), { start: utc('2026-11-01T01:00:00Z'), end: utc('2026-11-01T03:00:00Z') });
});

test('startsAt and endsAt bound a recurring window; endsAt cuts an occurrence short', () => {
  const w = window({ schedule: '0 * * * *', durationMinutes: 30, timezone: 'UTC', startsAt: utc('2026-06-01T10:15:00Z'), endsAt: utc('2026-06-01T12:10:00Z') });
  assert.equal(occurrenceAt(w, utc('2026-06-01T10:20:00Z')), null, 'the 10:00 run is before startsAt');
  assert.deepEqual(currentOrNext(w, utc('2026-06-01T10:20:00Z')), { start: utc('2026-06-01T11:00:00Z'), end: utc('2026-06-01T11:30:00Z') });
  assert.deepEqual(occurrenceAt(w, utc('2026-06-01T12:05:00Z')), { start: utc('2026-06-01T12:00:00Z'), end: utc('2026-06-01T12:10:00Z') });
  assert.equal(currentOrNext(w, utc('2026-06-01T12:10:00Z')), null, 'nothing after endsAt');
});

test('runs closer together than the duration merge into one occurrence', () => {
  const w = window({ schedule: '*/10 * * * *', durationMinutes: 15, timezone: 'UTC' });
  const o = occurrenceAt(w, utc('2026-06-01T10:05:00Z'))!;
  assert.equal(o.start <= utc('2026-06-01T10:05:00Z'), true);
  assert.ok(o.end - o.start >= 10 * H, 'back to back for hours (bounded)');
});

test('a window covers checks by id, folder, tag or all of its account', () => {
  const check = { id: 'chk_1', accountId: 'acc_1', folder: 'db', tags: ['Env:Prod'] };
  assert.equal(windowCovers(window({}), check), true);
  assert.equal(windowCovers(window({ accountId: 'acc_2' }), check), false);
  assert.equal(windowCovers(window({ allChecks: false, checkIds: ['chk_1'] }), check), true);
  assert.equal(windowCovers(window({ allChecks: false, folders: ['db'] }), check), true);
  assert.equal(windowCovers(window({ allChecks: false, tags: ['env'] }), check), true);
  assert.equal(windowCovers(window({ allChecks: false, tags: ['env:dev'], folders: ['web'] }), check), false);
});
