import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * A PostgreSQL cluster of the test's own (issue 26 item 5): `initdb` in a temporary directory,
 * `pg_ctl` on a free loopback port, trust authentication on 127.0.0.1 only, one database per
 * suite or test. No system service is needed, only Debian's `postgresql` package (.ci/run
 * installs it). initdb refuses to run as root, so as root the cluster runs as the `postgres`
 * user, who owns the directory. Stopped and removed by `stop()`, and at process exit whatever
 * happened (a failed test included).
 */
export interface PgCluster {
  port: number;
  /** The connection URL of one database of the cluster. */
  url(database: string): string;
  /** Creates an empty database (a fresh name when none is given) and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Runs SQL as the superuser in a database (tests that inspect or damage what the store wrote). */
  sql<T extends pg.QueryResultRow = pg.QueryResultRow>(database: string, text: string, params?: unknown[]): Promise<T[]>;
  /** Stops the server (fast shutdown) and keeps its directory: clients find nobody listening. */
  halt(): Promise<void>;
  /** Starts a halted server again, on the same port with the same data. */
  resume(): Promise<void>;
  /** Stops the server (fast shutdown, bounded) and removes the directory. */
  stop(): Promise<void>;
}

export interface PgClusterOptions {
  /** fsync and full-page writes off: tests need no durability, and run faster (benches keep it on). */
  durable?: boolean;
  /** Extra `-c name=value` settings for the server. */
  settings?: Record<string, string | number>;
  /** Pins the server (every backend it forks) to these CPUs (`taskset -c`): benches. */
  cpu?: string;
}

/** Where initdb and pg_ctl are: Debian's versioned directory, newest first, else PATH. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (existsSync(join(root, v, 'bin', 'initdb'))) return join(root, v, 'bin');
  }
  const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? join(found.stdout.trim(), '..') : null;
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL program, as `postgres` when this process is root. */
function run(bin: string, program: string, args: string[], timeoutMs: number, cpu?: string): void {
  const command = cpu === undefined ? [join(bin, program), ...args] : ['taskset', '-c', cpu, join(bin, program), ...args];
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', ...command]] : [command[0]!, command.slice(1)];
  execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let databases = 0;

export async function startPostgres(options: PgClusterOptions = {}): Promise<PgCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed: the tests need initdb and pg_ctl (Debian: apt-get install postgresql)');
  const dir = mkdtempSync(join(tmpdir(), 'vigil-pg-'));
  const data = join(dir, 'data');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  let started = false;
  const stopNow = () => {
    if (started) {
      started = false;
      try {
        run(bin, 'pg_ctl', ['-D', data, 'stop', '-m', 'immediate', '-w', '-t', '20'], 30_000);
      } catch {
        // Already gone: the directory goes anyway.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopNow);
  try {
    run(bin, 'initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions'], 120_000);
    const port = await freePort();
    const settings: Record<string, string | number> = {
      listen_addresses: '127.0.0.1',
      port,
      unix_socket_directories: dir,
      max_connections: 200,
      ...(options.durable ? {} : { fsync: 'off', full_page_writes: 'off', synchronous_commit: 'off' }),
      ...options.settings,
    };
    const serverArgs = Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`).join(' ');
    const start = () => run(bin, 'pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', serverArgs, '-w', '-t', '60', 'start'], 90_000, options.cpu);
    start();
    started = true;
    const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
    const sql = async <T extends pg.QueryResultRow>(database: string, text: string, params: unknown[] = []): Promise<T[]> => {
      const client = new pg.Client({ connectionString: url(database) });
      await client.connect();
      try {
        return (await client.query<T>(text, params)).rows;
      } finally {
        await client.end();
      }
    };
    return {
      port,
      url,
      sql,
      async createDatabase(name) {
        const database = name ?? `vigil_test_${process.pid}_${++databases}`;
        await sql('postgres', `CREATE DATABASE "${database}"`);
        return url(database);
      },
      async halt() {
        run(bin, 'pg_ctl', ['-D', data, 'stop', '-m', 'fast', '-w', '-t', '30'], 60_000);
        started = false;
      },
      async resume() {
        start();
        started = true;
      },
      async stop() {
        stopNow();
        process.removeListener('exit', stopNow);
      },
    };
  } catch (err) {
    stopNow();
    process.removeListener('exit', stopNow);
    throw err;
  }
}
