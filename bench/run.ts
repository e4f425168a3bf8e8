import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { generateDocs, REPORT } from './docs.js';
import { fileURLToPath } from 'node:url';

/**
 * `npm run bench`: every bench/*.bench.js, one at a time, each in a fresh process (so one run's
 * heap and threads never colour the next). The report (bench-results.md) keeps each bench's
 * markdown between markers, and docs/performance.md's tables are regenerated from it.
 * Pass names to run a subset: `npm run bench -- api heartbeat`.
 */
const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.js'))
  .filter((f) => only.length === 0 || only.some((name) => f.startsWith(name)))
  .sort();

const sections: string[] = [`# Vigil benchmarks (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version})`];
let failed = 0;
for (const file of files) {
  process.stderr.write(`running ${file} ...\n`);
  const name = file.replace(/\.bench\.js$/, '');
  const r = spawnSync(process.execPath, ['--expose-gc', join(here, file)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const body = r.status === 0 ? r.stdout.trim() : `FAILED (exit ${r.status})`;
  if (r.status !== 0) failed++;
  sections.push(`<!-- report:${name} -->\n${body}\n<!-- /report:${name} -->`);
}
const report = sections.join('\n\n');
process.stdout.write(`${report}\n`);
writeFileSync(REPORT, `${report}\n`);
const filled = generateDocs();
process.stderr.write(`docs/performance.md regenerated: ${filled.join(', ') || 'nothing'}\n`);
process.exit(failed ? 1 : 0);
