// `npm run release`: every artefact into dist/release/, each run as a user would before it is
// listed: vigil-linux-x64 (in Debian 11 by chroot and on this machine), vigil-linux-arm64 (in
// Debian 11 arm64 by chroot under qemu), the container image (its config read by skopeo, its
// root filesystem unpacked and run by chroot as its user); then SHA256SUMS and RELEASE.md.
// VIGIL_RELEASE_ARCHES=x64 leaves arm64 out (its first build makes an arm64 root under qemu:
// about 15 minutes on the 2-core build machine).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEBIAN_ARCH, debianRoot, SUITE } from './debian-root.mjs';
import { buildImage, checkImageConfig, IMAGE_USER, imageConfig, unpackImage } from './image.mjs';
import { GLIBC_FLOOR } from './natives.mjs';
import { smoke } from './smoke.mjs';
import { buildTarget, commitOf } from './targets.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
const out = join(repo, 'dist', 'release');
const arches = (process.env.VIGIL_RELEASE_ARCHES || 'x64,arm64').split(',');
const commit = commitOf();
const say = (line) => process.stderr.write(`release: ${line}\n`);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const artefacts = [];
const checks = [];
for (const arch of arches) {
  const binary = await buildTarget(arch, { output: join(out, `vigil-linux-${arch}`), commit });
  const runs = [await debianRoot(arch), ...(arch === process.arch ? [null] : [])];
  for (const root of runs) {
    say(`running vigil-linux-${arch} ${root ? `in ${basename(root)} by chroot` : 'on this machine'}`);
    const report = await smoke(binary, root);
    checks.push(`vigil-linux-${arch} ${root ? `in Debian ${SUITE} ${DEBIAN_ARCH[arch]} (glibc ${report.glibc}) by chroot` : `on the build machine (glibc ${report.glibc})`}: ${report.version}; serve listening in ${report.serveMs} ms, a check probed ${report.checkStatus}, backup ${report.backupBytes} bytes, SIGTERM exit ${report.exitCode}`);
  }
  artefacts.push({ file: basename(binary), what: `single binary, Linux ${arch}, glibc ${GLIBC_FLOOR} or newer` });
}

if (arches.includes('x64')) {
  const image = join(out, `vigil-${version}-image-linux-amd64.tar`);
  const tag = await buildImage(join(out, 'vigil-linux-x64'), { arch: 'x64', version, output: image });
  checkImageConfig(imageConfig(image));
  const rootfs = unpackImage(image);
  try {
    say('running the image by chroot as its user');
    const config = imageConfig(image).config;
    const env = Object.fromEntries(config.Env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
    const report = await smoke(null, rootfs, { installed: config.Entrypoint[0], env, user: `${IMAGE_USER.uid}:${IMAGE_USER.gid}` });
    checks.push(`the image's root filesystem by chroot as ${config.User}: ${report.version}; listening on ${report.listening}, a check probed ${report.checkStatus}, backup ${report.backupBytes} bytes, healthcheck "${report.healthcheck}"`);
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
  artefacts.push({ file: basename(image), what: `container image ${tag} (docker-archive: \`docker load -i\`)` });
}

const sums = artefacts.map(({ file }) => `${createHash('sha256').update(readFileSync(join(out, file))).digest('hex')}  ${file}`);
writeFileSync(join(out, 'SHA256SUMS'), `${sums.join('\n')}\n`);
const mb = (file) => `${(statSync(join(out, file)).size / 1e6).toFixed(1)} MB`;
writeFileSync(
  join(out, 'RELEASE.md'),
  `# Vigil ${version}

Commit ${commit}, Node ${process.version}. Minimum glibc: ${GLIBC_FLOOR} (Node 20's own floor;
the native modules are built in Debian 11 and bound to symbol versions no newer than ${GLIBC_FLOOR}).
Verify with \`sha256sum -c SHA256SUMS\`.

| file | what | size |
|---|---|---|
${artefacts.map(({ file, what }) => `| ${file} | ${what} | ${mb(file)} |`).join('\n')}

Run before release:
${checks.map((c) => `- ${c}`).join('\n')}
`,
);
console.log(readFileSync(join(out, 'RELEASE.md'), 'utf8'));
