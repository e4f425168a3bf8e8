// The container image (Containerfile at the repository's root), built without a daemon by
// Debian's buildah into a docker-archive file (`docker load` / `podman load`). Its base is made
// here from the Debian 11 root of the binary's CPU: glibc, libgcc and libstdc++ as packaged
// there (the binary's only libraries, with glibc's NSS modules for name lookups), and the CA
// certificates. The binary's assets are unpacked into the image at build time, so a start
// writes only to /data.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { debianRoot, DEBIAN_ARCH, inRoot } from './debian-root.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const IMAGE_USER = { uid: 10001, gid: 10001, name: 'vigil' };
const RUNTIME_PACKAGES = ['libc6', 'libgcc-s1', 'libstdc++6'];

/** Lays out the build context: rootfs/ and data/. */
async function context(binary, arch, dir) {
  const root = await debianRoot(arch);
  const rootfs = join(dir, 'rootfs');
  const files = inRoot(root, ['dpkg-query', '-L', ...RUNTIME_PACKAGES], { quiet: true })
    .split('\n')
    .filter((f) => /^\/(usr\/)?lib(64)?\//.test(f) && /\.so(\.|$)/.test(f) && !f.includes('/gconv/') && !f.includes('/audit/'));
  for (const file of files) {
    mkdirSync(dirname(join(rootfs, file)), { recursive: true });
    cpSync(join(root, file), join(rootfs, file), { verbatimSymlinks: true });
  }
  mkdirSync(join(rootfs, 'etc', 'ssl', 'certs'), { recursive: true });
  copyFileSync(join(root, 'etc', 'ssl', 'certs', 'ca-certificates.crt'), join(rootfs, 'etc', 'ssl', 'certs', 'ca-certificates.crt'));
  const { uid, gid, name } = IMAGE_USER;
  writeFileSync(join(rootfs, 'etc', 'passwd'), `root:x:0:0:root:/root:/sbin/nologin\n${name}:x:${uid}:${gid}:Vigil:/data:/sbin/nologin\n`);
  writeFileSync(join(rootfs, 'etc', 'group'), `root:x:0:\n${name}:x:${gid}:\n`);
  writeFileSync(join(rootfs, 'etc', 'nsswitch.conf'), 'passwd: files\ngroup: files\nhosts: files dns\n');
  for (const d of ['tmp', 'proc', 'dev', 'var/cache']) mkdirSync(join(rootfs, d), { recursive: true });
  chmodSync(join(rootfs, 'tmp'), 0o1777);
  mkdirSync(join(rootfs, 'usr', 'local', 'bin'), { recursive: true });
  copyFileSync(binary, join(rootfs, 'usr', 'local', 'bin', 'vigil'));
  chmodSync(join(rootfs, 'usr', 'local', 'bin', 'vigil'), 0o755);
  // Unpacks the assets into /var/cache/vigil/<hash> (read-only at run time), as the image runs it.
  execFileSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', `mount -t proc proc "$0/proc" && exec chroot "$0" /usr/local/bin/vigil --version`, rootfs], {
    env: { PATH: '/usr/bin:/bin:/usr/sbin:/sbin', XDG_CACHE_HOME: '/var/cache', HOME: '/tmp' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // unpack() makes its directory private to the user who unpacked it (root here).
  execFileSync('chmod', ['-R', 'a+rX', join(rootfs, 'var', 'cache', 'vigil')]);
  mkdirSync(join(dir, 'data'));
  chownSync(join(dir, 'data'), uid, gid);
}

/**
 * Builds the image of `binary` (for `arch`) into `output` (a docker-archive tar) tagged
 * `vigil:<version>`; returns the tag.
 */
export async function buildImage(binary, { arch, version, output }) {
  const work = mkdtempSync(join(tmpdir(), 'vigil-image-'));
  const storage = ['--root', join(work, 'storage'), '--runroot', join(work, 'run'), '--storage-driver', 'vfs'];
  const tag = `localhost/vigil:${version}`;
  try {
    await context(binary, arch, join(work, 'context'));
    const buildah = (...args) => execFileSync('buildah', [...storage, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
    buildah('bud', '--quiet', '--format', 'docker', '--isolation', 'chroot', '--arch', DEBIAN_ARCH[arch], '-f', join(repo, 'Containerfile'), '-t', tag, join(work, 'context'));
    rmSync(output, { force: true });
    buildah('push', '--quiet', tag, `docker-archive:${output}:${tag}`);
    return tag;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The image's config as the archive holds it (`skopeo inspect --config --raw`: without --raw, skopeo shows it as OCI's, which has no health check). */
export function imageConfig(archive) {
  return JSON.parse(execFileSync('skopeo', ['inspect', '--config', '--raw', `docker-archive:${archive}`], { encoding: 'utf8' }));
}

/** Unpacks the image's root filesystem (its layers in order) into a new directory and returns it. */
export function unpackImage(archive, into = mkdtempSync(join(tmpdir(), 'vigil-image-rootfs-'))) {
  chmodSync(into, 0o755);
  const raw = join(into, '.archive');
  mkdirSync(raw);
  execFileSync('tar', ['-xf', archive, '-C', raw]);
  const [{ Layers }] = JSON.parse(readFileSync(join(raw, 'manifest.json'), 'utf8'));
  for (const layer of Layers) execFileSync('tar', ['-xpf', join(raw, layer), '-C', into]);
  rmSync(raw, { recursive: true, force: true });
  return into;
}

/** Throws unless the config runs as a non-root user, keeps /data, checks /readyz, serves 8080 on all addresses. */
export function checkImageConfig({ config }) {
  const want = [
    [config.User === `${IMAGE_USER.uid}:${IMAGE_USER.gid}`, `User ${config.User}`],
    [Object.keys(config.Volumes ?? {}).join() === '/data', `Volumes ${JSON.stringify(config.Volumes)}`],
    [Object.keys(config.ExposedPorts ?? {}).join() === '8080/tcp', `ExposedPorts ${JSON.stringify(config.ExposedPorts)}`],
    [config.Healthcheck?.Test?.join(' ') === 'CMD /usr/local/bin/vigil healthcheck', `Healthcheck ${JSON.stringify(config.Healthcheck)}`],
    [config.Entrypoint?.join(' ') === '/usr/local/bin/vigil' && config.Cmd?.join(' ') === 'serve', `Entrypoint ${config.Entrypoint} Cmd ${config.Cmd}`],
    [config.Env?.includes('VIGIL_HOST=0.0.0.0') && config.Env?.includes('VIGIL_PORT=8080'), `Env ${config.Env}`],
  ];
  const wrong = want.filter(([ok]) => !ok).map(([, what]) => what);
  if (wrong.length) throw new Error(`the image's config is not as the Containerfile says: ${wrong.join('; ')}`);
}
