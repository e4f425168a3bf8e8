import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fill, sections, summary } from '../../bench/docs.js';
import { headline } from '../../bench/lib/harness.js';
import { parseWrk } from '../../bench/lib/wrk.js';

const report = [
  '# Vigil benchmarks (2026-01-01 00:00 UTC, Node v20)',
  '<!-- report:api -->\n### Checks API\n\n| a |\n| --- |\n| 1 |\n<!-- /report:api -->',
  '<!-- report:engine -->\nFAILED (exit 1)\n<!-- /report:engine -->',
].join('\n\n');

test('the docs blocks are replaced by the report sections of the same bench, headings one level up', () => {
  const doc = 'intro\n\n<!-- bench:api -->\nold table\n<!-- /bench:api -->\n\nprose\n\n<!-- bench:engine -->\nkept\n<!-- /bench:engine -->\n';
  const { doc: next, filled } = fill(doc, sections(report), 'stamp');
  assert.deepEqual(filled, ['api']);
  assert.equal(next, 'intro\n\n<!-- bench:api -->\n## Checks API\n\n| a |\n| --- |\n| 1 |\n\n_stamp_\n<!-- /bench:api -->\n\nprose\n\n<!-- bench:engine -->\nkept\n<!-- /bench:engine -->\n');
  assert.equal(fill(next, sections(report), 'stamp').doc, next, 'regenerating is stable');
});

test('a bench that skipped itself (nothing to compare with) leaves its block as it was', () => {
  const skipped = sections('<!-- report:before-after -->\nSKIPPED: no build to compare with\n<!-- /report:before-after -->');
  const doc = '<!-- bench:before-after -->\nthe last pair\n<!-- /bench:before-after -->\n';
  const { doc: next, filled } = fill(doc, skipped, 'stamp');
  assert.deepEqual(filled, []);
  assert.equal(next, doc);
});

test("the README's summary collects the headlines of every block, in page order", () => {
  const get = { measure: 'GET one check', figure: '50,000 req/s', baseline: 'hello 100,000 req/s', ratio: '50.0%', target: '≥ 50%' };
  const ping = { ...get, measure: 'durable ping', ratio: '25.0%' };
  const doc = `<!-- bench:api -->\n| table |\n${headline(get)}\n<!-- /bench:api -->\nprose\n<!-- bench:heartbeat -->\n${headline(ping)}\n<!-- /bench:heartbeat -->`;
  const lines = summary(doc).split('\n');
  assert.equal(lines.length, 4);
  assert.equal(lines[2], '| GET one check | 50,000 req/s | hello 100,000 req/s | 50.0% | ≥ 50% |');
  assert.match(lines[3]!, /^\| durable ping \|/);
  const readme = fill('# Vigil\n<!-- bench:summary -->\nold\n<!-- /bench:summary -->\n', new Map([['summary', summary(doc)]]), 'stamp').doc;
  assert.match(readme, /<!-- bench:summary -->\n\| measure \| Vigil/);
});

test('wrk output is read: rate, latency percentiles in any unit, non-2xx and socket errors', () => {
  const out = `Running 2s test @ http://127.0.0.1:1
  1 threads and 200 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     5.01ms    2.00ms  40.00ms   90.00%
  Latency Distribution
     50%  850.00us
     75%    5.00ms
     90%    8.00ms
     99%    1.20s
  28216 requests in 1.00s, 5.00MB read
  Socket errors: connect 0, read 2, write 0, timeout 3
  Non-2xx or 3xx responses: 7
Requests/sec:  28216.50
Transfer/sec:      5.00MB
`;
  assert.deepEqual(parseWrk(out), { requestsPerSec: 28216.5, p50Ms: 0.85, p99Ms: 1200, non2xx: 7, errors: 5, total: 28216 });
});
