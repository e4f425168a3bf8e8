import { test } from 'node:test';
import assert from 'node:assert/strict';
import { versionLine, VERSION } from '../../src/version.js';

test('vigil --version: the version alone from a checkout; commit, target and glibc floor from a release build', () => {
  assert.equal(versionLine(null), `vigil ${VERSION}`);
  assert.equal(
    versionLine({ commit: '6d364fa7b598', target: 'linux-arm64', glibc: '2.28' }),
    `vigil ${VERSION} (commit 6d364fa7b598, linux-arm64, glibc 2.28+)`,
  );
});
