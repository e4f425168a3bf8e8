// Debian roots made with debootstrap from Debian's packages, and commands run inside them with
// chroot. The binaries are built in Debian 11 (bullseye, glibc 2.31): the oldest suite the
// Debian mirror still serves (Debian 10, glibc 2.28, has moved to the archive, which is not
// reachable from the build machines). Roots are cached by suite and architecture.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cached, cachePath } from './cache.mjs';

export const SUITE = 'bullseye';
const MIRROR = process.env.VIGIL_DEBIAN_MIRROR || 'http://deb.debian.org/debian';
/** Debian's names for Node's architectures. */
export const DEBIAN_ARCH = { x64: 'amd64', arm64: 'arm64' };

/**
 * The build root (this machine's CPU) has the compilers, the arm64 cross compilers among them;
 * a root of another CPU only runs things, under qemu-user through binfmt_misc.
 */
const PACKAGES = {
  build: ['build-essential', 'python3', 'g++-aarch64-linux-gnu', 'binutils-aarch64-linux-gnu', 'ca-certificates'],
  run: ['ca-certificates'],
};

function say(line) {
  process.stderr.write(`release: ${line}\n`);
}

/** The root of `arch` ('x64' or 'arm64'), made on first use (a few minutes) and kept. */
export async function debianRoot(arch) {
  const native = arch === process.arch;
  const debArch = DEBIAN_ARCH[arch];
  const dir = cachePath('roots', `${SUITE}-${debArch}`);
  return cached(dir, async (staging) => {
    const started = Date.now();
    say(`debootstrap ${SUITE} ${debArch} into ${dir} (once; cached)`);
    const include = `--include=${(native ? PACKAGES.build : PACKAGES.run).join(',')}`;
    const common = ['--variant=minbase', `--arch=${debArch}`, include];
    if (native) {
      execFileSync('debootstrap', [...common, SUITE, staging, MIRROR], { stdio: ['ignore', 'ignore', 'inherit'] });
    } else {
      enableQemu(arch);
      execFileSync('debootstrap', ['--foreign', ...common, SUITE, staging, MIRROR], { stdio: ['ignore', 'ignore', 'inherit'] });
      execFileSync('chroot', [staging, '/debootstrap/debootstrap', '--second-stage'], { stdio: ['ignore', 'ignore', 'inherit'] });
    }
    // The downloaded packages are half the root's size and never used again.
    execFileSync('sh', ['-c', 'rm -f "$0"/var/cache/apt/archives/*.deb', staging]);
    say(`debootstrap ${SUITE} ${debArch}: ${Math.round((Date.now() - started) / 1000)} s`);
  });
}

/** Lets the kernel run arm64 programs through Debian's qemu-user-static (binfmt_misc, flag F). */
export function enableQemu(arch) {
  const name = { arm64: 'qemu-aarch64' }[arch];
  const entry = `/proc/sys/fs/binfmt_misc/${name}`;
  if (existsSync(entry) && readFileSync(entry, 'utf8').startsWith('enabled')) return;
  if (!existsSync('/proc/sys/fs/binfmt_misc/register')) execFileSync('mount', ['-t', 'binfmt_misc', 'binfmt_misc', '/proc/sys/fs/binfmt_misc']);
  execFileSync('update-binfmts', ['--enable', name]);
}

const quote = (s) => `'${String(s).replaceAll("'", `'\\''`)}'`;

/**
 * The command line that runs `argv` in `root` with chroot, in a mount namespace of its own
 * (so /proc, the `binds` — host directories shown at the same path inside — and the `mounts`
 * ([host directory, path inside]) vanish with it). It ends in `exec`, so the process spawned is the command itself: signals reach it.
 */
export function chrootCommand(root, argv, { binds = [], mounts = [], env = {}, user = null } = {}) {
  const script = [
    'set -e',
    'chroot=$(command -v chroot)',
    `mount -t proc proc ${quote(`${root}/proc`)}`,
    ...[...binds.map((b) => [b, b]), ...mounts].flatMap(([from, to]) => [`mkdir -p ${quote(root + to)}`, `mount --bind ${quote(from)} ${quote(root + to)}`]),
    `exec env -i ${Object.entries({ PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/root', ...env })
      .map(([k, v]) => quote(`${k}=${v}`))
      .join(' ')} "$chroot" ${user ? `--userspec=${user} ` : ''}${quote(root)} ${argv.map(quote).join(' ')}`,
  ].join('\n');
  return ['unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script]];
}

/** Runs `argv` in `root` and returns its stdout; throws with its stderr when it fails. */
export function inRoot(root, argv, options = {}) {
  const [cmd, args] = chrootCommand(root, argv, options);
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', options.quiet ? 'pipe' : 'inherit'], maxBuffer: 64 << 20 });
}

/** Starts `argv` in `root` (see chrootCommand) and returns the child. */
export function spawnInRoot(root, argv, options = {}) {
  const [cmd, args] = chrootCommand(root, argv, options);
  return spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The root's glibc version, as its ldd says. */
export function glibcOf(root) {
  return inRoot(root, ['ldd', '--version'], { quiet: true }).split('\n')[0].match(/(\d+\.\d+)\s*$/)[1];
}

// `node scripts/release/debian-root.mjs [x64|arm64]` makes the root ahead of use (.ci/run does,
// while npm ci runs) and prints its path.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(await debianRoot(process.argv[2] ?? process.arch));
}
