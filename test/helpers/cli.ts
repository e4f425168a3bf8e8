import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs `vigil <args>` as a user would, against the given data directory. */
export function runCli(args: string[], dataDir: string): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, VIGIL_DATA_DIR: dataDir, VIGIL_CONFIG: '' },
    encoding: 'utf8',
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
