// One release binary: Node of the target's CPU, the addons built in Debian 11 for it, and the
// SEA blob made by that CPU's Node (under qemu for arm64, inside the arm64 root).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBinary, uwsAddon } from '../build-binary.mjs';
import { cached, cachePath, hashTree, sha256 } from './cache.mjs';
import { debianRoot, inRoot } from './debian-root.mjs';
import { buildNatives, GLIBC_FLOOR, glibcNeeded, newer } from './natives.mjs';
import { nodeFor } from './node-dist.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The commit the build is made from, `-dirty` when the work tree has changes. */
export function commitOf() {
  const git = (...args) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
  try {
    return git('rev-parse', '--short=12', 'HEAD') + (git('status', '--porcelain', '--untracked-files=no') ? '-dirty' : '');
  } catch {
    return 'unknown';
  }
}

/** Builds `vigil-linux-<arch>` into `output` and returns its path. */
export async function buildTarget(arch, { output, commit = commitOf(), workDir }) {
  const natives = await buildNatives(arch);
  const { exe } = await nodeFor(arch);
  // Node and uWebSockets.js come prebuilt: their floors are checked like the addons built here.
  const buildRoot = await debianRoot(process.arch);
  for (const file of [exe, join(repo, 'node_modules', 'uWebSockets.js', 'binaries', uwsAddon(arch))]) {
    const needed = glibcNeeded(buildRoot, arch, file);
    if (newer(needed, GLIBC_FLOOR)) throw new Error(`${file} needs glibc ${needed}, newer than ${GLIBC_FLOOR}`);
  }
  let makeBlob;
  if (arch !== process.arch) {
    const root = await debianRoot(arch);
    makeBlob = (config) => inRoot(root, [exe, '--experimental-sea-config', config], { binds: [dirname(config), dirname(dirname(exe))] });
  }
  return buildBinary({ arch, natives, node: exe, output, workDir, makeBlob, build: { commit, target: `linux-${arch}`, glibc: GLIBC_FLOOR } });
}

/**
 * `vigil-linux-<arch>` built once per source: cached by the hash of everything the binary is
 * made from (src/, web/, the build scripts, the lock file, this Node), for the slow test.
 */
export async function cachedTarget(arch) {
  const hash = sha256().update(`${arch}\0${process.version}\0`);
  for (const path of ['src', 'web', 'scripts/build-binary.mjs', 'scripts/build-web.mjs', 'scripts/release', 'package.json', 'package-lock.json', 'Containerfile']) {
    const full = join(repo, path);
    if (statSync(full).isDirectory()) hashTree(hash.update(`\0${path}\0`), full);
    else hash.update(`\0${path}\0`).update(readFileSync(full));
  }
  const name = `${arch}-${hash.digest('hex').slice(0, 16)}`;
  const binaries = cachePath('binaries');
  // One binary per CPU is kept (118 MB each): the previous source's goes when the source changes.
  if (existsSync(binaries)) for (const old of readdirSync(binaries)) if (old.startsWith(`${arch}-`) && old !== name && !old.includes('.partial-')) rmSync(join(binaries, old), { recursive: true, force: true });
  const dir = await cached(join(binaries, name), async (staging) => {
    await buildTarget(arch, { output: join(staging, `vigil-linux-${arch}`), workDir: join(staging, 'work') });
    rmSync(join(staging, 'work'), { recursive: true, force: true });
  });
  return join(dir, `vigil-linux-${arch}`);
}
