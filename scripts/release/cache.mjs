// The release build's cache, outside the repository: Debian roots (minutes to make), native
// addons built in them, Node for other CPUs, and binaries by the hash of their source.
// $VIGIL_BUILD_CACHE, else $XDG_CACHE_HOME/vigil-build, else ~/.cache/vigil-build.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';

export function cachePath(...parts) {
  const xdg = process.env.XDG_CACHE_HOME;
  const base = process.env.VIGIL_BUILD_CACHE || join(xdg && xdg.startsWith('/') ? xdg : join(homedir(), '.cache'), 'vigil-build');
  return join(base, ...parts);
}

/**
 * `dir` made once by `make(staging)`: a directory that exists is complete, because it is made
 * under another name and renamed into place only when `make` succeeded.
 */
export async function cached(dir, make) {
  if (existsSync(dir)) return dir;
  mkdirSync(dirname(dir), { recursive: true });
  const staging = `${dir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  try {
    await make(staging);
    renameSync(staging, dir);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  return dir;
}

/** Adds every file under `dir` (names and bytes, in a stable order) to `hash`, but `skip`ped names. */
export function hashTree(hash, dir, skip = new Set(['node_modules', 'build', '.git'])) {
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (skip.has(entry.name)) continue;
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) hash.update(relative(dir, path)).update('\0').update(readFileSync(path));
    }
  };
  walk(dir);
  return hash;
}

export const sha256 = () => createHash('sha256');
