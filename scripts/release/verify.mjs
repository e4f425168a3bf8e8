// What the slow test (test/slow/release-binary.test.ts) runs: the release binary for this CPU,
// built once per source (targets.mjs cachedTarget), run in Debian 11 by chroot and on this
// machine, and its container image built, inspected and run by chroot from its unpacked root
// filesystem. Prints one JSON report; timings of each step go to stderr.
// Usage: node scripts/release/verify.mjs
import { rmSync } from 'node:fs';
import { debianRoot } from './debian-root.mjs';
import { buildImage, IMAGE_USER, imageConfig, unpackImage } from './image.mjs';
import { glibcNeeded } from './natives.mjs';
import { smoke } from './smoke.mjs';
import { cachedTarget } from './targets.mjs';

const started = performance.now();
const step = async (name, run) => {
  const t = performance.now();
  const value = await run();
  process.stderr.write(`verify: ${name} ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
  return value;
};

const arch = process.arch;
const root = await step('debian root', () => debianRoot(arch));
const binary = await step('binary (cached by source)', () => cachedTarget(arch));
const report = { binary, glibcNeeded: { binary: glibcNeeded(root, arch, binary) } };
report.inOldRoot = await step('smoke in the old root', () => smoke(binary, root));
report.onThisMachine = await step('smoke on this machine', () => smoke(binary));
const image = `${binary}-image.tar`;
await step('image', () => buildImage(binary, { arch, version: 'verify', output: image }));
report.imageConfig = imageConfig(image).config;
const rootfs = unpackImage(image);
try {
  const env = Object.fromEntries(report.imageConfig.Env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  report.inImage = await step('smoke in the image', () =>
    smoke(null, rootfs, { installed: report.imageConfig.Entrypoint[0], env, user: `${IMAGE_USER.uid}:${IMAGE_USER.gid}` }),
  );
} finally {
  rmSync(rootfs, { recursive: true, force: true });
  rmSync(image, { force: true });
}
process.stderr.write(`verify: total ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
console.log(JSON.stringify(report));
