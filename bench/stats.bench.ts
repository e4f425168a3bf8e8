import { performance } from 'node:perf_hooks';
import { loadConfig, resolveConfig } from '../src/config.js';
import { AccountsService } from '../src/core/accounts-service.js';
import type { Timing } from '../src/domain/check-types.js';
import { ChecksService } from '../src/core/checks-service.js';
import { ManualClock } from '../src/domain/clock.js';
import type { Principal } from '../src/core/principal.js';
import type { MultiRangeStats, SingleRangeStats } from '../src/core/schemas/stats.js';
import type { ProbeResult } from '../src/domain/probe-types.js';
import { computeDurations, type StateChange } from '../src/stats/durations.js';
import { exactPercentile } from '../src/domain/histogram.js';
import { RANGE_MS, type RangeName } from '../src/domain/ranges.js';
import { minuteKey } from '../src/domain/rollup.js';
import { StatsService } from '../src/core/stats-service.js';
import type { Db } from '../src/store/db.js';
import { BatchWriter } from '../src/store/batch-writer.js';
import { createLogger } from '../src/log.js';
import { openSqliteStore, type SqliteStore } from '../src/store/sqlite/index.js';
import { sqliteStateChanges } from '../src/store/sqlite/state-changes.js';
import { fmt, runIfMain, table, tempDir } from './lib/harness.js';
import { prng } from '../test/helpers/prng.js';

/**
 * Issue 4 target: one check with 90 days of results at a 30 s interval (259,200 results) among
 * 1,000 other checks; 90-day single-range stats and a 5-range request each >= 50x faster than
 * the same answer computed exactly from raw rows in the same run, with p99 latency; storage
 * bytes per result (raw row plus its share of rollups, from SQLite's dbstat).
 *
 * Results go through the real write path (the batched writer's group commits of the store's
 * history insert, state-change append and the rollup aggregator; open buckets flushed each
 * simulated minute). The big check's first
 * 88 days are written alone, so most of its raw rows are contiguous on disk: that favours the
 * raw-scan baseline, never the rollups. The other checks report every 5 minutes over the last
 * 2 days, interleaved in time with the big one.
 */

const DAY = 86_400_000;
const TO = Date.UTC(2026, 5, 1, 12, 0, 17, 250); // mid-minute: every window has partial edges
const BIG_RESULTS = 90 * 2880;
const OTHER_CHECKS = 1000;
const OTHER_DAYS = 2;
const OTHER_INTERVAL = 5 * 60_000;
const MULTI: RangeName[] = ['1d', '7d', '30d', '60d', '90d'];

export interface StatsBenchReport {
  results: { bigCheck: number; others: number };
  setupSeconds: number;
  single: Latencies;
  multi: Latencies;
  storage: { rawBytes: number; minuteBytes: number; hourBytes: number; dayBytes: number; perResult: number };
  maxPercentileErrorPct: number;
}

interface Latencies {
  rollupsP50: number;
  rollupsP99: number;
  rawP50: number;
  rawP99: number;
  speedup: number;
}


/** Log-normal around 180 ms with 1% slow outliers, split into phases. */
function probe(rand: () => number, at: number, ok: boolean): ProbeResult {
  const z = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const rt = rand() < 0.01 ? 2000 + rand() * 20_000 : 180 * Math.exp(0.4 * z);
  const dns = rt * 0.05 * rand();
  const connect = rt * 0.15 * rand();
  const tls = rt * 0.2 * rand();
  const timing: Timing = { dns, connect, tls, ttfb: rt - dns - connect - tls, total: rt };
  return {
    ok,
    statusCode: ok ? 200 : 503,
    responseTime: ok ? rt : null,
    timing: ok ? timing : null,
    error: ok ? null : 'HTTP 503',
    snippet: null,
    ssl: null,
    location: null,
    startedAt: at,
  };
}

