import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { getAsset } from 'node:sea';

/** What the build put into the binary: the asset names and one hash of all their bytes. */
export interface BundleManifest {
  hash: string;
  files: string[];
}

/** `$XDG_CACHE_HOME/vigil`, else `~/.cache/vigil`. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && xdg.startsWith('/') ? xdg : join(homedir(), '.cache'), 'vigil');
}

/**
 * Writes the binary's native addons and thread bundles to `<cache>/<hash>` on the first start
 * of this build, and returns that directory. The files go to a temporary directory renamed
 * into place in one step, so a directory under the hash is always complete: a later start, or
 * another process racing this one, uses it as it is.
 */
export function unpack(manifest: BundleManifest, root = cacheRoot()): string {
  const dir = join(root, manifest.hash);
  if (existsSync(dir)) return dir;
  let staging: string | null = null;
  try {
    mkdirSync(root, { recursive: true });
    staging = mkdtempSync(join(root, `.${manifest.hash}-`));
    for (const name of manifest.files) {
      mkdirSync(dirname(join(staging, name)), { recursive: true });
      writeFileSync(join(staging, name), new Uint8Array(getAsset(name)));
    }
    renameSync(staging, dir);
  } catch (err) {
    if (staging) rmSync(staging, { recursive: true, force: true });
    // Another start won the race: its directory is as good as ours.
    if (existsSync(dir)) return dir;
    throw new Error(
      `cannot unpack the native modules into ${root} (${(err as Error).message}); ` +
        `set XDG_CACHE_HOME to a writable directory`,
    );
  }
  return dir;
}
