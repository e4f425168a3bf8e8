import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RenderCache, type Rendered } from '../../src/api/render-cache.js';
import { ManualClock } from '../../src/domain/clock.js';

const page = (text: string, checkIds: string[]): Rendered => ({ status: 200, contentType: 'text/html', text, slug: null, checkIds });

test('a purge re-renders exactly what shows the check, again after re-renders and for keys the cache dropped', async () => {
  const cache = new RenderCache(new ManualClock(1_000), 60_000, 4);
  const renders: string[] = [];
  const get = (key: string, checkIds: string[]) => cache.reply(key, { headers: {} }, async () => (renders.push(key), page(key, checkIds)));
  await get('ab', ['a', 'b']);
  await get('b', ['b']);
  await get('c', ['c']);
  assert.deepEqual(renders, ['ab', 'b', 'c']);
  await get('ab', ['a', 'b']);
  assert.equal(renders.length, 3, 'cached');

  cache.purgeCheck('a');
  await get('ab', ['a', 'b']);
  await get('b', ['b']);
  await get('c', ['c']);
  assert.deepEqual(renders.slice(3), ['ab'], 'only the entry showing a');

  cache.purgeCheck('b');
  await get('ab', ['a', 'b']);
  await get('b', ['b']);
  await get('c', ['c']);
  assert.deepEqual(renders.slice(4), ['ab', 'b'], 'b was listed for ab before and after its re-render');

  cache.purgeCheck('nobody');
  for (let i = 0; i < 100; i++) await get(`badge-${i}`, [`x${i}`]); // far past the capacity: older keys dropped, the index bounded
  await get('c', ['c']);
  cache.purgeCheck('c');
  await get('c', ['c']);
  assert.equal(renders.filter((k) => k === 'c').length, 3, 'dropped by the LRU, then purged after its re-render');
});
