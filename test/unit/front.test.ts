import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import { ApiError } from '../../src/domain/errors.js';
import { decodeCursor, encodeCursor, pageOf } from '../../src/core/pagination.js';
import { canonicalJson, Idempotency } from '../../src/front/idempotency.js';
import { RateLimiter } from '../../src/front/rate-limiter.js';
import { Router } from '../../src/front/router.js';
import { Lru } from '../../src/util/lru.js';
import type { Route } from '../../src/api/http-types.js';
import type { IdempotencyRecord, IdempotencyRepo } from '../../src/store/store.js';

test('router prefers static segments and decodes params', () => {
  const route = (method: Route['method'], path: string) => ({ method, path }) as Route;
  const byId = route('GET', '/v1/public/checks/:id');
  const status = route('GET', '/v1/public/checks/status');
  const router = new Router([byId, status]);
  assert.equal(router.match('GET', '/v1/public/checks/status')?.route, status);
  assert.deepEqual(router.match('GET', '/v1/public/checks/chk%5F1')?.params, { id: 'chk_1' });
  assert.equal(router.match('POST', '/v1/public/checks/status'), null);
  assert.equal(router.match('GET', '/v1/public/checks/a/b'), null);
});

test('router: exact paths, trailing slashes, empty parameters, the root', () => {
  const route = (method: Route['method'], path: string) => ({ method, path }) as Route;
  const root = route('GET', '/');
  const list = route('GET', '/v1/public/checks');
  const byId = route('GET', '/v1/public/checks/:id');
  const toggle = route('POST', '/v1/public/checks/:id/toggle');
  const router = new Router([root, list, byId, toggle]);
  assert.equal(router.match('GET', '/')?.route, root);
  assert.equal(router.match('GET', '//')?.route, root);
  assert.equal(router.match('GET', '/v1/public/checks/')?.route, list);
  assert.deepEqual(router.match('GET', '/v1/public/checks/chk_1/')?.params, { id: 'chk_1' });
  assert.equal(router.match('GET', '/v1/public/checks//toggle'), null, 'a parameter is never empty');
  assert.deepEqual(router.match('POST', '/v1/public/checks/chk_2/toggle')?.params, { id: 'chk_2' });
  assert.equal(router.match('GET', '/v1/public/checks/chk_2/toggle'), null);
  assert.equal(router.match('GET', '/v1/public/checks/bad%zz')?.params.id, 'bad%zz', 'an undecodable parameter is kept as sent');
});

test('Lru keeps what is used, forgets what is not, and stays within its capacity', () => {
  const lru = new Lru<number, string>(4);
  for (let i = 0; i < 4; i++) lru.set(i, `v${i}`);
  assert.equal(lru.get(0), 'v0');
  for (let i = 4; i < 8; i++) {
    lru.set(i, `v${i}`);
    lru.get(0);
  }
  assert.equal(lru.get(0), 'v0', 'an entry used all along survives');
  assert.equal(lru.get(1), undefined, 'an entry never used again is forgotten');
  let held = 0;
  for (let i = 0; i < 100; i++) if (lru.get(i) !== undefined) held++;
  assert.ok(held <= 4, `holds ${held} entries, capacity 4`);
  lru.set(7, 'new');
  assert.equal(lru.get(7), 'new', 'set replaces');
  lru.delete(7);
  assert.equal(lru.get(7), undefined);
  lru.set(9, 'x');
  lru.deleteWhere((k) => k === 9);
  assert.equal(lru.get(9), undefined);
});

test('cursors round-trip and malformed ones are a 400', () => {
  const isNum = (v: unknown): v is number => typeof v === 'number';
  assert.deepEqual(decodeCursor(encodeCursor(42, 3), isNum), { key: 42, page: 3 });
  for (const bad of ['nope', encodeCursor('x', 1), Buffer.from('{"k":1,"p":0}').toString('base64url')]) {
    assert.throws(() => decodeCursor(bad, isNum), (e: unknown) => e instanceof ApiError && e.status === 400);
  }
});

