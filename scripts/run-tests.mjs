// Runs every compiled *.test.js under dist/test with node's test runner. Listing the files
// ourselves keeps helper and fixture modules (also under a "test" folder) from being run as tests.
// `--fast` leaves out dist/test/slow: every test that starts a process (the CLI, vigil serve, prober
// nodes, the single binary, nginx, the browser);
// CI runs everything.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? find(join(dir, e.name)) : e.name.endsWith('.test.js') ? [join(dir, e.name)] : [],
  );
}

const args = process.argv.slice(2);
const fast = args.includes('--fast');
const files = find('dist/test')
  .filter((f) => !(fast && f.startsWith(join('dist', 'test', 'slow'))))
  .sort();
if (fast) console.log('test:fast: leaving out dist/test/slow (tests that start processes: CLI, serve, nodes, binary, nginx, browser)');
// Webhook tests deliver to a local HTTPS receiver whose certificate this committed test CA
// signed; Node reads NODE_EXTRA_CA_CERTS only at process start, so it is set for every test process.
const env = { ...process.env, NODE_EXTRA_CA_CERTS: fileURLToPath(new URL('../test/helpers/fixtures/tls/ca.pem', import.meta.url)) };
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...args.filter((a) => a !== '--fast'), ...files], {
  stdio: 'inherit',
  env,
});
process.exit(result.status ?? 1);
