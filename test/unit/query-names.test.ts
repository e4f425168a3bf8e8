import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { queryNamesCheck } from '../../src/front/query-names.js';
import { ApiError } from '../../src/domain/errors.js';
import { queryObject } from '../../src/core/validate.js';

/** Issue 35 item 3: each route's query parameters, declared once with its query schema. */

const query = Type.Object({ ranges: Type.Optional(Type.String()), to: Type.Optional(Type.String()) });
const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (err) {
    assert.ok(err instanceof ApiError && err.status === 400);
    return err.message;
  }
  assert.fail('not refused');
};

test('a route refuses parameters it does not declare, naming the one meant', () => {
  const check = queryNamesCheck({ query });
  assert.match(refusal(() => check(new URLSearchParams('range=1h'))), /"range"; did you mean ranges\?/);
  assert.match(refusal(() => check(new URLSearchParams('to=1&bogus=1'))), /"bogus": this route takes ranges, to$/);
  assert.match(refusal(() => check(new URLSearchParams('constructor=1'))), /"constructor"/, 'no prototype name passes for a declared one');
  assert.match(refusal(() => queryNamesCheck({})(new URLSearchParams('x=1'))), /takes no query parameters/);
  const all = new URLSearchParams('ranges=1h&to=2026-01-01T00:00:00Z');
  assert.equal(check(all), all);
});

test('a lenient route drops what is unlike its own and refuses near-misses; an open one takes all', () => {
  const lenient = queryNamesCheck({ query, unknownQuery: 'typos-refused' });
  const kept = lenient(new URLSearchParams('v=2&__proto__=x&ranges=1h&utm_source=mail'));
  assert.deepEqual([...kept], [['ranges', '1h']]);
  assert.match(refusal(() => lenient(new URLSearchParams('rangse=1h'))), /did you mean ranges/);
  const open = new URLSearchParams('anything=1&__proto__=2');
  assert.equal(queryNamesCheck({ unknownQuery: 'accepted' })(open), open);
});

test('a query object keeps a client\'s odd names as its own fields, never as the prototype', () => {
  const obj = queryObject(new URLSearchParams('__proto__=x&tag=a&tag=b'));
  assert.equal(Object.getPrototypeOf(obj), Object.prototype);
  assert.deepEqual(Object.entries(obj), [['__proto__', 'x'], ['tag', ['a', 'b']]]);
});
