import { until } from './until.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { slotOf } from '../../src/domain/leases.js';
import { startPostgres, type PgCluster, type PgClusterOptions } from './postgres.js';
import { freePort, spawnServing, type Serving } from './serve-process.js';
import { send, type RequestOptions, type TestResponse } from './server.js';
import { startTcpLink, type TcpLink } from './tcp-link.js';

/**
 * Several real `vigil serve` processes on one PostgreSQL database (issue 26 item 5): a cluster of
 * the test's own (test/helpers/postgres.ts), one fresh database, and centrals each with its own
 * port, name (VIGIL_INSTANCE) and data directory, leases short enough for tests. A central is
 * ready once /readyz answers 200 (it holds its lease); it is killed for real (SIGKILL, SIGTERM,
 * SIGSTOP). Every wait is a bounded loop on a condition.
 */

const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

export const CENTRALS_LEASE_MS = 3_000;

export interface CentralOptions {
  /** Reuse a port (a central restarted where it was). */
  port?: number;
  /** Reaches PostgreSQL through a TCP link the test can cut (`Central.link`). */
  linked?: boolean;
  /** Config laid over the world's (deeply for the top-level objects). */
  config?: Record<string, unknown>;
  env?: Record<string, string>;
}

export interface Central {
  name: string;
  port: number;
  url: string;
  serving: Serving;
  /** Present when started `linked`: the central's only way to its database. */
  link: TcpLink | null;
  request(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  /** /readyz's status (0 when the process does not answer within `timeoutMs`). */
  readyz(timeoutMs?: number): Promise<number>;
  /** What this central's /metrics says of itself: slots leased and checks owned. */
  cluster(): Promise<{ slots: number; owned: number }>;
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM, resolved with the exit code once the process is gone. */
  stop(): Promise<number | null>;
  pause(): void;
  resume(): void;
  alive(): boolean;
}

export interface Centrals {
  pg: PgCluster;
  databaseUrl: string;
  dir: string;
  leaseMs: number;
  /** The admin key the first central printed. */
  adminKey: string;
  centrals: Central[];
  probers: Serving[];
  /** Starts a central and waits until it is ready (listening, and /readyz 200). */
  start(name: string, options?: CentralOptions): Promise<Central>;
  /** Slots whose lease runs, per central, by the database's record. */
  slots(): Promise<Map<string, number>>;
  /** The central whose lease covers the check's slot now, by the database's record (null: none). */
  ownerOf(checkId: string): Promise<string | null>;
  /** `vigil <args>` on the same database, as an operator runs it beside the centrals. */
  cli(args: string[]): { status: number; stdout: string; stderr: string };
  /**
   * A node of `region` registered (`vigil node create`) and a `vigil prober` run for it, dialling
   * `servers` in order; killed by `close` if still running. Its output (stdout and stderr) is `log`.
   */
  prober(region: string, servers: Central[]): Serving & { log(): string };
  /** Kills every central still running, stops PostgreSQL, removes the directory. */
  close(): Promise<void>;
}

export interface CentralsOptions {
  leaseMs?: number;
  /** Config every central gets (laid over the defaults below). */
  config?: Record<string, unknown>;
  pg?: PgClusterOptions;
}

/** A probe target on loopback that logs when each path was requested. */
export interface Target {
  url(path: string): string;
  /** When each path was requested. */
  hits: Map<string, number[]>;
  /** Paths answering 500. */
  broken: Set<string>;
  close(): Promise<void>;
}

export async function startTarget(): Promise<Target> {
  const hits = new Map<string, number[]>();
  const broken = new Set<string>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    hits.set(path, [...(hits.get(path) ?? []), Date.now()]);
    res.writeHead(broken.has(path) ? 500 : 200).end(broken.has(path) ? 'broken' : 'ok');
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => `${origin}${path}`,
    hits,
    broken,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = b && v && typeof b === 'object' && typeof v === 'object' && !Array.isArray(v) ? merge(b as Record<string, unknown>, v as Record<string, unknown>) : v;
  }
  return out;
}

