import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { seedChecks } from './lib/seed.js';
import { cpuSeconds, fmt, freePort, headline, runIfMain, spawnUntil, stop, table, tempDir } from './lib/harness.js';
import { DueTally, type DueCount } from './lib/due-tally.js';
import { SLOTS } from '../src/domain/leases.js';
import { SCOPES, type Scope } from '../src/domain/records.js';
import { openDatabase } from '../src/store/db.js';
import { PgDb } from '../src/store/postgres/db.js';
import { copySqliteToPostgres } from '../src/store/postgres/copy-sqlite.js';
import { startCentrals, type Central, type Centrals } from '../test/helpers/centrals.js';
import { until } from '../test/helpers/until.js';

/**
 * Issue 26 item 6, the parts with several centrals: real `vigil serve` processes on one
 * PostgreSQL database, everything on this one 2-core machine (two centrals, PostgreSQL, the
 * probe target and this process share both cores; nothing is pinned).
 * - HTTP checks at 20 s shared by two centrals: due probes run, and on time (started within 1 s
 *   of their due time), counted from the history rows by due time as bench/load.bench.ts does;
 * - failover: five kill -9 cycles (alternating centrals) at the default `cluster.leaseMs`; each
 *   measures kill -9 to the survivor holding every slot, and the longest gap in any fast
 *   check's probes; checks flip between up and down at every kill, and every transition the
 *   store recorded is matched with the webhook deliveries the receiver answered: none lost,
 *   none doubled.
 * Smaller runs: BENCH_CENTRALS_CHECKS=2000 BENCH_CENTRALS_SECONDS=20 BENCH_CENTRALS_CYCLES=2.
 */
