// Bundles the dashboard (web/) into dist/web with esbuild: content-hashed ES modules (uPlot in
// its own chunk, loaded by the check page), one CSS file, index.html pointing at them, and a
// brotli and a gzip copy of each, so the server sends precompressed bytes and never compresses.
import { build } from 'esbuild';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist/web');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const result = await build({
  entryPoints: [join(root, 'web/main.js')],
  bundle: true,
  splitting: true,
  format: 'esm',
  minify: true,
  target: ['chrome100', 'firefox100', 'safari15'],
  outdir: out,
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const outputs = Object.entries(result.metafile.outputs);
const entry = outputs.find(([, o]) => o.entryPoint === 'web/main.js' || o.entryPoint?.endsWith('/web/main.js'));
const js = basename(entry[0]);
const css = basename(entry[1].cssBundle);
const page = readFileSync(join(root, 'web/index.html'), 'utf8').replace('%JS%', js).replace('%CSS%', css);
writeFileSync(join(out, 'index.html'), page);

const sizes = { js: 0, jsGzip: 0, jsInitialGzip: 0, cssGzip: 0 };
for (const name of readdirSync(out)) {
  const bytes = readFileSync(join(out, name));
  const gz = gzipSync(bytes, { level: 9 });
  writeFileSync(join(out, `${name}.gz`), gz);
  writeFileSync(join(out, `${name}.br`), brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  if (name.endsWith('.js')) {
    sizes.js += bytes.length;
    sizes.jsGzip += gz.length;
    if (name === js || entry[1].imports.some((i) => !i.kind.startsWith('dynamic') && basename(i.path) === name)) sizes.jsInitialGzip += gz.length;
  }
  if (name.endsWith('.css')) sizes.cssGzip += gz.length;
}
writeFileSync(join(out, 'sizes.json'), `${JSON.stringify(sizes)}\n`);
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`dashboard: ${kib(sizes.jsGzip)} gzipped JavaScript in all (${kib(sizes.jsInitialGzip)} before the chart), ${kib(sizes.cssGzip)} CSS`);
