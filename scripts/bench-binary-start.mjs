// Start times of the single binary (npm run build:binary first): `vigil help` to exit, and
// `vigil serve` to its "listening" line, cold (empty cache: the assets are unpacked) and warm.
// Usage: node scripts/bench-binary-start.mjs [--runs N] [--binary FILE]   (default 5 runs and
// dist/vigil-linux-<arch>; medians are printed; dist/release/vigil-linux-x64 for a release's)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const given = process.argv.indexOf('--binary');
const exe = given > 0 ? resolve(process.argv[given + 1]) : resolve(fileURLToPath(new URL('..', import.meta.url)), 'dist', `vigil-${process.platform}-${process.arch}`);
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function help(cache) {
  const t = performance.now();
  const r = spawnSync(exe, ['help'], { env: { ...process.env, XDG_CACHE_HOME: cache } });
  if (r.status !== 0) throw new Error(String(r.stderr));
  return performance.now() - t;
}

function serve(cache, dir) {
  return new Promise((done, fail) => {
    const t = performance.now();
    const child = spawn(exe, ['serve'], {
      env: { ...process.env, XDG_CACHE_HOME: cache, VIGIL_DATA_DIR: join(dir, 'data'), VIGIL_PORT: '0', VIGIL_CONFIG: '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (!out.includes('Vigil listening')) return;
      const ms = performance.now() - t;
      child.kill('SIGTERM');
      child.on('close', () => done(ms));
    });
    child.on('close', (code) => !out.includes('Vigil listening') && fail(new Error(`serve exited ${code}`)));
  });
}

const rows = { 'help, cold': [], 'help, warm': [], 'serve, cold': [], 'serve, warm': [] };
for (let i = 0; i < runs; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-start-'));
  rows['help, cold'].push(help(join(dir, 'cache-help')));
  rows['help, warm'].push(help(join(dir, 'cache-help')));
  rows['serve, cold'].push(await serve(join(dir, 'cache-serve'), join(dir, 'a')));
  rows['serve, warm'].push(await serve(join(dir, 'cache-serve'), join(dir, 'b')));
  rmSync(dir, { recursive: true, force: true });
}
console.log(`${exe}: ${(statSync(exe).size / 1e6).toFixed(1)} MB; median of ${runs} runs`);
for (const [name, xs] of Object.entries(rows)) console.log(`${name.padEnd(12)} ${median(xs).toFixed(0)} ms`);
