import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageOfOrdered } from '../../src/store/sqlite/check-lists.js';
import { ListPages } from '../../src/api/check-json.js';
import type { Check } from '../../src/domain/records.js';
import type { ListStatus, RuntimeWrite } from '../../src/store/store.js';
import { openStatsWorld } from '../helpers/stats-world.js';

const T = Date.UTC(2026, 6, 1, 9);

test('a page of an ordered list: by offset, after a cursor, or all of it', () => {
  const list = { ids: ['a', 'b', 'c', 'd', 'e'], seqs: [2, 3, 5, 8, 13] };
  assert.deepEqual(pageOfOrdered(list, { limit: 2, offset: 2, afterSeq: null }), ['c', 'd']);
  assert.deepEqual(pageOfOrdered(list, { limit: 2, offset: 0, afterSeq: 3 }), ['c', 'd']);
  assert.deepEqual(pageOfOrdered(list, { limit: 2, offset: 0, afterSeq: 4 }), ['c', 'd'], 'a cursor between two checks (one deleted)');
  assert.deepEqual(pageOfOrdered(list, { limit: 10, offset: 0, afterSeq: 13 }), []);
  assert.deepEqual(pageOfOrdered(list, { limit: -1, offset: 1, afterSeq: null }), ['b', 'c', 'd', 'e']);
});

test('cached check lists follow every change that moves a check in or out of them', async () => {
  const world = openStatsWorld(T);
  try {
    const account = await world.accounts.createAccount('lists@example.com', 'pro');
    const principal = await world.principal((await world.accounts.createKey({ account: account.id, scopes: ['checks:write'] })).key);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await world.checks.create(principal, { url: `https://s${i}.example.com/`, checkFrequency: 1 })).id);
    const checks = world.store.checks;
    const q = (status?: ListStatus) => ({ accountId: account.id, access: null, status });
    const idsOf = async (status?: ListStatus) => (await checks.list(q(status), { limit: -1, offset: 0, afterSeq: null })).map((c) => c.id);
    assert.deepEqual((await idsOf()), ids);
    assert.equal((await checks.count(q())), 12);
    assert.equal((await checks.count(q('down'))), 0);

    const down = async (id: string, statusChanged: boolean): Promise<RuntimeWrite> => ({ ...(await checks.byId(id))!, status: 'down', sync: null, statusChanged });
    await checks.saveRuntime(ids[3]!, await down(ids[3]!, true));
    assert.deepEqual((await idsOf('down')), [ids[3]], 'a status change moves the check between filtered lists');
    assert.equal((await checks.byId(ids[3]!))!.status, 'down', 'the cached record is written through');

    (checks as unknown as { clearCache(): void }).clearCache();
    await checks.saveRuntime(ids[4]!, await down(ids[4]!, false));
    assert.deepEqual((await idsOf('down')), [ids[3], ids[4]], 'a record not in the cache cannot say its status stayed: the lists are read again');

    await checks.setDisabled(ids[5]!, true, 'test', T);
    assert.deepEqual((await idsOf('paused')), [ids[5]]);
    await checks.delete(ids[0]!);
    assert.deepEqual((await idsOf()).slice(0, 2), [ids[1], ids[2]]);
    assert.equal((await checks.count(q())), 11);

    const before = await idsOf();
    await assert.rejects(async () =>
      world.store.transaction(async () => {
        await checks.delete(ids[1]!);
        assert.equal((await idsOf()).includes(ids[1]!), false, 'inside the transaction the delete shows');
        throw new Error('roll back');
      }),
    );
    assert.deepEqual(await idsOf(), before, 'a rolled-back transaction leaves no trace in the cached lists');
  } finally {
    await world.close();
  }
});

test('list pages: reused while nothing changed, and while the page holds the very same records', async () => {
  const world = openStatsWorld(T);
  try {
    const pages = new ListPages(world.config);
    const account = await world.accounts.createAccount('pages@example.com', 'pro');
    const principal = await world.principal((await world.accounts.createKey({ account: account.id, scopes: ['checks:write'] })).key);
    const made = async (n: string) => (await world.store.checks.byId((await world.checks.create(principal, { url: `https://${n}.example.com/` })).id))!;
    const [a, b]: [Check, Check] = [await made('a'), await made('b')];
    let listed = 0;
    let records = [a, b];
    const list = async () => {
      listed++;
      return { data: records, meta: { page: 1, limit: 2, cursor: null } };
    };
    const first = (await pages.reply('k', 1, list)).raw!.text;
    assert.equal((await pages.reply('k', 1, list)).raw!.text, first, 'same version: the rendered bytes');
    assert.equal(listed, 1, 'same version: not even listed');
    assert.equal((await pages.reply('k', 2, list)).raw!.text, first, 'another check changed: the same records, the same bytes');
    assert.equal(listed, 2);
    records = [a, { ...b, name: 'B renamed' }];
    const changed = (await pages.reply('k', 3, list)).raw!.text.toString();
    assert.match(changed, /B renamed/, 'a record on the page changed: rendered anew');
    assert.equal(JSON.parse(changed).data.length, 2);
  } finally {
    await world.close();
  }
});
