import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkStatus, listCodes, validateBody } from '../../src/engine/probes/http-validation.js';
import { describeError } from '../../src/engine/probes/probe-errors.js';
import { ProbeTimeoutError } from '../../src/engine/probes/probe-scope.js';
import { snippetOf } from '../../src/engine/probes/result.js';

describe('http validation', () => {
  it('matches status codes', () => {
    assert.equal(checkStatus([200], 200), null);
    assert.equal(checkStatus([200, 204], 500), 'Expected status 200 or 204, got 500');
    assert.equal(checkStatus([], 204), null, 'an empty list accepts any 2xx');
    assert.equal(checkStatus([], 301), 'Expected a 2xx status, got 301');
    assert.equal(listCodes([1, 2, 3]), '1, 2 or 3');
  });

  it('applies containsText before jsonPath', () => {
    const body = '{"a":{"b":[1,2]},"ok":true}';
    assert.equal(validateBody(null, body), null);
    assert.equal(validateBody({ containsText: [] }, body), null);
    assert.equal(validateBody({ containsText: ['zzz'], jsonPath: '$.a' }, body), 'Response does not contain "zzz"');
    assert.equal(validateBody({ jsonPath: '$.ok', expectedValue: 'true' }, body), null);
    assert.equal(validateBody({ jsonPath: '$.a.b', expectedValue: '[1,2]' }, body), null, 'objects compare as JSON');
    assert.equal(validateBody({ jsonPath: '$.a.b[1]', expectedValue: '2' }, body), null);
  });

  it('does not run script code from a JSONPath filter', () => {
    const body = '[{"n":1},{"n":2}]';
    assert.equal(validateBody({ jsonPath: '$[?(@.n > 1)].n', expectedValue: '2' }, body), null);
    const hostile = validateBody({ jsonPath: "$[?(process.exit(1))]" }, body);
    assert.notEqual(hostile, null, 'an unsafe script is refused, the process lives on');
  });
});

describe('probe errors and results', () => {
  it('turns errors into short human messages', () => {
    const error = (code: string, syscall?: string) => Object.assign(new Error(`x ${code}`), { code, syscall });
    assert.equal(describeError(error('ECONNREFUSED', 'connect')), 'Connection refused');
    assert.equal(describeError(error('ENOTFOUND', 'getaddrinfo')), 'DNS lookup failed: ENOTFOUND');
    assert.equal(describeError(error('ECONNREFUSED', 'queryA')), 'DNS lookup failed: ECONNREFUSED');
    assert.equal(describeError(new ProbeTimeoutError(3000)), 'Timed out after 3000 ms');
    assert.equal(describeError(Object.assign(new Error('aborted'), { cause: new ProbeTimeoutError(5) })), 'Timed out after 5 ms');
    assert.equal(describeError('plain string'), 'plain string');
  });

  it('cuts a snippet at 4 KiB without splitting a character', () => {
    const text = 'é'.repeat(3000); // 2 bytes each
    const snippet = snippetOf(Buffer.from(text, 'utf8'));
    assert.equal(snippet, 'é'.repeat(2048));
    const odd = snippetOf(Buffer.from('a' + text, 'utf8'));
    assert.equal(odd, 'a' + 'é'.repeat(2047), 'the half character at the cut is dropped');
  });
});