/**
 * The engine's write, through the real batched writer: one typed observation record per result
 * (history row, state change on a transition, rollup sample), applied by the store in group
 * commits as the recorder's are; open buckets are flushed each simulated minute, as the app does.
 */
class Writer {
  private readonly writer: BatchWriter;
  private flushedMinute = Number.NEGATIVE_INFINITY;

  constructor(private readonly store: SqliteStore) {
    this.writer = new BatchWriter(store, createLogger('silent'));
  }

  write(checkId: string, seq: number, r: ProbeResult, stateChange: 'up' | 'down' | null): void {
    if (minuteKey(r.startedAt) > this.flushedMinute) {
      this.writer.flush();
      void this.store.rollups.flushOpen(r.startedAt, false);
      this.flushedMinute = minuteKey(r.startedAt);
    }
    this.writer.submit({
      kind: 'observation', checkId, checkSeq: seq, at: r.startedAt,
      result: {
        checkSeq: seq, at: r.startedAt, kind: 'probe', status: r.ok ? 'up' : 'down', statusCode: r.statusCode,
        responseTime: r.responseTime, timing: r.timing, error: r.error, region: 'vps-eu-1', snippet: r.snippet, meta: null,
      },
      event: null,
      sample: { ok: r.ok, responseTime: r.responseTime, timing: r.timing },
      sampleAt: r.startedAt,
      runtime: null, statusChange: stateChange, verifyStatus: null, endMaintenance: null, domain: null, domainMemory: null,
    });
  }

  flush(): void {
    this.writer.flush();
  }
}

interface World {
  store: SqliteStore;
  stats: StatsService;
  principal: Principal;
  bigId: string;
  bigSeq: number;
  storage: StatsBenchReport['storage'];
}

async function build(dir: string): Promise<World> {
  const config = resolveConfig(
    loadConfig({ overrides: { dataDir: dir, logLevel: 'silent', plans: { pro: { maxChecks: 5000 } } }, warn: () => {} }),
  );
  const clock = new ManualClock(TO - 91 * DAY);
  const store = openSqliteStore(dir);
  const account = await new AccountsService(store, config, clock).createAccount('bench@example.com', 'pro');
  const principal: Principal = { kind: 'api_key', credentialId: 'bench', account, scopes: ['checks:read', 'checks:write'], access: null, key: null };
  const checks = new ChecksService(store, config, clock);
  const rollups = store.rollups;
  const writer = new Writer(store);
  const rand = prng(4);

  const bigId = (await checks.create(principal, { url: 'https://big.example.com/', checkFrequency: 0.5 })).id;
  const bigSeq = (await store.checks.byId(bigId))!.seq;
  // Single failures (1%) stay up, as with downConfirmationAttempts 2; an outage every ~2 days.
  let down = false;
  let status: 'up' | 'down' | null = null;
  const writeBig = (i: number) => {
    if (down ? rand() < 0.05 : rand() < 1 / 5760) down = !down;
    const ok = !down && rand() >= 0.01;
    const state = down ? 'down' : 'up';
    writer.write(bigId, bigSeq, probe(rand, bigAt(i), ok), state === status ? null : state);
    status = state;
  };
  const bigAt = (i: number) => TO - (BIG_RESULTS - i) * 30_000 + 7_000;
  const othersFrom = TO - OTHER_DAYS * DAY;

  // 88 days of the big check alone: its storage per result, free of the others' rows.
  let i = 0;
  for (; bigAt(i) < othersFrom; i++) writeBig(i);
  writer.flush();
  void rollups.flushOpen(othersFrom, false);
  const storage = measureStorage(store.db, i);

  // The last 2 days with every check, in time order, open buckets flushed each minute.
  const others: Array<[string, number]> = [];
  for (let c = 0; c < OTHER_CHECKS; c++) {
    const { id } = await checks.create(principal, { url: `https://other-${c}.example.com/`, checkFrequency: 5 });
    others.push([id, (await store.checks.byId(id))!.seq]);
  }
  let nextOthers = othersFrom;
  for (; i < BIG_RESULTS; i++) {
    for (; nextOthers <= bigAt(i); nextOthers += OTHER_INTERVAL) {
      for (const [id, seq] of others) writer.write(id, seq, probe(rand, nextOthers + (seq % 30) * 1000, rand() >= 0.01), null);
    }
    writeBig(i);
  }
  writer.flush();
  // Live state at TO: the current minute and hour are still open, as in a running server.
  clock.set(TO);
  const stats = new StatsService({ stateChanges: store.stateChanges, rollups }, checks, clock);
  return { store, stats, principal, bigId, bigSeq, storage };
}

