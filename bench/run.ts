import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run bench`: every bench/*.bench.js, one at a time, each in a fresh process (so one run's
 * heap and threads never colour the next), printing the markdown sections the README quotes.
 * Pass names to run a subset: `npm run bench -- api heartbeat`.
 */
const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.js'))
  .filter((f) => only.length === 0 || only.some((name) => f.startsWith(name)))
  .sort();

const sections: string[] = [`# Vigil benchmarks (${new Date().toISOString()}, Node ${process.version})`];
let failed = 0;
for (const file of files) {
  process.stderr.write(`running ${file} ...\n`);
  const r = spawnSync(process.execPath, ['--expose-gc', join(here, file)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) {
    failed++;
    sections.push(`### ${file}\n\nFAILED (exit ${r.status})`);
  } else sections.push(r.stdout.trim());
}
const report = sections.join('\n\n');
process.stdout.write(`${report}\n`);
writeFileSync(join(here, '..', '..', 'bench-results.md'), `${report}\n`);
process.exit(failed ? 1 : 0);