const metric = (text: string, name: string, instance: string): number => {
  const m = new RegExp(`^${name}\\{instance="${instance.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : -1;
};

export async function startCentrals(options: CentralsOptions = {}): Promise<Centrals> {
  const pg = await startPostgres(options.pg);
  const databaseUrl = await pg.createDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'vigil-centrals-'));
  const leaseMs = options.leaseMs ?? CENTRALS_LEASE_MS;
  const base = merge(
    {
      logLevel: 'info',
      cluster: { leaseMs },
      plans: { pro: { minCheckIntervalMinutes: 0.05, minHeartbeatIntervalSeconds: 1 } },
      rateLimits: { perKeyPerMinute: 1_000_000, statusPerKeyPerMinute: 1_000_000, statusPerAccountPerMinute: 1_000_000, perAddressPerMinute: 1_000_000 },
      signup: { enabled: false },
      rdap: { bootstrapUrl: null },
      alerts: { retryBaseMs: 1_000 },
      nodes: { failoverMs: 3_000, pingMs: 1_000, reconnectMaxMs: 1_000 },
    },
    options.config ?? {},
  );
  const world: Centrals = {
    pg,
    databaseUrl,
    dir,
    leaseMs,
    adminKey: '',
    centrals: [],
    async start(name, opts = {}) {
      const port = opts.port ?? (await freePort());
      const link = opts.linked ? await startTcpLink(pg.port) : null;
      const url = link ? databaseUrl.replace(`:${pg.port}/`, `:${link.port}/`) : databaseUrl;
      const configFile = join(dir, `${name}.json`);
      writeFileSync(configFile, JSON.stringify(merge(base, { server: { host: '127.0.0.1', port }, dataDir: join(dir, name), ...opts.config })));
      const serving = spawnServing(process.execPath, [CLI, 'serve', '--config', configFile], {
        env: { VIGIL_DATABASE_URL: url, VIGIL_INSTANCE: name, ...opts.env },
      });
      const central: Central = {
        name,
        port,
        url: `http://127.0.0.1:${port}`,
        serving,
        link,
        request: (method, path, o = {}) => send(central.url, world.adminKey, method, path, o),
        async readyz(timeoutMs = 2_000) {
          try {
            return (await fetch(`${central.url}/readyz`, { signal: AbortSignal.timeout(timeoutMs) })).status;
          } catch {
            return 0;
          }
        },
        async cluster() {
          const res = await fetch(`${central.url}/metrics`, { headers: { 'x-api-key': world.adminKey }, signal: AbortSignal.timeout(5_000) });
          const text = await res.text();
          return { slots: metric(text, 'vigil_cluster_slots', name), owned: metric(text, 'vigil_cluster_owned_checks', name) };
        },
        async kill() {
          if (central.alive()) serving.child.kill('SIGKILL');
          await serving.exited;
          await link?.close();
        },
        async stop() {
          if (central.alive()) serving.child.kill('SIGTERM');
          const { code } = await serving.exited;
          await link?.close();
          return code;
        },
        pause: () => void serving.child.kill('SIGSTOP'),
        resume: () => void serving.child.kill('SIGCONT'),
        alive: () => serving.child.exitCode === null && serving.child.signalCode === null,
      };
      world.centrals.push(central);
      try {
        // Any log level: the line is JSON at info, plain text below it.
        await until(`${name} to listen`, () => (/Vigil listening on http/.test(serving.stdout()) ? true : undefined), 1_200);
        world.adminKey ||= /Admin API key \(shown once, store it now\): (\S+)/.exec(serving.stdout())?.[1] ?? '';
        await until(`${name} to be ready`, async () => ((await central.readyz()) === 200 ? true : undefined));
      } catch (err) {
        await central.kill();
        throw new Error(`${(err as Error).message}\nstdout: ${serving.stdout().slice(-4_000)}\nstderr: ${serving.stderr().slice(-4_000)}`);
      }
      return central;
    },
    async slots() {
      const rows = await pg.sql<{ owner: string; n: string }>(new URL(databaseUrl).pathname.slice(1), 'SELECT owner, count(*) AS n FROM cluster_slots WHERE owner IS NOT NULL AND lease_until > $1 GROUP BY owner', [Date.now()]);
      return new Map(rows.map((r) => [r.owner, Number(r.n)]));
    },
    async ownerOf(checkId) {
      const [row] = await pg.sql<{ owner: string | null }>(new URL(databaseUrl).pathname.slice(1), 'SELECT owner FROM cluster_slots WHERE slot = $1 AND lease_until > $2', [slotOf(checkId), Date.now()]);
      return row?.owner ?? null;
    },
    cli(args) {
      const r = spawnSync(process.execPath, [CLI, ...args], {
        env: { ...process.env, VIGIL_CONFIG: '', VIGIL_DATABASE_URL: databaseUrl, VIGIL_DATA_DIR: join(dir, 'cli') },
        encoding: 'utf8',
      });
      return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
    },
    prober(region, servers) {
      const made = world.cli(['node', 'create', '--region', region, '--name', `edge-${world.probers.length}`]);
      if (made.status !== 0) throw new Error(`vigil node create: ${made.stderr}`);
      const { token } = JSON.parse(made.stdout) as { token: string };
      const config = join(dir, `node-${world.probers.length}.json`);
      writeFileSync(config, JSON.stringify({ logLevel: 'info', dataDir: join(dir, `node-${world.probers.length}`), nodes: base.nodes }));
      const args = [CLI, 'prober', ...servers.flatMap((c) => ['--server', c.url]), '--token', token, '--config', config];
      const serving = spawnServing(process.execPath, args);
      const node = { ...serving, log: () => `${serving.stdout()}${serving.stderr()}` };
      world.probers.push(node);
      return node;
    },
    probers: [],
    async close() {
      for (const p of world.probers) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      for (const c of world.centrals) {
        if (!c.alive()) continue;
        c.resume();
        await c.kill();
      }
      for (const c of world.centrals) await c.link?.close().catch(() => {});
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return world;
}
