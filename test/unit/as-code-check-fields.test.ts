import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CreateCheckBody } from '../../src/core/schemas/checks.js';
import { declaredFields } from '../../src/as-code/check-fields.js';
import { CheckEntry } from '../../src/as-code/file-schema.js';
import { indexKeys, slugOf } from '../../src/as-code/object-keys.js';

/** Issue 30: a check field of the API is a field of the monitoring file, and survives the trip. */

test('every field of POST /v1/public/checks is a field of a file entry, and is read back as written', () => {
  const sample: Record<string, unknown> = {
    url: 'http://127.0.0.1:9/x', type: 'rest_endpoint', name: 'X', checkFrequency: 2, checkRegionOverride: 'vps-eu-1', httpMethod: 'POST',
    expectedStatusCodes: [201], requestHeaders: { 'X-A': 'b' }, requestBody: '{}', responseValidation: { containsText: ['ok'] },
    cacheControlNoCache: true, immediateRecheckEnabled: false, responseTimeLimit: 900, downConfirmationAttempts: 4, pingPackets: 4,
    timezone: 'Europe/Paris', folder: 'f', tags: ['env:prod', 'team'], dependsOn: ['chk_parent'], schedule: '0 3 * * *', gracePeriod: 60,
  };
  const fields = Object.keys(CreateCheckBody.properties);
  for (const field of fields) {
    assert.ok(field in CheckEntry.properties, `${field} is in the file's check entry`);
    assert.ok(field in sample, `${field} has a sample value here: add one, and map it in check-fields.ts`);
  }
  const declared = declaredFields(sample as never, null) as Record<string, unknown>;
  for (const field of fields) assert.deepEqual(declared[field], sample[field], `${field} is read back as written (check-fields.ts maps it)`);
});

test('keys: stored ones first, the others derived from names, unique in creation order', () => {
  assert.equal(slugOf('API health (EU) — Überprüfung', 'check'), 'api-health-eu-uberprufung');
  assert.equal(slugOf('???', 'check'), 'check');
  const objects = [{ id: 'a', name: 'Web' }, { id: 'b', name: 'Web' }, { id: 'c', name: 'Renamed in the dashboard' }];
  const index = indexKeys(objects, [{ key: 'web', objectId: 'c' }, { key: 'gone', objectId: 'deleted' }], (o) => o.name, 'check');
  assert.deepEqual(Object.fromEntries(index.keyOf), { c: 'web', a: 'web-2', b: 'web-3' });
});
