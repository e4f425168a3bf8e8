import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import { RateLimiter } from '../../src/front/rate-limiter.js';
import { RateShare } from '../../src/cluster/rate-share.js';
import { InProcessBus } from '../../src/store/change-bus.js';
import { ApiError } from '../../src/domain/errors.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('rate limits across centrals: one budget per bucket, counted wherever the requests went', async () => {
  const clock = new ManualClock();
  const bus = new InProcessBus();
  const central = (name: string) => {
    const limiter = new RateLimiter(clock);
    const share = new RateShare({ bus, name, changed: () => limiter.changed() });
    limiter.shareWith(share);
    return { limiter, report: () => share.job().run() };
  };
  const a = central('a');
  const b = central('b');
  for (let i = 0; i < 3; i++) a.limiter.take('key:k1', 5);
  a.report();
  await settle();
  assert.equal(b.limiter.take('key:k1', 5).remaining, 1, "a's three count on b");
  b.limiter.take('key:k1', 5);
  assert.throws(() => b.limiter.take('key:k1', 5), (err: unknown) => err instanceof ApiError && err.status === 429);
  b.report();
  await settle();
  assert.throws(() => a.limiter.take('key:k1', 5), (err: unknown) => err instanceof ApiError && err.status === 429, "b's two count on a");
  assert.equal(a.limiter.take('key:k2', 5).remaining, 4, 'other buckets are their own');
  // Once the windows have run out, the budget is whole again on both.
  clock.advance(60_000);
  assert.equal(a.limiter.take('key:k1', 5).remaining, 4);
  assert.equal(b.limiter.take('key:k1', 5).remaining, 4);
  bus.close();
});

test('a single server shares nothing: its limiter reports nothing and counts only its own', () => {
  const limiter = new RateLimiter(new ManualClock());
  limiter.take('key:k1', 2);
  assert.deepEqual(limiter.changed(), []);
  assert.equal(limiter.take('key:k1', 2).remaining, 0);
});
