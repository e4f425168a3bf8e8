/**
 * Entry of the single binary (scripts/build-binary.mjs). It unpacks the native addons and
 * thread bundles, then runs the CLI; or, when the binary was started as one of its own helper
 * processes (`fork` of a bundled script runs this executable with the script's path), that
 * script; or, for `healthcheck`, only that (the container's probe needs none of the bundle).
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { healthcheck } from './healthcheck.js';
import { unpack, type BundleManifest } from './unpack.js';

// Replaced at build time with the manifest of the assets built into the binary.
declare const VIGIL_BUNDLE: BundleManifest;

function start(): void {
  let dir: string;
  try {
    dir = unpack(VIGIL_BUNDLE);
  } catch (err) {
    process.stderr.write(`vigil: ${(err as Error).message}\n`);
    process.exit(1);
  }
  process.env.VIGIL_BUNDLE_DIR = dir;
  const script = process.argv[2];
  if (script !== undefined && dirname(script) === dir && script.endsWith('.cjs')) {
    createRequire(script)(script);
  } else {
    void import('../cli.js');
  }
}

if (process.argv[2] === 'healthcheck') {
  void healthcheck(process.argv[3]).then((code) => process.exit(code));
} else {
  start();
}