function measureStorage(db: Db, results: number): StatsBenchReport['storage'] {
  const bytes = (names: string[]) =>
    db.prepare(`SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN (${names.map(() => '?').join(', ')})`).pluck().get(...names) as number;
  const rawBytes = bytes(['history', 'history_check_at']) / results;
  const minuteBytes = bytes(['rollup_minute']) / results;
  const hourBytes = bytes(['rollup_hour']) / results;
  const dayBytes = bytes(['rollup_day']) / results;
  return { rawBytes, minuteBytes, hourBytes, dayBytes, perResult: rawBytes + minuteBytes + hourBytes + dayBytes };
}

type Row = [status: string, rt: number | null, dns: number | null, connect: number | null, tls: number | null, ttfb: number | null, total: number | null, at: number];

/** The baseline: the same single-range answer computed exactly from every raw row. */
function rawSingle(w: World, from: number, to: number): SingleRangeStats {
  const rows = w.store.db
    .prepare(
      `SELECT status, response_time, dns, connect, tls, ttfb, total, at FROM history
       WHERE check_seq = ? AND at >= ? AND at <= ? AND kind != 'event'`,
    )
    .raw()
    .all(w.bigSeq, from, to) as Row[];
  let success = 0;
  const rts: number[] = [];
  const phases: Record<'dns' | 'connect' | 'tls' | 'ttfb', number[]> = { dns: [], connect: [], tls: [], ttfb: [] };
  for (const [status, rt, dns, connect, tls, ttfb, total] of rows) {
    if (status !== 'up') continue;
    success++;
    if (rt !== null) rts.push(rt);
    if (total !== null) {
      phases.dns.push(dns ?? 0);
      phases.connect.push(connect ?? 0);
      phases.tls.push(tls ?? 0);
      phases.ttfb.push(ttfb ?? 0);
    }
  }
  const sorted = Float64Array.from(rts).sort();
  const mean = (xs: ArrayLike<number>) => {
    let s = 0;
    for (let i = 0; i < xs.length; i++) s += xs[i] as number;
    return xs.length === 0 ? null : s / xs.length;
  };
  const phase = (xs: number[]) => ({ average: mean(xs), p95: exactPercentile(Float64Array.from(xs).sort(), 95) });
  const d = computeDurations(sqliteStateChanges(w.store.db).between(w.bigSeq, from, to) as StateChange[], { from, to });
  return {
    checkId: w.bigId,
    period: { from: new Date(from).toISOString(), to: new Date(to).toISOString() },
    uptime: { percentage: rows.length === 0 ? null : (success / rows.length) * 100, totalChecks: rows.length, successfulChecks: success, failedChecks: rows.length - success },
    responseTime: {
      average: mean(sorted),
      min: sorted[0] ?? null,
      max: sorted[sorted.length - 1] ?? null,
      p50: exactPercentile(sorted, 50),
      p90: exactPercentile(sorted, 90),
      p95: exactPercentile(sorted, 95),
      p99: exactPercentile(sorted, 99),
    },
    timing: { dns: phase(phases.dns), connect: phase(phases.connect), tls: phase(phases.tls), ttfb: phase(phases.ttfb) },
    incidents: { count: d.incidents.count, totalDowntime: d.incidents.totalDowntime, mtbf: d.incidents.mtbf, mttr: d.incidents.mttr },
  };
}

