import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CHECK_FIELDS } from '../../src/domain/check-fields.js';
import { CreateCheckBody } from '../../src/core/schemas/checks.js';
import { applyInput, DEFAULT_SETTINGS } from '../../src/core/check-settings.js';
import { settingsOfPatch } from '../../src/core/check-patch.js';
import { fieldsOfSettings } from '../../src/as-code/check-fields.js';
import { rowToCheck, SETTINGS_COLUMNS, settingsValues, type CheckRowDb } from '../../src/store/rows/checks.js';
import type { CheckSettings } from '../../src/domain/records.js';

/** Issue 36: one table says which request/file field is which setting and which column. */

const SAMPLE: CheckSettings = {
  name: 'X', url: 'http://127.0.0.1:9/x', type: 'rest_endpoint', folder: 'f', method: 'POST', intervalMinutes: 2, regionOverride: 'vps-eu-1',
  expectedStatusCodes: [201, 202], headers: { 'X-A': 'b' }, body: '{}', responseValidation: { containsText: ['ok'] }, cacheControlNoCache: true,
  immediateRecheckEnabled: false, responseTimeLimit: 900, downConfirmationAttempts: 4, pingPackets: 4, timezone: 'Europe/Paris',
  schedule: '0 3 * * *', gracePeriodSeconds: 60, tags: ['env:prod', 'team'], dependsOn: ['chk_parent'],
};

test('every field of the create body and every setting is in the table once', () => {
  const inputs = CHECK_FIELDS.map((f) => f.input);
  assert.deepEqual([...inputs].sort(), Object.keys(CreateCheckBody.properties).sort());
  assert.deepEqual(CHECK_FIELDS.map((f) => f.settings).sort(), Object.keys({ ...DEFAULT_SETTINGS, name: '', url: '', type: '' }).sort());
  assert.equal(new Set(CHECK_FIELDS.map((f) => f.column)).size, CHECK_FIELDS.length);
  const interval = CHECK_FIELDS.find((f) => f.settings === 'intervalMinutes')!;
  assert.deepEqual(interval, { settings: 'intervalMinutes', input: 'checkFrequency', record: 'interval', column: 'interval_minutes', unit: 'minutes' });
});

test('the API input and the monitoring file map to the settings by the table, both ways', () => {
  const input = fieldsOfSettings(SAMPLE) as Record<string, unknown>;
  for (const f of CHECK_FIELDS) assert.deepEqual(input[f.input], SAMPLE[f.settings], `${f.input} is ${f.settings}`);
  assert.deepEqual(Object.keys(input), CHECK_FIELDS.map((f) => f.input), 'a file writes the fields in the table\'s order');
  assert.deepEqual(applyInput({ ...DEFAULT_SETTINGS, name: '', url: '', type: 'website' }, input as never), SAMPLE);
  assert.equal('url' in fieldsOfSettings({ ...SAMPLE, type: 'heartbeat' }), false, 'a heartbeat\'s url is its generated ping URL');
});

test('input is normalised as before: trimmed url, unique codes and tags, trimmed unique dependencies; a domain is daily', () => {
  const s = applyInput({ ...DEFAULT_SETTINGS, name: '', url: '', type: 'website' }, {
    url: '  http://127.0.0.1:9/  ', expectedStatusCodes: [200, 200, 204], tags: ['a', 'a'], dependsOn: [' c1', 'c1 '],
  });
  assert.equal(s.url, 'http://127.0.0.1:9/');
  assert.deepEqual(s.expectedStatusCodes, [200, 204]);
  assert.deepEqual(s.tags, ['a']);
  assert.deepEqual(s.dependsOn, ['c1']);
  assert.equal(applyInput({ ...SAMPLE }, { type: 'domain', checkFrequency: 3 }).intervalMinutes, 1440);
});

test('a PATCH sending a record\'s own name changed is told the input name from the table', () => {
  for (const f of CHECK_FIELDS.filter((x) => x.record !== undefined)) {
    assert.throws(() => settingsOfPatch({ [f.record!]: 'changed' } as never, { [f.record!]: 'before' }), new RegExp(`${f.record} is read-only: change it with ${f.input}`));
  }
});

test('the store keeps each setting in the table\'s column', () => {
  assert.deepEqual([...SETTINGS_COLUMNS].sort(), CHECK_FIELDS.map((f) => f.column).sort());
  const values = settingsValues(SAMPLE);
  const row: Record<string, unknown> = {
    seq: 1, id: 'chk_1', account_id: 'acc_1', disabled: 0, disabled_reason: null, maintenance: 0, maintenance_until: null, window_maintenance: 0,
    heartbeat_token: null, status: 'up', consecutive_failures: 0, degraded: 0, last_checked: null, last_response_time: null, last_status_code: null,
    last_error: null, last_status_change: null, probes_total: 0, probes_up: 0, ssl: null, domain: null, regions: null, error_alerted: 0, ssl_alerts: null,
    created_at: 0, updated_at: 0,
  };
  SETTINGS_COLUMNS.forEach((column, i) => { row[column] = values[i]; });
  const check = rowToCheck(row as unknown as CheckRowDb);
  for (const f of CHECK_FIELDS) assert.deepEqual(check[f.settings], SAMPLE[f.settings], `${f.column} holds ${f.settings}`);
});
