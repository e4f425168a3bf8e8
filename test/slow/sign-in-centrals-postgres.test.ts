import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCentrals, type Central, type Centrals } from '../helpers/centrals.js';
import { send, type TestResponse } from '../helpers/server.js';
import { setupToken } from '../helpers/people.js';

/*
 * Issue 34: password guesses spread over two centrals on one PostgreSQL database are counted
 * together (the tallies are rows of the store, reserved by one statement each), so the lock
 * the docs promise after 10 holds on both, the right password included.
 */

const signIn = (c: Central, email: string, password: string): Promise<TestResponse> =>
  send(c.url, '', 'POST', '/v1/public/sessions', { key: null, body: { email, password } });

describe('sign-in attempts are counted across centrals (PostgreSQL)', { timeout: 180_000 }, () => {
  let world: Centrals;
  let a: Central;
  let b: Central;

  before(async () => {
    world = await startCentrals({ config: { auth: { signIn: { slowAfterFailures: 100, lockAfterFailures: 10, addressLockAfterFailures: 1000, windowMinutes: 15 } } } });
    a = await world.start('central-a');
    b = await world.start('central-b');
  });
  after(() => world?.close());

  test('40 concurrent wrong passwords, half on each central: 10 checked in all, then both refuse the member', async () => {
    const email = `guessed-${process.pid}@example.com`;
    const invited = await a.request('POST', '/v1/public/members', { body: { email, role: 'editor' } });
    assert.equal(invited.status, 201, invited.text);
    const password = 'the right password, long enough';
    const setup = await send(b.url, '', 'POST', '/v1/public/password-setup', { key: null, body: { token: setupToken(invited.body.data.setupUrl), password } });
    assert.equal(setup.status, 201, setup.text);

    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => signIn(i % 2 ? a : b, email, `wrong guess ${i}`)));
    const statuses = burst.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 401).length, 10, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 429).length, 30, statuses.join(','));
    for (const r of burst.filter((x) => x.status === 429)) {
      assert.equal(r.body.error.code, 429);
      assert.ok(Number(r.headers.get('retry-after')) >= 1);
    }
    for (const c of [a, b]) {
      const refused = await signIn(c, email, password);
      assert.equal(refused.status, 429, `${c.name} lets the right password in: ${refused.text}`);
    }
  });
});
