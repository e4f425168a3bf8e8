import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StatusChange } from '../../src/core/status-feed.js';
import { startServer, type TestServer } from '../helpers/server.js';

/**
 * A unit of work whose commit fails has no effects (issue 24 item 2): nothing is scheduled on the
 * wheel, no observer (node hub, heartbeats, domains) hears of it, nothing is published.
 */
describe('effects run after the commit, and a failed commit has none', () => {
  let server: TestServer;
  let failCommits = false;
  const heard: string[] = [];
  const published: StatusChange[] = [];

  before(async () => {
    server = await startServer();
    const store = server.app.store;
    const commit = store.transaction;
    let depth = 0;
    // A real failing COMMIT: with foreign keys deferred, a row pointing at no check is refused
    // only when the outermost transaction commits, after everything in it has run.
    store.transaction = <T>(fn: () => Promise<T>): Promise<T> =>
      commit(async () => {
        depth++;
        try {
          const result = await fn();
          if (failCommits && depth === 1) {
            store.db.pragma('defer_foreign_keys = ON');
            store.db.prepare("INSERT INTO domain_watch (check_id) VALUES ('chk_none')").run();
          }
          return result;
        } finally {
          depth--;
        }
      });
    // Last of the observers: the engine, the hub, heartbeats, domains and the feed come first, in one loop.
    server.app.services.monitoring.checks.observe({
      checkSaved: (check) => heard.push(`saved ${check.id}`),
      checkEdited: (check) => heard.push(`edited ${check.id}`),
      checkDeleted: (check) => heard.push(`deleted ${check.id}`),
    });
    server.app.statusFeed.subscribe((change) => published.push(change));
  });
  after(() => server.stop());

  let key = 0;
  const create = (name: string) =>
    server.request('POST', '/v1/public/checks', { body: { url: `https://${name}.example.com/`, name }, headers: { 'Idempotency-Key': `effects-${++key}` } });

  /** A change that commits, published: whatever a failed one would have published came before it. */
  async function settled(): Promise<string> {
    const marker = await create(`marker-${key}`);
    assert.equal(marker.status, 201);
    const id = marker.body.data.id as string;
    for (let i = 0; i < 1_000 && !published.some((c) => c.checkId === id); i++) await new Promise((r) => setImmediate(r));
    assert.ok(published.some((c) => c.checkId === id), 'the committed change is published');
    return id;
  }

  async function failing<T>(request: () => Promise<T>): Promise<T> {
    heard.length = 0;
    published.length = 0;
    const scheduled = server.app.engine.wheel.size;
    failCommits = true;
    try {
      return await request();
    } finally {
      failCommits = false;
      assert.equal(server.app.engine.wheel.size, scheduled, 'nothing scheduled or unscheduled on the wheel');
      assert.deepEqual(heard, [], 'no observer heard of it');
      const marker = await settled();
      assert.deepEqual(heard, [`saved ${marker}`], 'observers heard of the committed change alone');
      assert.deepEqual(published.filter((c) => c.checkId !== marker), [], 'only the committed change was published');
    }
  }

  test('create', async () => {
    const res = await failing(() => create('created'));
    assert.equal(res.status, 500);
    const all = await server.request('GET', '/v1/public/checks');
    assert.equal(all.body.data.some((c: { name: string }) => c.name === 'created'), false, 'the check does not exist');
  });

  test('update, toggle and delete', async () => {
    const made = await create('target');
    assert.equal(made.status, 201);
    const id = made.body.data.id as string;
    const path = `/v1/public/checks/${id}`;
    assert.equal((await failing(() => server.request('PATCH', path, { body: { name: 'renamed', checkFrequency: 5 } }))).status, 500);
    assert.equal((await server.request('GET', path)).body.data.name, 'target', 'the update was rolled back');

    assert.equal((await failing(() => server.request('POST', `${path}/toggle`, { body: { disabled: true } }))).status, 500);
    assert.equal((await server.request('GET', path)).body.data.disabled ?? false, false, 'still running');

    assert.equal((await failing(() => server.request('DELETE', path))).status, 500);
    assert.equal((await server.request('GET', path)).status, 200, 'still there');
  });
});