/** The baseline for the 5 ranges: one pass over the longest window feeds every nested one. */
function rawMulti(w: World, to: number): MultiRangeStats {
  const longest = Math.max(...MULTI.map((r) => RANGE_MS[r]));
  const rows = w.store.db
    .prepare(`SELECT status, response_time, at FROM history WHERE check_seq = ? AND at >= ? AND at <= ? AND kind != 'event'`)
    .raw()
    .all(w.bigSeq, to - longest, to) as Array<[string, number | null, number]>;
  const changes = sqliteStateChanges(w.store.db).between(w.bigSeq, to - longest, to) as StateChange[];
  const out: MultiRangeStats = {};
  for (const name of MULTI) {
    const from = to - RANGE_MS[name];
    let total = 0, success = 0, rtCount = 0, rtSum = 0;
    let rtMin: number | null = null, rtMax: number | null = null;
    for (const [status, rt, at] of rows) {
      if (at < from) continue;
      total++;
      if (status !== 'up') continue;
      success++;
      if (rt === null) continue;
      rtCount++;
      rtSum += rt;
      if (rtMin === null || rt < rtMin) rtMin = rt;
      if (rtMax === null || rt > rtMax) rtMax = rt;
    }
    const d = computeDurations(changes, { from, to });
    out[name] = {
      totalChecks: total,
      onlineChecks: success,
      offlineChecks: total - success,
      uptimePercentage: d.uptimePercentage,
      totalDurationMs: RANGE_MS[name],
      onlineDurationMs: d.onlineDurationMs,
      offlineDurationMs: d.offlineDurationMs,
      responseSampleCount: rtCount,
      avgResponseTime: rtCount === 0 ? null : rtSum / rtCount,
      minResponseTime: rtMin,
      maxResponseTime: rtMax,
    };
  }
  return out;
}

/** Same counts, same min and max, averages to float noise, percentiles within 1%: else the race is void. */
function compareSingle(ours: SingleRangeStats, exact: SingleRangeStats): number {
  if (JSON.stringify([ours.uptime, ours.incidents]) !== JSON.stringify([exact.uptime, exact.incidents])) {
    throw new Error(`single-range counts differ: ${JSON.stringify([ours.uptime, ours.incidents])} vs ${JSON.stringify([exact.uptime, exact.incidents])}`);
  }
  if (ours.responseTime.min !== exact.responseTime.min || ours.responseTime.max !== exact.responseTime.max) throw new Error('min/max differ');
  let worst = 0;
  const rel = (a: number | null, b: number | null) => (a === null || b === null ? (a === b ? 0 : 1) : Math.abs(a - b) / b);
  if (rel(ours.responseTime.average, exact.responseTime.average) > 1e-9) throw new Error('average differs');
  for (const p of ['p50', 'p90', 'p95', 'p99'] as const) worst = Math.max(worst, rel(ours.responseTime[p], exact.responseTime[p]));
  for (const phase of ['dns', 'connect', 'tls', 'ttfb'] as const) {
    if (rel(ours.timing[phase].average, exact.timing[phase].average) > 1e-9) throw new Error(`${phase} average differs`);
    worst = Math.max(worst, rel(ours.timing[phase].p95, exact.timing[phase].p95));
  }
  if (worst > 0.01) throw new Error(`percentile error ${worst} over 1%`);
  return worst;
}

