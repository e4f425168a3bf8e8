import { settingsOfPatch } from '../../src/core/check-patch.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, resolveConfig } from '../../src/config.js';
import { applyInput, DEFAULT_SETTINGS, validateSettings } from '../../src/core/check-settings.js';
import { ApiError } from '../../src/domain/errors.js';
import type { Account, CheckSettings } from '../../src/domain/records.js';
import { CreateCheckBody, UpdateCheckBody } from '../../src/core/schemas/checks.js';
import { compile } from '../../src/core/validate.js';

const create = compile(CreateCheckBody);
const update = compile(UpdateCheckBody);
const config = resolveConfig(loadConfig({ warn: () => {} }), 8080);
const account = (tier: Account['tier']): Account => ({
  id: 'acc_1', email: 'a@b.c', tier, maxChecksOverride: null, claimed: true, createdAt: 0,
});
const message = (r: ReturnType<typeof create.check>) => (r.ok ? 'ok' : r.message);

test('create schema names the offending field in plain words', () => {
  assert.equal(message(create.check({ url: 'https://a.b', name: 'x'.repeat(201) })), 'name must be at most 200 characters');
  assert.equal(message(create.check({ url: 'https://a.b', type: 'gopher' })), `type must be one of: ${[
    'website', 'rest_endpoint', 'redirect', 'ping', 'tcp', 'udp', 'dns', 'websocket', 'smtp', 'pop3', 'imap', 'heartbeat', 'domain',
  ].join(', ')}`);
  assert.equal(message(create.check({ url: 'https://a.b', downConfirmationAttempts: 100 })), 'downConfirmationAttempts must be at most 99');
  assert.equal(message(create.check({ url: 'https://a.b', pingPackets: 0 })), 'pingPackets must be at least 1');
  assert.equal(message(create.check({ url: 'https://a.b', pingPackets: 2.5 })), 'pingPackets must be an integer');
  assert.equal(message(create.check({ url: 'https://a.b', bogus: 1 })), 'bogus is not a known field');
  assert.equal(message(create.check([])), 'Body must be an object');
  const headers = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`h${i}`, 'v']));
  assert.equal(message(create.check({ url: 'https://a.b', requestHeaders: headers })), 'requestHeaders must have at most 20 entries');
  // Which regions exist is the service's question (registered prober nodes), not the schema's.
  assert.equal(message(create.check({ url: 'https://a.b', checkRegionOverride: 'x'.repeat(65) })), 'checkRegionOverride must be at most 64 characters');
  assert.equal(message(create.check({ url: 'https://a.b', expectedStatusCodes: [] })), 'expectedStatusCodes must have at least 1 item');
});

test('a PATCH changes type only to the spec PATCH types; a fixed type may come back unchanged', () => {
  assert.equal(message(update.check({ type: 'tcp' })), 'ok');
  assert.match(message(update.check({ type: 'gopher' })), /^type must be one of/);
  assert.equal(message(update.check({})), 'ok');
  const record = { type: 'heartbeat', url: 'https://ping.example.com/heartbeat/abc' };
  assert.deepEqual(settingsOfPatch({ type: 'heartbeat', url: record.url, name: 'n' }, record), { name: 'n' });
  rejects(() => settingsOfPatch({ type: 'domain' }, { type: 'website' }), 400, /^type must be one of: website, rest_endpoint/);
});

const settings = (over: Partial<CheckSettings>): CheckSettings => ({
  ...DEFAULT_SETTINGS, name: 'n', url: 'https://example.com', type: 'website', ...over,
});
const rejects = (fn: () => unknown, status: number, pattern: RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof ApiError && e.status === status && pattern.test(e.message));

test('plan rules: domain below nano and region choice are 403, short intervals 400', () => {
  const all = new Set(['type', 'checkFrequency', 'checkRegionOverride']);
  rejects(() => validateSettings(settings({ type: 'domain', url: 'example.com' }), account('indie'), config, all), 403, /nano/);
  assert.equal(validateSettings(settings({ type: 'domain', url: 'example.com' }), account('nano'), config, all), 'example.com');
  rejects(() => validateSettings(settings({ regionOverride: 'vps-eu-1' }), account('free'), config, all), 403, /region/);
  rejects(() => validateSettings(settings({ intervalMinutes: 1 }), account('free'), config, all), 400, /at least 5 minutes/);
  assert.ok(validateSettings(settings({ intervalMinutes: 0.5 }), account('pro'), config, all));
  // A heartbeat is held to minHeartbeatIntervalSeconds (free: 300 s), not the probe minimum.
  rejects(() => validateSettings(settings({ type: 'heartbeat', url: '', intervalMinutes: 1 }), account('free'), config, all), 400, /heartbeat/);
  assert.equal(validateSettings(settings({ type: 'heartbeat', url: '', intervalMinutes: 0.5 }), account('nano'), config, all), null);
});

test('an unchanged interval is not re-judged against the plan on PATCH', () => {
  assert.ok(validateSettings(settings({ intervalMinutes: 1 }), account('free'), config, new Set(['name'])));
});

test('request bodies must be JSON except udp datagrams, at most 64 KB', () => {
  const changed = new Set(['requestBody']);
  rejects(() => validateSettings(settings({ body: '{oops' }), account('pro'), config, changed), 400, /valid JSON/);
  assert.ok(validateSettings(settings({ body: '{"a":1}' }), account('pro'), config, changed));
  assert.ok(validateSettings(settings({ type: 'udp', url: 'udp://127.0.0.1:9', body: 'ping' }), account('pro'), config, changed));
  rejects(() => validateSettings(settings({ body: JSON.stringify('x'.repeat(65536)) }), account('pro'), config, changed), 400, /64 KB/);
});

test('header names and time zones are checked', () => {
  rejects(() => validateSettings(settings({ headers: { 'bad header': 'x' } }), account('pro'), config, new Set(['requestHeaders'])), 400, /header name/);
  rejects(() => validateSettings(settings({ headers: { a: 'x\r\ny' } }), account('pro'), config, new Set(['requestHeaders'])), 400, /line breaks/);
  rejects(() => validateSettings(settings({ timezone: 'Mars/Olympus' }), account('pro'), config, new Set(['timezone'])), 400, /time zone/);
  assert.ok(validateSettings(settings({ timezone: 'Europe/Berlin' }), account('pro'), config, new Set(['timezone'])));
});

test('applyInput changes only the fields present and maps input names', () => {
  const base = settings({ headers: { a: '1' }, intervalMinutes: 5 });
  const next = applyInput(base, { httpMethod: 'POST', checkFrequency: 2, requestBody: null });
  assert.equal(next.method, 'POST');
  assert.equal(next.intervalMinutes, 2);
  assert.equal(next.body, null);
  assert.deepEqual(next.headers, { a: '1' });
  assert.equal(next.url, base.url);
  assert.deepEqual(applyInput(base, { expectedStatusCodes: [200, 200, 204] }).expectedStatusCodes, [200, 204]);
  assert.equal(applyInput(base, { type: 'domain', url: 'example.com' }).intervalMinutes, 1440);
});
