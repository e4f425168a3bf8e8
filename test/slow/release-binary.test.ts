import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VERSION } from '../../src/version.js';

/**
 * Issue 41: the release binary runs on glibc older than the build machine's, and so does the
 * container image. scripts/release/verify.mjs builds the binary once per source (cached under
 * ~/.cache/vigil-build, with the Debian 11 root debootstrap made for it), runs it by chroot in
 * Debian 11 (glibc 2.31) and on this machine (serve, a check against a local target probed up,
 * backup beside the server, the health check, SIGTERM), then builds the image with buildah,
 * reads its config with skopeo and runs its unpacked root filesystem by chroot as its user.
 * Cold (no cache): about 8 minutes on the 2-core machine; warm: under a minute.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TOOLS = ['debootstrap', 'buildah', 'skopeo', 'unshare', 'chroot'];
const missing = TOOLS.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);
const skip =
  process.platform !== 'linux' || process.arch !== 'x64'
    ? 'Linux x86-64 only'
    : process.getuid?.() !== 0
      ? 'needs root (debootstrap, chroot, mount)'
      : missing.length > 0
        ? `needs ${missing.join(', ')} (.ci/run installs them)`
        : false;

interface Run {
  glibc: string | null;
  version: string;
  listening: string;
  checkStatus: string;
  targetHits: number;
  backupBytes: number;
  healthcheck: string;
  exitCode: number;
}
interface Report {
  glibcNeeded: { binary: string };
  inOldRoot: Run;
  onThisMachine: Run;
  inImage: Run;
  imageConfig: {
    User: string;
    Volumes: Record<string, unknown>;
    ExposedPorts: Record<string, unknown>;
    Healthcheck: { Test: string[] };
    Entrypoint: string[];
    Cmd: string[];
    Env: string[];
  };
}

const olderThan = (a: string, b: string) => {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  return x[0]! < y[0]! || (x[0] === y[0] && x[1]! < y[1]!);
};

function assertRan(run: Run, where: string) {
  assert.match(run.version, new RegExp(`^vigil ${VERSION.replaceAll('.', '\\.')} \\(commit [0-9a-f]{12}(-dirty)?, linux-x64, glibc 2\\.28\\+\\)$`), where);
  assert.equal(run.checkStatus, 'up', `${where}: the check was probed up`);
  assert.ok(run.targetHits > 0, `${where}: the probe reached the local target`);
  assert.ok(run.backupBytes > 0, `${where}: backup beside the running server`);
  assert.match(run.healthcheck, /^200 /, `${where}: vigil healthcheck`);
  assert.equal(run.exitCode, 0, `${where}: SIGTERM drains and exits 0`);
}

describe('the release binary and image', { skip }, () => {
  test('run on glibc 2.31 by chroot, on this machine, and from the image as its user', { timeout: 30 * 60_000 }, () => {
    const out = execFileSync(process.execPath, [join(ROOT, 'scripts', 'release', 'verify.mjs')], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 16 << 20,
    });
    const report = JSON.parse(out.trim().split('\n').pop()!) as Report;

    assert.ok(!olderThan('2.28', report.glibcNeeded.binary), `the binary asks for glibc ${report.glibcNeeded.binary}, newer than 2.28`);
    assert.equal(report.inOldRoot.glibc, '2.31', 'Debian 11');
    assert.ok(olderThan(report.inOldRoot.glibc!, report.onThisMachine.glibc!), 'the old root is older than this machine');
    assertRan(report.inOldRoot, 'in Debian 11');
    assertRan(report.onThisMachine, 'on this machine');

    const config = report.imageConfig;
    assert.equal(config.User, '10001:10001', 'a non-root user');
    assert.deepEqual(Object.keys(config.Volumes), ['/data']);
    assert.deepEqual(Object.keys(config.ExposedPorts), ['8080/tcp']);
    assert.deepEqual(config.Healthcheck.Test, ['CMD', '/usr/local/bin/vigil', 'healthcheck']);
    assert.deepEqual([config.Entrypoint, config.Cmd], [['/usr/local/bin/vigil'], ['serve']]);
    assert.ok(config.Env.includes('VIGIL_HOST=0.0.0.0') && config.Env.includes('VIGIL_DATA_DIR=/data'), config.Env.join(' '));
    assertRan(report.inImage, 'in the image');
    assert.match(report.inImage.listening, /^http:\/\/0\.0\.0\.0:\d+$/, 'listens on all addresses in the container');
  });
});