function compareMulti(ours: MultiRangeStats, exact: MultiRangeStats): void {
  for (const name of MULTI) {
    const a = ours[name]!, b = exact[name]!;
    const { avgResponseTime: x, ...restA } = a;
    const { avgResponseTime: y, ...restB } = b;
    if (JSON.stringify(restA) !== JSON.stringify(restB) || Math.abs((x ?? 0) - (y ?? 0)) > 1e-9 * (y ?? 1)) {
      throw new Error(`multi-range ${name} differs: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    }
  }
}

function time(runs: number, fn: () => void): { p50: number; p99: number } {
  fn(); // warm-up: statements prepared, pages cached
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.ceil(q * samples.length) - 1)] as number;
  return { p50: at(0.5), p99: at(0.99) };
}

export async function runStatsBench(options: { runs?: number; baselineRuns?: number } = {}): Promise<StatsBenchReport> {
  const runs = options.runs ?? 50;
  const baselineRuns = options.baselineRuns ?? 15;
  const dir = tempDir('stats');
  try {
    const started = performance.now();
    const w = await build(dir.path);
    const setupSeconds = (performance.now() - started) / 1000;
    const from = TO - 90 * DAY;
    const isoFrom = new Date(from).toISOString();
    const isoTo = new Date(TO).toISOString();
    const ranges = MULTI.join(',');

    const maxError = compareSingle(await w.stats.singleRange(w.principal, w.bigId, isoFrom, isoTo), rawSingle(w, from, TO));
    compareMulti(await w.stats.multiRange(w.principal, w.bigId, ranges, isoTo), rawMulti(w, TO));

    const latencies = (ours: () => void, raw: () => void): Latencies => {
      const a = time(runs, ours);
      const b = time(baselineRuns, raw);
      return { rollupsP50: a.p50, rollupsP99: a.p99, rawP50: b.p50, rawP99: b.p99, speedup: b.p50 / a.p50 };
    };
    const single = latencies(
      () => w.stats.singleRange(w.principal, w.bigId, isoFrom, isoTo),
      () => rawSingle(w, from, TO),
    );
    const multi = latencies(
      () => w.stats.multiRange(w.principal, w.bigId, ranges, isoTo),
      () => rawMulti(w, TO),
    );
    await w.store.close();
    return {
      results: { bigCheck: BIG_RESULTS, others: OTHER_CHECKS * ((OTHER_DAYS * DAY) / OTHER_INTERVAL) },
      setupSeconds,
      single,
      multi,
      storage: w.storage,
      maxPercentileErrorPct: maxError * 100,
    };
  } finally {
    dir.remove();
  }
}

export function statsMarkdown(r: StatsBenchReport): string {
  const row = (name: string, l: Latencies) => [
    name,
    fmt(l.rollupsP50, 2),
    fmt(l.rollupsP99, 2),
    fmt(l.rawP50, 1),
    fmt(l.rawP99, 1),
    `${fmt(l.speedup, 0)}×`,
    '≥ 50×',
  ];
  return [
    `### Statistics (one check with ${fmt(r.results.bigCheck)} results at 30 s over 90 days, among ${fmt(OTHER_CHECKS)} other checks with ${fmt(r.results.others)} results)`,
    '',
    table(
      ['request', 'rollups p50 ms', 'rollups p99 ms', 'raw scan p50 ms', 'raw scan p99 ms', 'speed-up (p50)', 'target'],
      [row('single-range, 90 days', r.single), row(`multi-range ${MULTI.join(',')}`, r.multi)],
    ),
    '',
    `Both answers are checked equal before timing (counts, min, max, durations exact; averages to float noise; worst percentile error ${fmt(r.maxPercentileErrorPct, 3)}%).`,
    '',
    table(
      ['storage per result', 'bytes'],
      [
        ['raw history row (table + index)', fmt(r.storage.rawBytes, 1)],
        ['minute rollups, its share', fmt(r.storage.minuteBytes, 1)],
        ['hour rollups, its share', fmt(r.storage.hourBytes, 1)],
        ['day rollups, its share', fmt(r.storage.dayBytes, 2)],
        ['total', fmt(r.storage.perResult, 1)],
      ],
    ),
    '',
    `Setup (every result through the batched writer: history row, state changes, rollup aggregator): ${fmt(r.setupSeconds, 1)} s.`,
  ].join('\n');
}

runIfMain(import.meta.url, async () => statsMarkdown(await runStatsBench()));
