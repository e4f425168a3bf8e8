import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { statsRoutes } from '../../src/api/stats-routes.js';
import { loadConfig, resolveConfig, type Config } from '../../src/config.js';
import { AccountsService } from '../../src/core/accounts-service.js';
import type { Timing } from '../../src/domain/check-types.js';
import { ChecksService } from '../../src/core/checks-service.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { Principal } from '../../src/core/principal.js';
import type { ProbeResult } from '../../src/domain/probe-types.js';
import { Authenticator } from '../../src/front/authenticator.js';
import type { Reply } from '../../src/api/http-types.js';
import { Idempotency } from '../../src/front/idempotency.js';
import { RequestPipeline } from '../../src/front/request-pipeline.js';
import { RateLimiter } from '../../src/front/rate-limiter.js';
import { createLogger } from '../../src/log.js';
import { exactPercentile } from '../../src/domain/histogram.js';
import { minuteKey } from '../../src/domain/rollup.js';
import { StatsService } from '../../src/core/stats-service.js';
import type { RollupStore } from '../../src/store/rollup-store.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/index.js';
import { prng } from './prng.js';
export { prng };

/**
 * A real SQLite store with the stats pieces wired the way the app wires them, a manual clock,
 * and a recorder that writes results through the engine's path: one transaction holding the
 * history row, the state change (on a transition) and the aggregator call.
 */
export interface StatsWorld {
  dir: string;
  clock: ManualClock;
  config: Config;
  store: SqliteStore;
  rollups: RollupStore;
  checks: ChecksService;
  accounts: AccountsService;
  stats: StatsService;
  /** How many raw rows statistics have read since the last reset (long ranges must read few). */
  rawRowsRead: { count: number };
  pipeline: RequestPipeline;
  principal(key: string): Promise<Principal>;
  get(path: string, key: string): Promise<Reply>;
  /** Kills the process's state without flushing open buckets, then opens the same directory again. */
  crashAndReopen(): void;
  /** A clean shutdown (open buckets written) and a new start on the same directory. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export function openStatsWorld(start: number, dir = mkdtempSync(join(tmpdir(), 'vigil-stats-'))): StatsWorld {
  const clock = new ManualClock(start);
  const config = resolveConfig(
    loadConfig({ overrides: { dataDir: dir, logLevel: 'silent', rateLimits: { perKeyPerMinute: 1_000_000 } }, warn: () => {} }),
    0,
  );
  const log = createLogger('silent');
  const rawRowsRead = { count: 0 };

  const world = {} as StatsWorld;
  const wire = () => {
    const store = openSqliteStore(dir);
    // The store's own aggregator, the one its write path feeds, as the app reads it.
    const rollups = store.rollups;
    const counted: RollupStore = {
      ...rollups,
      async rawSamples(seq, intervals) {
        const samples = await rollups.rawSamples(seq, intervals);
        rawRowsRead.count += samples.length;
        return samples;
      },
    };
    const checks = new ChecksService(store, config, clock);
    const stats = new StatsService({ stateChanges: store.stateChanges, rollups: counted }, checks, clock);
    const auth = new Authenticator(store, clock, 'Bearer realm="vigil"');
    const pipeline = new RequestPipeline({
      routes: statsRoutes({ stats }),
      auth,
      rateLimiter: new RateLimiter(clock),
      idempotency: new Idempotency(store.idempotency, clock),
      store,
      config,
      clock,
      log,
    });
    Object.assign(world, {
      store,
      rollups,
      checks,
      accounts: new AccountsService(store, config, clock),
      stats,
      pipeline,
      principal: async (key: string) => auth.authenticate({ 'x-api-key': key }),
    });
  };
  wire();
  Object.assign(world, {
    dir,
    clock,
    config,
    rawRowsRead,
    async get(path: string, key: string) {
      const url = new URL(path, 'http://127.0.0.1');
      return world.pipeline.handle({
        method: 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: { 'x-api-key': key },
        body: Buffer.alloc(0),
        remoteAddress: '127.0.0.1',
      });
    },
    crashAndReopen() {
      // Behind the seam on purpose: a crash is the database handle gone without the store's
      // clean close, which would write the open rollup buckets.
      world.store.db.close();
      wire();
    },
    async restart() {
      await world.store.close();
      wire();
    },
    async close() {
      await world.store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
  return world;
}

/** One result as a test describes it. */
export interface Sample {
  at: number;
  ok: boolean;
  responseTime: number | null;
  timing: Timing | null;
}

/**
 * Writes results the way the engine does, keeping the status the state machine would have
 * (down on the first failure: these checks confirm at once) and flushing open rollup buckets
 * once a minute as the app's timer does. `samples` is the oracle the tests compare against.
 */
export class Recorder {
  readonly samples: Sample[] = [];
  private status: 'up' | 'down' | 'pending' = 'pending';
  private flushedMinute = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly world: StatsWorld,
    readonly checkSeq: number,
  ) {}

  /** After a resume the check's state is unknown again until its next result. */
  resumed(): void {
    this.status = 'pending';
  }

  async record(sample: Sample): Promise<void> {
    const { world } = this;
    world.clock.set(sample.at);
    if (minuteKey(sample.at) > this.flushedMinute) {
      void world.rollups.flushOpen(sample.at, false);
      this.flushedMinute = minuteKey(sample.at);
    }
    const result: ProbeResult = {
      ok: sample.ok,
      statusCode: sample.ok ? 200 : 503,
      responseTime: sample.responseTime,
      timing: sample.timing,
      error: sample.ok ? null : 'HTTP 503',
      snippet: null,
      ssl: null,
      location: null,
      startedAt: sample.at,
    };
    const status = sample.ok ? 'up' : 'down';
    await world.store.transaction(async () => {
      await world.store.history.insertResult({
        checkSeq: this.checkSeq,
        at: result.startedAt,
        kind: 'probe',
        status,
        statusCode: result.statusCode,
        responseTime: result.responseTime,
        timing: result.timing,
        error: result.error,
        region: 'vps-eu-1',
        snippet: null,
        meta: null,
      });
      if (status !== this.status) await world.store.stateChanges.append(this.checkSeq, sample.at, status);
      world.rollups.add(this.checkSeq, result);
    });
    this.status = status;
    this.samples.push(sample);
  }
}

/** What stats must say about [from, to] (inclusive), computed straight from the samples. */
export function exactStats(samples: readonly Sample[], from: number, to: number) {
  const inside = samples.filter((s) => s.at >= from && s.at <= to);
  const ok = inside.filter((s) => s.ok);
  const rts = ok.flatMap((s) => (s.responseTime === null ? [] : [s.responseTime])).sort((a, b) => a - b);
  const phase = (p: 'dns' | 'connect' | 'tls' | 'ttfb') =>
    ok.flatMap((s) => (s.timing === null ? [] : [s.timing[p]])).sort((a, b) => a - b);
  const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
  return {
    total: inside.length,
    success: ok.length,
    failure: inside.length - ok.length,
    rtCount: rts.length,
    average: mean(rts),
    min: rts[0] ?? null,
    max: rts[rts.length - 1] ?? null,
    percentile: (p: number) => exactPercentile(rts, p),
    phaseAverage: (p: 'dns' | 'connect' | 'tls' | 'ttfb') => mean(phase(p)),
    phaseP95: (p: 'dns' | 'connect' | 'tls' | 'ttfb') => exactPercentile(phase(p), 95),
  };
}

