// The native addons for one CPU, compiled in the Debian 11 build root (glibc 2.31) with symbol
// versions bound for glibc 2.28 (glibc-compat.h), cached by the hash of everything they are
// built from. arm64's are cross-compiled there with Debian's aarch64 compilers.
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cached, cachePath, hashTree, sha256 } from './cache.mjs';
import { debianRoot, inRoot, SUITE } from './debian-root.mjs';
import { nodeFor } from './node-dist.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const modules = join(repo, 'node_modules');
const COMPAT = join(dirname(fileURLToPath(import.meta.url)), 'glibc-compat.h');

/** Packages with a binding.gyp, by the addon the bundles load. */
export const NATIVE_PACKAGES = { 'better-sqlite3': 'better_sqlite3.node', 'raw-socket': 'raw.node' };
/** Packages with a binding.gyp the binary never loads (build-binary.mjs takes their JS fallbacks). */
const UNLOADED = new Set(['bufferutil', 'utf-8-validate']);
/** Packages the builds read besides their own (raw-socket's headers). */
const BUILD_HELPERS = ['nan'];
/** The oldest glibc the release binaries load on: Node 20's own floor. */
export const GLIBC_FLOOR = '2.28';

const CROSS = { arm64: { CC: 'aarch64-linux-gnu-gcc', CXX: 'aarch64-linux-gnu-g++', LINK: 'aarch64-linux-gnu-g++', AR: 'aarch64-linux-gnu-ar' } };
const OBJDUMP = { x64: 'objdump', arm64: 'aarch64-linux-gnu-objdump' };

/** Fails when a new dependency brings an addon nobody builds here. */
function checkNativePackages() {
  const names = readdirSync(modules).flatMap((n) => (n.startsWith('@') ? readdirSync(join(modules, n)).map((m) => `${n}/${m}`) : [n]));
  const unknown = names.filter((n) => existsSync(join(modules, n, 'binding.gyp')) && !(n in NATIVE_PACKAGES) && !UNLOADED.has(n));
  if (unknown.length) throw new Error(`native packages the release does not build: ${unknown.join(', ')} (add them to scripts/release/natives.mjs)`);
}

/** { 'better_sqlite3.node': path, 'raw.node': path } for `arch`. */
export async function buildNatives(arch) {
  checkNativePackages();
  const key = sha256().update(`${SUITE}\0${arch}\0${process.version}\0`).update(readFileSync(COMPAT));
  for (const name of [...Object.keys(NATIVE_PACKAGES), ...BUILD_HELPERS]) hashTree(key.update(`\0${name}\0`), join(modules, name));
  const dir = cachePath('natives', `${arch}-${key.digest('hex').slice(0, 16)}`);
  await cached(dir, async (staging) => {
    const root = await debianRoot(process.arch);
    const tools = await toolsInRoot(root);
    const { nodedir } = await nodeFor(arch);
    const work = join(root, 'tmp', `vigil-natives-${process.pid}`);
    rmSync(work, { recursive: true, force: true });
    try {
      for (const name of [...Object.keys(NATIVE_PACKAGES), ...BUILD_HELPERS]) {
        cpSync(join(modules, name), join(work, 'node_modules', name), { recursive: true, filter: (src) => basename(src) !== 'build' });
      }
      const inside = work.slice(root.length);
      const env = {
        PATH: `${tools}/bin:/usr/bin:/bin`,
        HOME: '/tmp',
        CFLAGS: `-include ${inside}/glibc-compat.h`,
        CXXFLAGS: `-include ${inside}/glibc-compat.h`,
        ...CROSS[arch],
      };
      copyFileSync(COMPAT, join(work, 'glibc-compat.h'));
      for (const [name, addon] of Object.entries(NATIVE_PACKAGES)) {
        const cwd = `${inside}/node_modules/${name}`;
        process.stderr.write(`release: compiling ${name} for linux-${arch} in Debian ${SUITE}\n`);
        inRoot(root, ['sh', '-c', `cd ${cwd} && node ${tools}/npm/node_modules/node-gyp/bin/node-gyp.js rebuild --release --arch=${arch} --nodedir=/mnt/vigil-node -j 2 >build.log 2>&1 || { tail -40 build.log >&2; exit 1; }`], {
          env,
          mounts: [[join(nodedir, 'include'), '/mnt/vigil-node/include']],
        });
        copyFileSync(join(work, 'node_modules', name, 'build', 'Release', addon), join(staging, addon));
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    for (const addon of Object.values(NATIVE_PACKAGES)) {
      const needed = glibcNeeded(root, arch, join(staging, addon));
      if (newer(needed, GLIBC_FLOOR)) throw new Error(`${addon} for ${arch} needs glibc ${needed}, newer than ${GLIBC_FLOOR}`);
    }
  });
  return Object.fromEntries(Object.values(NATIVE_PACKAGES).map((addon) => [addon, join(dir, addon)]));
}

/** This machine's Node and npm (for node-gyp) copied into the build root once per Node version. */
async function toolsInRoot(root) {
  const inside = `/opt/vigil-build/node-${process.version}`;
  await cached(join(root, inside), (staging) => {
    mkdirSync(join(staging, 'bin'));
    copyFileSync(process.execPath, join(staging, 'bin', 'node'));
    const npm = resolve(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm');
    cpSync(npm, join(staging, 'npm'), { recursive: true });
  });
  return inside;
}

const parts = (v) => v.split('.').map(Number);
/** Whether glibc version `a` is newer than `b`. */
export function newer(a, b) {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
}

/** The newest GLIBC_x.y symbol version `file` (an ELF of `arch`) asks for, read by objdump in the build root. */
export function glibcNeeded(root, arch, file) {
  const out = inRoot(root, [OBJDUMP[arch], '-T', `/mnt/vigil-inspect/${basename(file)}`], { mounts: [[dirname(file), '/mnt/vigil-inspect']], quiet: true });
  const versions = [...out.matchAll(/GLIBC_(\d+(?:\.\d+)+)/g)].map((m) => m[1]);
  return versions.reduce((max, v) => (newer(v, max) ? v : max), '0');
}
