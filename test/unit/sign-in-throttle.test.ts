import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/domain/clock.js';
import { ApiError } from '../../src/domain/errors.js';
import { delayFor, retryAfter, SignInThrottle, type ThrottleSettings } from '../../src/people/sign-in-throttle.js';
import { PasswordHasher } from '../../src/people/password-hasher.js';
import { Passwords } from '../../src/people/passwords.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import type { Store } from '../../src/store/store.js';

const SETTINGS: ThrottleSettings = { slowAfterFailures: 3, lockAfterFailures: 10, addressLockAfterFailures: 50, windowMinutes: 15 };
const WINDOW_MS = 15 * 60_000;

/** The 429 `reserve` throws, or null when it admitted the attempt. */
async function refusal(attempt: Promise<number>): Promise<ApiError | null> {
  try {
    await attempt;
    return null;
  } catch (err) {
    assert.ok(err instanceof ApiError && err.status === 429, String(err));
    return err;
  }
}

describe('the delay and Retry-After arithmetic', () => {
  test('no delay before slowAfterFailures; then 0.25 s doubling, at most 5 s', () => {
    assert.deepEqual([0, 1, 2].map((n) => delayFor(n, 3)), [0, 0, 0]);
    assert.deepEqual([3, 4, 5, 6, 7, 8].map((n) => delayFor(n, 3)), [250, 500, 1000, 2000, 4000, 5000]);
    assert.equal(delayFor(10_000, 3), 5000, 'no overflow for huge counts');
  });

  test('Retry-After rounds up to whole seconds and is at least 1', () => {
    assert.equal(retryAfter({ attempts: 10, forgetAt: 10_500 }, 9_000), 2);
    assert.equal(retryAfter({ attempts: 10, forgetAt: 9_000 }, 9_000), 1);
  });
});

describe('SignInThrottle reserves attempts in the store before any hash', () => {
  let dir: string;
  let store: Store;
  const clock = new ManualClock();
  let throttle: SignInThrottle;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-throttle-'));
    store = openSqliteStore(dir);
    throttle = new SignInThrottle(SETTINGS, clock, store);
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('50 reserved at once: exactly 10 admitted, 40 refused with the window as Retry-After', async () => {
    const by = { email: 'Burst@Example.com', address: '10.0.0.1' };
    const results = await Promise.all(Array.from({ length: 50 }, () => refusal(throttle.reserve(by))));
    assert.equal(results.filter((r) => r === null).length, 10);
    const refused = results.filter((r): r is ApiError => r !== null);
    assert.equal(refused.length, 40);
    for (const err of refused) assert.equal(err.headers?.['Retry-After'], String(WINDOW_MS / 1000));
  });

  test('attempts refused for the person are not counted against the address', async () => {
    const strict = new SignInThrottle({ ...SETTINGS, addressLockAfterFailures: 12 }, clock, store);
    const address = '10.0.0.7';
    await Promise.all(Array.from({ length: 50 }, () => refusal(strict.reserve({ email: 'burst2@example.com', address }))));
    assert.equal(await refusal(strict.reserve({ email: 'one@example.com', address })), null);
    assert.equal(await refusal(strict.reserve({ email: 'two@example.com', address })), null);
    assert.ok(await refusal(strict.reserve({ email: 'three@example.com', address })), 'the address holds 10 + 2');
  });

  test('the email is one person whatever its case and spaces; the lock lifts when the window has passed since the last counted attempt', async () => {
    const by = { email: 'lock@example.com', address: '10.0.0.2' };
    for (let i = 0; i < 10; i++) {
      await throttle.reserve({ ...by, email: i % 2 ? ' LOCK@example.com ' : by.email });
      clock.advance(1000);
    }
    assert.ok(await refusal(throttle.reserve(by)));
    // The last counted attempt was 1 s ago: its window ends in WINDOW_MS - 1 s.
    clock.advance(WINDOW_MS - 2000);
    const still = await refusal(throttle.reserve(by));
    assert.equal(still?.headers?.['Retry-After'], '1', 'refusals do not move the window');
    clock.advance(1000);
    assert.equal(await refusal(throttle.reserve(by)), null, 'forgotten: counted afresh');
  });

  test('the delay owed grows with the attempts counted before', async () => {
    const by = { email: 'slow@example.com', address: '10.0.0.3' };
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) delays.push(await throttle.reserve(by));
    assert.deepEqual(delays, [0, 0, 0, 250, 500, 1000]);
  });

  test('an attempt given back frees its place; signing in clears the person but gives the address back one only', async () => {
    const by = { email: 'back@example.com', address: '10.0.0.4' };
    for (let i = 0; i < 10; i++) await throttle.reserve(by);
    assert.ok(await refusal(throttle.reserve(by)));
    await throttle.giveBack(by);
    assert.equal(await refusal(throttle.reserve(by)), null);
    await throttle.signedIn(by);
    for (let i = 0; i < 10; i++) assert.equal(await refusal(throttle.reserve(by)), null, `attempt ${i + 1} after signing in`);
  });

  test('the address limit refuses any person from it, and a refusal by the address counts nothing for the person', async () => {
    const address = '10.0.0.5';
    for (let i = 0; i < 50; i++) await throttle.reserve({ email: `spray-${i}@example.com`, address });
    assert.ok(await refusal(throttle.reserve({ email: 'victim@example.com', address })));
    // The victim's own tally was left as it was: ten attempts from elsewhere are still theirs.
    for (let i = 0; i < 10; i++) assert.equal(await refusal(throttle.reserve({ email: 'victim@example.com', address: `10.0.1.${i}` })), null);
  });

  test('prune forgets tallies past their window', async () => {
    await throttle.reserve({ email: 'old@example.com', address: '10.0.0.6' });
    clock.advance(WINDOW_MS + 1);
    assert.ok((await throttle.prune()) >= 2);
  });
});

describe('passwords are hashed on their own thread', () => {
  const hasher = new PasswordHasher({ threads: 1, maxQueued: 2 });
  const passwords = new Passwords((d) => hasher.derive(d));
  after(() => hasher.close());

  test('a hash verifies its password only; an unknown person (no hash) is false after as long a check', async () => {
    const hash = await passwords.hash('correct horse battery');
    assert.match(hash, /^scrypt\$32768\$8\$3\$/);
    assert.equal(await passwords.verify('correct horse battery', hash), true);
    assert.equal(await passwords.verify('correct horse batterY', hash), false);
    assert.equal(await passwords.verify('correct horse battery', null), false);
    assert.equal(await passwords.verify('x', 'not-a-hash'), false);
  });

  test('beyond the bounded queue a check is refused at once with 503 and Retry-After, not held', async () => {
    const stored = await passwords.hash('correct horse battery');
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => passwords.verify('guess', stored)));
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason as ApiError);
    // One runs, two wait; the rest are refused.
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 3);
    for (const err of refused) {
      assert.equal(err.status, 503);
      assert.equal(err.headers?.['Retry-After'], '1');
    }
  });
});
