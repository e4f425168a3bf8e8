// Imported rather than read at start, so the single binary carries it.
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;

/** What a release build says of itself: the commit it was built from and where it runs. */
export interface BuildInfo {
  commit: string;
  /** `linux-x64`, `linux-arm64`. */
  target: string;
  /** The oldest glibc the binary loads on. */
  glibc: string;
}

// Set by scripts/build-binary.mjs for the single binary; not defined when run from a checkout.
declare const VIGIL_BUILD: BuildInfo | null | undefined;

export const BUILD: BuildInfo | null = typeof VIGIL_BUILD === 'undefined' ? null : VIGIL_BUILD;

/** `vigil --version`: `vigil 0.1.0`, and for a release build `(commit …, linux-x64, glibc 2.28+)`. */
export function versionLine(build: BuildInfo | null = BUILD): string {
  return build ? `vigil ${VERSION} (commit ${build.commit}, ${build.target}, glibc ${build.glibc}+)` : `vigil ${VERSION}`;
}