test('pageOf uses the extra row to decide whether a next cursor exists', () => {
  const last = pageOf([1, 2], { limit: 2, page: 1 }, (n) => n, undefined);
  assert.equal(last.meta.cursor, null);
  assert.equal('total' in last.meta, false);
  const more = pageOf([1, 2, 3], { limit: 2, page: 1 }, (n) => n, 7);
  assert.deepEqual(more.data, [1, 2]);
  assert.equal(more.meta.total, 7);
  assert.deepEqual(decodeCursor(more.meta.cursor!, (v): v is number => typeof v === 'number'), { key: 2, page: 2 });
});

test('rate limiter: per-bucket window, 429 with Retry-After, reset after a minute', () => {
  const clock = new ManualClock(0);
  const limiter = new RateLimiter(clock);
  assert.deepEqual(limiter.take('a', 2), { limit: 2, remaining: 1, reset: 60 });
  limiter.take('a', 2);
  clock.advance(15_000);
  assert.throws(
    () => limiter.take('a', 2),
    (e: unknown) => e instanceof ApiError && e.status === 429 && e.headers['Retry-After'] === '45' && e.headers['RateLimit-Remaining'] === '0',
  );
  assert.equal(limiter.take('b', 2).remaining, 1, 'buckets are independent');
  clock.advance(45_000);
  assert.equal(limiter.take('a', 2).remaining, 1);
});

function memoryRepo(): IdempotencyRepo {
  const rows = new Map<string, IdempotencyRecord>();
  return {
    get: async (a, k) => rows.get(`${a}/${k}`) ?? null,
    put: async (r) => void rows.set(`${r.accountId}/${r.key}`, r),
    deleteOlderThan: async () => 0,
  };
}

test('idempotency replays within 24 h, 422 on a different request, forgets failures', async () => {
  const clock = new ManualClock(0);
  const idem = new Idempotency(memoryRepo(), clock);
  const hash = Idempotency.fingerprint({ b: 1, a: [1, { y: 2, x: 1 }] });
  assert.equal(hash, Idempotency.fingerprint({ a: [1, { x: 1, y: 2 }], b: 1 }), 'key order does not matter');
  assert.equal((await idem.replay('acc', 'k', 'POST', '/p', hash)), null);
  await idem.remember('acc', 'k', 'POST', '/p', hash, { status: 201, body: { data: { id: 'x' } } });
  assert.deepEqual((await idem.replay('acc', 'k', 'POST', '/p', hash))?.body, { data: { id: 'x' } });
  assert.equal((await idem.replay('other', 'k', 'POST', '/p', hash)), null, 'keys are scoped to the account');
  await assert.rejects(async () => idem.replay('acc', 'k', 'POST', '/p', 'different'), (e: unknown) => e instanceof ApiError && e.status === 422);
  await assert.rejects(async () => idem.replay('acc', 'k', 'POST', '/q', hash), (e: unknown) => e instanceof ApiError && e.status === 422);
  await idem.remember('acc', 'bad', 'POST', '/p', hash, { status: 400, body: {} });
  assert.equal((await idem.replay('acc', 'bad', 'POST', '/p', hash)), null);
  clock.advance(24 * 3600_000 + 1);
  assert.equal((await idem.replay('acc', 'k', 'POST', '/p', hash)), null, 'expired after 24 h');
});

test('idempotency key header rules', () => {
  assert.throws(() => Idempotency.readKey({}, true), (e: unknown) => e instanceof ApiError && e.status === 400);
  assert.equal(Idempotency.readKey({}, false), null);
  assert.throws(() => Idempotency.readKey({ 'idempotency-key': 'x'.repeat(257) }, false), /256/);
  assert.equal(Idempotency.readKey({ 'idempotency-key': 'x'.repeat(256) }, true), 'x'.repeat(256));
  assert.equal(canonicalJson({ b: [true, null], a: 'x' }), '{"a":"x","b":[true,null]}');
});
