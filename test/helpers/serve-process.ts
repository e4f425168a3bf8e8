import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** `vigil serve` (or any long-running vigil command) as a child process, as a user starts it. */
export interface Serving {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal) once stdio is closed. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when stdout matches, rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
}

export const LISTENING = /Vigil listening on (http:\/\/\S+?)"/;
export const ADMIN_KEY = /vigil_live_[0-9a-f]{64}/;

/** Starts `command ...args`; `env` is laid over this process's environment. */
export function spawnServing(command: string, args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Serving {
  const child = spawn(command, args, {
    cwd: opts.cwd,
    env: { ...process.env, VIGIL_CONFIG: '', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: Array<{ pattern: RegExp; resolve: (m: RegExpMatchArray) => void }> = [];
  const check = () => {
    for (const w of [...waiters]) {
      const m = out.match(w.pattern);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    check();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern) {
      const m = out.match(pattern);
      if (m) return Promise.resolve(m);
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve });
        void exited.then(({ code, signal }) =>
          reject(new Error(`serve exited (code ${code}, signal ${signal}) before printing ${pattern}\nstdout: ${out}\nstderr: ${err}`)),
        );
      });
    },
  };
}

/** SIGTERM unless it already exited; resolves with how it ended. */
export async function stopServing(s: Serving): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGTERM');
  return s.exited;
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/**
 * `vigil serve` of this checkout (`cli`, run from `cwd`) on `dataDir` and a free port, not 8080
 * (a CLI beside it must learn the port from the server); resolves once it listens, with the
 * admin key its first start printed.
 */
export async function serveFresh(cli: string, cwd: string, dataDir: string): Promise<{ serving: Serving; port: number; key: string }> {
  const port = await freePort();
  const serving = spawnServing(process.execPath, [cli, 'serve'], { cwd, env: { VIGIL_DATA_DIR: dataDir, VIGIL_PORT: String(port) } });
  await serving.waitFor(LISTENING);
  const [key] = (await serving.waitFor(ADMIN_KEY)) as unknown as [string];
  return { serving, port, key };
}
