// Node for each CPU the release builds for: the executable that becomes the binary and the
// headers the addons compile against. This machine's is the Node running the build; another
// CPU's is the same version from the npm registry's `node-linux-<arch>` package.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { cached, cachePath } from './cache.mjs';

/** { exe, nodedir } of Node `process.version` for `arch` (nodedir holds include/node). */
export async function nodeFor(arch) {
  if (arch === process.arch) {
    const nodedir = resolve(dirname(process.execPath), '..');
    if (existsSync(join(nodedir, 'include', 'node', 'node_version.h'))) return { exe: process.execPath, nodedir };
  }
  const version = process.version.slice(1);
  const dir = await cached(cachePath('node', `${version}-${arch}`), (staging) => {
    const packed = join(staging, 'packed');
    mkdirSync(packed);
    execFileSync('npm', ['pack', '--silent', '--pack-destination', packed, `node-linux-${arch}@${version}`], { cwd: staging, stdio: ['ignore', 'ignore', 'inherit'] });
    const [tgz] = readdirSync(packed);
    execFileSync('tar', ['-xzf', join(packed, tgz), '--strip-components=1', '-C', staging, 'package/bin/node', 'package/include']);
  });
  return { exe: join(dir, 'bin', 'node'), nodedir: dir };
}
