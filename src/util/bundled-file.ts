import { isSea } from 'node:sea';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where a module that runs on its own (a worker thread, a helper process) lives. From a
 * checkout that is the compiled file beside its caller; in the single binary it is the bundle
 * of the same name that the binary unpacked into its cache directory at start
 * (see src/binary/unpack.ts and scripts/build-binary.mjs).
 */
export function bundledFile(name: string, beside: URL): string {
  return bundledPath(`${name}.cjs`, beside);
}

/** A directory of files the binary carries (the dashboard's `web`), found the same way. */
export function bundledDir(name: string, beside: URL): string {
  return bundledPath(name, beside);
}

function bundledPath(entry: string, beside: URL): string {
  if (!isSea()) return fileURLToPath(beside);
  const dir = process.env.VIGIL_BUNDLE_DIR;
  if (!dir) throw new Error(`the single binary's bundle directory is unknown (cannot find ${entry})`);
  return join(dir, entry);
}
