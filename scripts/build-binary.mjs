// Builds dist/vigil-linux-x64: a Node single executable application (SEA) made from the Node
// that runs this script, with the native addons compiled on this machine (so it needs this
// machine's glibc; `npm run release` builds the portable ones through buildBinary() below). The code is bundled with esbuild; the native addons (better-sqlite3,
// uWebSockets.js for this Node's ABI, raw-socket) and the bundles that run on their own (the
// probe worker, piscina's own worker that loads it, the webhook worker, the checkpoint worker, the ICMP helper process) and the dashboard travel as SEA
// assets, which the binary unpacks into a cache directory named by their hash (src/binary/unpack.ts).
//
// Usage: node scripts/build-binary.mjs   (npm run build:binary)
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const pkg = (name) => join(root, 'node_modules', name);

/** The addons the bundles load, by the file name they ask for, for one CPU architecture. */
export function uwsAddon(arch, modules = process.versions.modules) {
  return `uws_linux_${arch}_${modules}.node`;
}

/** The installed packages' addons, compiled on this machine (so for its glibc and CPU). */
export function localNatives() {
  return {
    'better_sqlite3.node': join(pkg('better-sqlite3'), 'build', 'Release', 'better_sqlite3.node'),
    'raw.node': join(pkg('raw-socket'), 'build', 'Release', 'raw.node'),
  };
}

/** Loads a native addon from the directory the binary unpacked its assets into. */
const NATIVE_LOADER = `
const { join } = require('node:path');
module.exports = function loadNative(file) {
  const module = { exports: {} };
  process.dlopen(module, join(process.env.VIGIL_BUNDLE_DIR, file));
  return module.exports;
};`;

