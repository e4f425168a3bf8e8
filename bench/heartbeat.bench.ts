import { fileURLToPath } from 'node:url';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { seedChecks } from './lib/seed.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { CLI, cpuSeconds, fmt, freePort, load, runIfMain, spawnUntil, stop, table, tempDir } from './lib/harness.js';

/**
 * Issue 5 target: durable ping ingest (answered only after the group commit) at >= 25% of a
 * uWS hello world's requests per second with p99 <= 50 ms, at 50 and 200 connections, and
 * zero pings lost (acknowledged <= stored).
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CHECKS = 200;
const HELLO = fileURLToPath(new URL('./fixtures/hello-uws.js', import.meta.url));

function seed(dataDir: string): string[] {
  const { ids } = seedChecks(dataDir, CHECKS, () => ({ type: 'heartbeat', checkFrequency: 60 }));
  const store = openSqliteStore(dataDir);
  const paths = ids.map((id) => `/heartbeat/${store.checks.byId(id)!.heartbeatToken}`);
  store.close();
  return paths;
}

function storedPings(dataDir: string): number {
  const store = openSqliteStore(dataDir);
  try {
    return store.db.prepare("SELECT count(*) FROM history WHERE kind = 'ping'").pluck().get() as number;
  } finally {
    store.close();
  }
}

async function pingLoad(port: number, paths: string[], connections: number, pid: number) {
  let next = 0;
  const cpuBefore = cpuSeconds(pid);
  const r = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: SECONDS,
    requests: [{ method: 'POST', body: '{"status":"ok","duration":12}', setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length]! }) }],
  });
  return { rps: r.requests.average, p99: r.latency.p99, acked: r['2xx'], bad: r.non2xx + r.errors + r.timeouts, cpu: ((cpuSeconds(pid) - cpuBefore) / SECONDS) * 100 };
}

export async function runHeartbeatBench(): Promise<string> {
  const dir = tempDir('heartbeat');
  try {
    const paths = seed(dir.path);
    const configFile = join(dir.path, 'bench.json');
    writeFileSync(configFile, JSON.stringify({ logLevel: 'info' }));
    const rows: Array<Array<string | number>> = [];
    let acknowledged = 0;
    for (const connections of [50, 200]) {
      const helloPort = await freePort();
      const hello = await spawnUntil([HELLO], { PORT: String(helloPort) }, /listening/);
      const base = await load(`http://127.0.0.1:${helloPort}/`, { connections, seconds: SECONDS, serverPid: hello.pid });
      await stop(hello);
      const port = await freePort();
      const vigil = await spawnUntil([CLI, 'serve', '--config', configFile], { VIGIL_DATA_DIR: dir.path, VIGIL_PORT: String(port) }, /listening on/);
      const r = await pingLoad(port, paths, connections, vigil.pid!);
      await stop(vigil);
      acknowledged += r.acked;
      rows.push([`uWS hello world, ${connections} conns (baseline)`, fmt(base.requestsPerSec), fmt(base.p99Ms, 1), '100%', '-', `${fmt(base.serverCpuPct ?? 0)}%`]);
      rows.push([`durable ping, ${connections} conns`, fmt(r.rps), fmt(r.p99, 1), `${fmt((r.rps / base.requestsPerSec) * 100, 1)}%`, '>= 25%, p99 <= 50 ms', `${fmt(r.cpu)}%`]);
    }
    const stored = storedPings(dir.path);
    return [
      `### Heartbeat ingest (${CHECKS} heartbeat checks, POST with metadata, ${SECONDS} s per run)`,
      '',
      table(['run', 'req/s', 'p99 ms', 'of baseline', 'target', 'server CPU'], rows),
      '',
      `Pings acknowledged (200) across both runs: ${fmt(acknowledged)}; ping rows stored: ${fmt(stored)}; lost: ${fmt(Math.max(0, acknowledged - stored))}.`,
    ].join('\n');
  } finally {
    dir.remove();
  }
}

runIfMain(import.meta.url, runHeartbeatBench);
