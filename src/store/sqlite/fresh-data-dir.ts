import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What a start found in its data directory, so that a start that fails (a busy port) in a fresh
 * one leaves nothing behind: no directory it made, no database or lock file in an empty one it
 * was given. A directory that held anything is left as a clean stop leaves it.
 */
export function noteDataDir(dataDir: string): { undoIfFresh(): void } {
  const existed = existsSync(dataDir);
  const empty = !existed || readdirSync(dataDir).length === 0;
  return {
    undoIfFresh() {
      if (!empty) return;
      if (!existed) rmSync(dataDir, { recursive: true, force: true });
      else for (const entry of readdirSync(dataDir)) rmSync(join(dataDir, entry), { recursive: true, force: true });
    },
  };
}