/** Every require of a native addon goes through NATIVE_LOADER. */
const nativeAddons = {
  name: 'native-addons',
  setup(build) {
    build.onResolve({ filter: /^vigil-native$/ }, () => ({ path: 'vigil-native', namespace: 'vigil' }));
    build.onLoad({ filter: /^vigil-native$/, namespace: 'vigil' }, () => ({ contents: NATIVE_LOADER, loader: 'js' }));
    // better-sqlite3 finds its addon with `require('bindings')('better_sqlite3.node')`.
    build.onResolve({ filter: /^bindings$/ }, () => ({ path: 'bindings', namespace: 'vigil' }));
    build.onLoad({ filter: /^bindings$/, namespace: 'vigil' }, () => ({
      contents: `module.exports = (file) => require('vigil-native')(file);`,
      loader: 'js',
    }));
    // raw-socket: require("./build/Release/raw.node").
    build.onResolve({ filter: /\.node$/ }, (args) => ({ path: args.path.split('/').pop(), namespace: 'vigil-node' }));
    build.onLoad({ filter: /.*/, namespace: 'vigil-node' }, (args) => ({
      contents: `module.exports = require('vigil-native')(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
    // ws tries the optional native bufferutil and utf-8-validate through node-gyp-build, whose
    // require() of a file on disk makes a single executable print a warning at every start:
    // the binary takes their pure-JS fallbacks (what the failed require fell back to anyway).
    build.onResolve({ filter: /^(bufferutil|utf-8-validate)$/ }, (args) => ({ path: join(pkg(args.path), 'fallback.js') }));
    // uWebSockets.js builds its addon's name at run time and falls back to a slow JS server when
    // the require fails: the binary must load its own addon or fail loudly.
    build.onLoad({ filter: /uWebSockets\.js[\\/]src[\\/]uws\.js$/ }, () => ({
      contents: `module.exports = require('vigil-native')('uws_' + process.platform + '_' + process.arch + '_' + process.versions.modules + '.node');`,
      loader: 'js',
    }));
  },
};

/**
 * piscina starts its threads on its own worker.js, found beside its index.js; in the binary
 * that worker is the unpacked piscina-worker.cjs. Only the path changes, not piscina.
 */
const PISCINA_WORKER_PATH = "(0, node_path_1.resolve)(__dirname, 'worker.js')";
const piscinaWorker = {
  name: 'piscina-worker',
  setup(build) {
    build.onLoad({ filter: /piscina[\\/]dist[\\/]index\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(PISCINA_WORKER_PATH)) throw new Error(`piscina no longer names its worker as ${PISCINA_WORKER_PATH}: update build-binary.mjs`);
      return {
        contents: source.replace(PISCINA_WORKER_PATH, "require('node:path').join(process.env.VIGIL_BUNDLE_DIR, 'piscina-worker.cjs')"),
        loader: 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  logLevel: 'warning',
  plugins: [nativeAddons, piscinaWorker],
  // piscina loads it only when asked to renice its threads (Vigil does not); node-postgres loads
  // pg-native only for `pg.native` and pg-cloudflare's socket only on Cloudflare Workers.
  external: ['@napi-rs/nice', 'pg-native', 'cloudflare:sockets'],
  // The bundles are CommonJS; the modules locate their neighbours from import.meta.url, which
  // then names the bundle itself (bundledFile() maps those names to the unpacked bundles).
  define: { 'import.meta.url': 'VIGIL_IMPORT_META_URL' },
  banner: { js: "var VIGIL_IMPORT_META_URL = require('node:url').pathToFileURL(__filename).href;" },
  legalComments: 'none',
  minifySyntax: true,
};

/**
 * Builds one binary and returns its path. `natives`: the addons (better_sqlite3.node, raw.node)
 * for `arch`; `node`: the Node executable for `arch` that becomes the binary (its version must be
 * this Node's: the bundles and uWebSockets.js's addon are chosen for this ABI); `build`: what
 * `vigil --version` says of the build ({ commit, target, glibc }); `makeBlob(configFile)`: runs
 * `node --experimental-sea-config` on a Node of `arch`.
 */
export async function buildBinary(options) {
  const arch = options.arch ?? process.arch;
  const node = options.node ?? process.execPath;
  const out = options.workDir ?? join(root, 'dist', arch === process.arch ? 'binary' : `binary-${arch}`);
  const target = options.output ?? join(root, 'dist', `vigil-linux-${arch}`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });

  const threads = {
    'probe-worker.cjs': join(root, 'src', 'engine', 'probe-worker.ts'),
    'piscina-worker.cjs': join(pkg('piscina'), 'dist', 'worker.js'),
    'webhook-worker.cjs': join(root, 'src', 'alerts', 'delivery', 'webhook-worker.ts'),
    'icmp-host.cjs': join(root, 'src', 'engine', 'probes', 'icmp-host.ts'),
    'checkpoint-worker.cjs': join(root, 'src', 'store', 'sqlite', 'checkpoint-worker.ts'),
    'password-worker.cjs': join(root, 'src', 'people', 'password-worker.ts'),
  };
  for (const [name, entry] of Object.entries(threads)) {
    await esbuild.build({ ...common, entryPoints: [entry], outfile: join(out, name) });
  }
  const natives = { ...options.natives, [uwsAddon(arch)]: join(pkg('uWebSockets.js'), 'binaries', uwsAddon(arch)) };
  for (const [name, file] of Object.entries(natives)) copyFileSync(file, join(out, name));

  // The dashboard's page and bundles (with their precompressed copies), served from the unpacked web/.
  execFileSync(process.execPath, [join(root, 'scripts', 'build-web.mjs')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  mkdirSync(join(out, 'web'));
  const web = readdirSync(join(root, 'dist', 'web')).map((name) => `web/${name}`);
  for (const name of web) copyFileSync(join(root, 'dist', name), join(out, name));

  const files = [...Object.keys(threads), ...Object.keys(natives), ...web].sort();
  const hash = createHash('sha256');
  for (const name of files) hash.update(name).update('\0').update(readFileSync(join(out, name)));
  const manifest = { hash: hash.digest('hex').slice(0, 16), files };

  await esbuild.build({
    ...common,
    entryPoints: [join(root, 'src', 'binary', 'main.ts')],
    outfile: join(out, 'main.cjs'),
    define: { ...common.define, VIGIL_BUNDLE: JSON.stringify(manifest), VIGIL_BUILD: JSON.stringify(options.build ?? null) },
  });

  const seaConfig = {
    main: join(out, 'main.cjs'),
    output: join(out, 'sea-prep.blob'),
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
    assets: Object.fromEntries(files.map((name) => [name, join(out, name)])),
  };
  writeFileSync(join(out, 'sea-config.json'), JSON.stringify(seaConfig, null, 2));
  // The code cache in the blob is V8's for the CPU it was made on: a binary for another CPU gets
  // its blob from that CPU's Node (release.mjs runs it under qemu).
  const makeBlob = options.makeBlob ?? ((config) => execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'inherit'] }));
  await makeBlob(join(out, 'sea-config.json'));

  copyFileSync(node, target);
  chmodSync(target, 0o755);
  const { inject } = require('postject');
  // postject prints a warning per ELF note it cannot name; they are harmless.
  const warn = console.warn;
  console.warn = () => {};
  try {
    await inject(target, 'NODE_SEA_BLOB', readFileSync(seaConfig.output), {
      sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
    });
  } finally {
    console.warn = warn;
  }
  const mb = (readFileSync(target).length / 1e6).toFixed(1);
  console.log(`built ${target} (${mb} MB, Node ${process.version}, bundle ${manifest.hash})`);
  return target;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.warn(`warning: building on ${process.platform}-${process.arch}; the binary runs only there`);
  }
  await buildBinary({ natives: localNatives() });
}