const CHECKS = Number(process.env.BENCH_CENTRALS_CHECKS ?? 20_000);
const SECONDS = Number(process.env.BENCH_CENTRALS_SECONDS ?? 40);
const CYCLES = Number(process.env.BENCH_CENTRALS_CYCLES ?? 5);
const LEASE_MS = Number(process.env.BENCH_CENTRALS_LEASE_MS ?? 15_000);
const INTERVAL_MS = 20_000;
const ON_TIME_MS = 1_000;
const FLAPPERS = 10;
const FAST_MS = 3_000;
const TARGET = fileURLToPath(new URL('./fixtures/http-target.js', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (n: number, of: number) => `${fmt((n / Math.max(1, of)) * 100, 2)}%`;
/** Progress on stderr (the report is stdout). */
const note = (what: string) => process.stderr.write(`centrals: ${new Date().toISOString().slice(11, 19)} ${what}\n`);
const database = (w: Centrals) => new URL(w.databaseUrl).pathname.slice(1);

/** Seeds the checks (SQLite, through the services), copies them into the world's empty database; the key and ids. */
async function seed(w: Centrals, count: number, url: (i: number) => string, scopes?: Scope[]): Promise<{ key: string; ids: string[] }> {
  const dir = tempDir('centrals-seed');
  try {
    const seeded = await seedChecks(dir.path, count, (i) => ({ url: url(i), checkFrequency: INTERVAL_MS / 60_000 }), scopes);
    const source = openDatabase(dir.path);
    const target = new PgDb(w.databaseUrl, { max: 2 });
    try {
      await copySqliteToPostgres(source, dir.path, target);
    } finally {
      await target.close();
      source.close();
    }
    return seeded;
  } finally {
    dir.remove();
  }
}

/** By the database's record (a central's /metrics lists every check: slow to scrape at 20,000). */
const split = async (w: Centrals, cs: Central[]) =>
  until('a fair split', async () => {
    const held = await w.slots();
    return cs.every((c) => held.get(c.name) === SLOTS / cs.length) ? true : undefined;
  }, 600, 200);

interface Throughput extends DueCount {
  cpuPct: number[];
  byCentral: Record<string, number>;
}

async function throughput(): Promise<Throughput> {
  const targetPort = await freePort();
  const target = await spawnUntil([TARGET], { PORT: String(targetPort) }, /listening/);
  const w = await startCentrals({ leaseMs: LEASE_MS, pg: { durable: true }, config: { logLevel: 'warn', plans: { pro: { maxChecks: 1e7 } } } });
  try {
    const { key, ids } = await seed(w, CHECKS, (i) => `http://127.0.0.1:${targetPort}/c/${i}`);
    w.adminKey = key;
    note(`${fmt(CHECKS)} checks seeded`);
    const a = await w.start('central-a');
    const b = await w.start('central-b');
    await split(w, [a, b]);
    note('two centrals share the slots; warming up');
    await sleep(INTERVAL_MS); // a whole interval of warm-up after the split
    const pids = [a, b].map((c) => c.serving.child.pid!);
    const cpu0 = pids.map(cpuSeconds);
    const t0 = Date.now();
    await sleep(SECONDS * 1000);
    const t1 = Date.now();
    const cpu = pids.map((p, i) => cpuSeconds(p) - cpu0[i]!);
    await sleep(INTERVAL_MS); // late probes of due times inside the window still run
    note('window measured');
    const db = database(w);
    const idOfSeq = new Map((await w.pg.sql<{ seq: string; id: string }>(db, 'SELECT seq, id FROM checks')).map((r) => [Number(r.seq), r.id]));
    const rows = await w.pg.sql<{ check_seq: string; at: string; status: string; meta: string | null }>(
      db, "SELECT check_seq, at, status, meta FROM history WHERE kind = 'probe' AND at >= $1", [t0],
    );
    const tally = new DueTally(ids, INTERVAL_MS, t0, t1, ON_TIME_MS);
    const byCentral: Record<string, number> = {};
    for (const row of rows) {
      if (!tally.add(idOfSeq.get(Number(row.check_seq))!, Number(row.at), row.status)) continue;
      const central = row.meta ? ((JSON.parse(row.meta) as { central?: string }).central ?? '?') : '?';
      byCentral[central] = (byCentral[central] ?? 0) + 1;
    }
    return {
      ...tally.count(),
      cpuPct: cpu.map((c) => (c / ((t1 - t0) / 1000)) * 100),
      byCentral,
    };
  } finally {
    await w.close();
    await stop(target);
  }
}

interface Cycle {
  takeoverMs: number;
  /** The longest time between two probes of one fast check across the kill. */
  probeGapMs: number;
}

interface Failover {
  cycles: Cycle[];
  flips: number;
  transitions: number;
  deliveredOnce: number;
  lost: number;
  doubled: number;
  /** Requests that repeated a delivery already answered (same X-Vigil-Delivery). */
  resent: number;
}

/** The local target of the failover run: every path answers 200, or 500 while broken; requests logged per path. */
async function flapTarget(): Promise<{ url(path: string): string; broken: Set<string>; hits: Map<string, number[]>; close(): Promise<void> }> {
  const broken = new Set<string>();
  const hits = new Map<string, number[]>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    if (path.startsWith('/flap/')) hits.set(path, [...(hits.get(path) ?? []), Date.now()]);
    res.writeHead(broken.has(path) ? 500 : 200).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => `${origin}${path}`, broken, hits,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

async function failover(): Promise<Failover> {
  const target = await flapTarget();
  // Deliveries the receiver answered: check, event, X-Vigil-Delivery.
  const deliveries: Array<{ check: string; event: string; id: string }> = [];
  const receiver: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const json = JSON.parse(body) as { event: string; check: { id: string } };
      deliveries.push({ check: json.check.id, event: json.event, id: String(req.headers['x-vigil-delivery']) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const w = await startCentrals({
    leaseMs: LEASE_MS, pg: { durable: true },
    config: { logLevel: 'warn', alerts: { allowHttpWebhooks: true, retryBaseMs: 1_000 }, plans: { pro: { maxChecks: 1e7 } } },
  });
  try {
    const { key } = await seed(w, 1_000, (i) => target.url(`/steady/${i}`), [...SCOPES]);
    w.adminKey = key;
    const centrals = [await w.start('central-a'), await w.start('central-b')];
    const api = centrals[0]!;
    const hook = await api.request('POST', '/v1/public/alerts/webhooks', { body: { name: 'bench', url: hookUrl } });
    if (hook.status !== 201) throw new Error(`webhook: ${hook.text}`);
    const flappers: Array<{ id: string; path: string }> = [];
    for (let i = 0; i < FLAPPERS; i++) {
      const path = `/flap/${i}`;
      const made = await api.request('POST', '/v1/public/checks', { body: { url: target.url(path), name: path, checkFrequency: FAST_MS / 60_000, downConfirmationAttempts: 1 } });
      if (made.status !== 201) throw new Error(`check: ${made.text}`);
      flappers.push({ id: made.body.data.id as string, path });
    }
    await split(w, centrals);
    const statusOf = async (id: string) => (await centrals.find((c) => c.alive())!.request('GET', `/v1/public/checks/${id}`)).body?.data?.status as string | undefined;
    await until('every fast check up', async () => {
      for (const f of flappers) if ((await statusOf(f.id)) !== 'up') return undefined;
      return true;
    }, 300, 200);

    const cycles: Cycle[] = [];
    let flips = 0;
    for (let i = 0; i < CYCLES; i++) {
      // Every fast check changes state around the kill: some transitions are seen (and their
      // alerts queued or in flight) by the central that dies, the rest by the survivor.
      const down = i % 2 === 0;
      for (const f of flappers) {
        if (down) target.broken.add(f.path);
        else target.broken.delete(f.path);
      }
      flips += FLAPPERS;
      await sleep(FAST_MS / 2);
      note(`failover cycle ${i + 1}`);
      const dying = centrals[i % 2]!;
      const survivor = centrals[(i + 1) % 2]!;
      await dying.kill();
      const killedAt = Date.now();
      const heldAt = await until('the survivor to hold every slot', async () => ((await w.slots()).get(survivor.name) === SLOTS ? Date.now() : undefined), 600, 100);
      await until('every fast check probed after the takeover', () => (flappers.every((f) => (target.hits.get(f.path) ?? []).some((t) => t > heldAt)) ? true : undefined), 300, 100);
      let gap = 0;
      for (const f of flappers) {
        const times = target.hits.get(f.path) ?? [];
        const before = Math.max(...times.filter((t) => t <= killedAt));
        const after = Math.min(...times.filter((t) => t > killedAt));
        gap = Math.max(gap, after - before);
      }
      cycles.push({ takeoverMs: heldAt - killedAt, probeGapMs: gap });
      note(`taken over in ${heldAt - killedAt} ms, longest probe gap ${gap} ms`);
      centrals[i % 2] = await w.start(dying.name, { port: dying.port });
      await split(w, centrals);
      await until('every fast check in its new state', async () => {
        for (const f of flappers) if ((await statusOf(f.id)) !== (down ? 'down' : 'up')) return undefined;
        return true;
      }, 300, 200);
    }
    // Every transition the store recorded, matched with what the receiver got. A delivery a
    // dead central held comes back when its lease runs out (2 × alerts.timeoutMs + 5 s).
    const db = database(w);
    const seqs = await w.pg.sql<{ seq: string; id: string }>(db, 'SELECT seq, id FROM checks WHERE id = ANY($1)', [flappers.map((f) => f.id)]);
    const idOfSeq = new Map(seqs.map((r) => [Number(r.seq), r.id]));
    const changes = async () => {
      const rows = await w.pg.sql<{ check_seq: string; at: string; status: string }>(db, 'SELECT check_seq, at, status FROM state_changes WHERE check_seq = ANY($1) ORDER BY check_seq, at, id', [[...idOfSeq.keys()]]);
      const out: Array<{ check: string; event: string; at: number }> = [];
      const last = new Map<string, string>();
      for (const r of rows) {
        const check = idOfSeq.get(Number(r.check_seq))!;
        const prev = last.get(check);
        last.set(check, r.status);
        if (prev === 'up' && r.status === 'down') out.push({ check, event: 'website_down', at: Number(r.at) });
        if (prev === 'down' && r.status === 'up') out.push({ check, event: 'website_up', at: Number(r.at) });
      }
      return out;
    };
    const kind = (d: { check: string; event: string }) => `${d.check}:${d.event}`;
    const counts = (list: Array<{ check: string; event: string }>) => {
      const m = new Map<string, number>();
      for (const d of list) m.set(kind(d), (m.get(kind(d)) ?? 0) + 1);
      return m;
    };
    await until('every transition delivered', async () => (deliveries.length >= (await changes()).length ? true : undefined), 60, 1_000).catch(() => undefined);
    await sleep(2_000); // anything sent twice arrives by now
    const transitions = await changes();
    const expected = counts(transitions);
    // A delivery sent again (its central died before recording the answer) carries the same id.
    const distinct = [...new Map(deliveries.map((d) => [d.id, d])).values()];
    const got = counts(distinct);
    let lost = 0, doubled = 0, once = 0;
    for (const [k, n] of expected) {
      const d = got.get(k) ?? 0;
      lost += Math.max(0, n - d);
      doubled += Math.max(0, d - n);
      once += Math.min(n, d);
    }
    for (const [k, d] of got) if (!expected.has(k)) doubled += d;
    return { cycles, flips, transitions: transitions.length, deliveredOnce: once, lost, doubled, resent: deliveries.length - distinct.length };
  } finally {
    await w.close();
    await target.close();
    await new Promise<void>((r) => receiver.close(() => r()));
  }
}

export async function runCentralsBench(): Promise<{ throughput: Throughput; failover: Failover }> {
  const t = await throughput();
  note(`throughput: ${JSON.stringify(t)}`);
  return { throughput: t, failover: await failover() };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export function centralsMarkdown({ throughput: t, failover: f }: { throughput: Throughput; failover: Failover }): string {
  const takeovers = f.cycles.map((c) => c.takeoverMs);
  const gaps = f.cycles.map((c) => c.probeGapMs);
  const bound = LEASE_MS + 5_000;
  return [
    `### Several centrals: two \`vigil serve\` processes on one PostgreSQL (all on this 2-core machine)`,
    '',
    table(['measure', 'figure', 'target'], [
      [`${fmt(CHECKS)} HTTP checks at 20 s across two centrals, ${SECONDS} s window: due probes run`, `${pct(t.ran, t.due)} (${fmt(t.ran)} of ${fmt(t.due)})`, '-'],
      [`… on time (started ≤ ${fmt(ON_TIME_MS)} ms after their due time)`, `${pct(t.onTime, t.due)}, lag p99 ${fmt(t.lagP99)} ms, ${fmt(t.failed)} failed`, '≥ 99%'],
      ['… results recorded by each central', Object.entries(t.byCentral).sort().map(([k, v]) => `${k} ${fmt(v)}`).join(', '), 'about half each'],
      ['… CPU of each central (percent of one core)', t.cpuPct.map((c) => `${fmt(c)}%`).join(', '), '-'],
      [`failover after kill -9, ${f.cycles.length} cycles, leaseMs ${fmt(LEASE_MS)}: kill to the survivor holding every slot`, `median ${fmt(median(takeovers) / 1000, 1)} s, worst ${fmt(Math.max(...takeovers) / 1000, 1)} s`, `≤ ${fmt(bound / 1000)} s`],
      [`… longest gap between two probes of a 3 s check across the kill`, `median ${fmt(median(gaps) / 1000, 1)} s, worst ${fmt(Math.max(...gaps) / 1000, 1)} s`, '-'],
      [`… alerts: transitions recorded (${fmt(f.flips)} state flips made)`, `${fmt(f.transitions)}: ${fmt(f.deliveredOnce)} delivered once, ${fmt(f.lost)} lost, ${fmt(f.doubled)} doubled (${fmt(f.resent)} sent again under the same X-Vigil-Delivery)`, '0 lost, 0 doubled'],
    ]),
    headline({
      measure: `Failover after kill -9 (two centrals, leaseMs ${fmt(LEASE_MS)}), worst of ${f.cycles.length}`,
      figure: `${fmt(Math.max(...takeovers) / 1000, 1)} s, ${fmt(f.lost)} alerts lost, ${fmt(f.doubled)} doubled`,
      baseline: '-',
      ratio: '-',
      target: `≤ ${fmt(bound / 1000)} s, 0 lost or doubled`,
    }),
    headline({
      measure: `${fmt(CHECKS)} HTTP checks at 20 s across two centrals on PostgreSQL: on time`,
      figure: pct(t.onTime, t.due),
      baseline: '-',
      ratio: '-',
      target: '≥ 99%',
    }),
  ].join('\n');
}

runIfMain(import.meta.url, async () => centralsMarkdown(await runCentralsBench()));
