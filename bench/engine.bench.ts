import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { VigilApp } from '../src/app.js';
import { ThreadDispatcher, type ProbeDispatcher } from '../src/engine/dispatcher.js';
import type { ProbeResult, ProbeTask } from '../src/domain/probe-types.js';
import { nextDue } from '../src/engine/timing-wheel.js';
import { createLogger } from '../src/log.js';
import { benchConfig, seedChecks } from './lib/seed.js';
import { fmt, freePort, headline, percentOf, runIfMain, spawnUntil, stop, table, tempDir } from './lib/harness.js';

/**
 * Issue 3 and 13 targets against a local target on loopback, in its own process:
 * - sustained (30,000 checks at 30 s for two minutes): of the probes due in the window, >= 99%
 *   ran (counted by their due time, not by whatever completed meanwhile), every one of those
 *   persisted (rows matched to the same due times), schedule lag p99 <= 1 s;
 * - ceiling: Vigil's successful probes per second, saturated, >= 60% of a bare undici prober's
 *   successful requests per second with the same probe threads (as many worker threads as
 *   Vigil's pool, as many requests in flight per thread as a pool worker takes).
 */
const SUSTAINED_CHECKS = Number(process.env.BENCH_SUSTAINED_CHECKS ?? 30_000);
const SUSTAINED_SECONDS = Number(process.env.BENCH_SUSTAINED_SECONDS ?? 120);
const CEILING_CHECKS = Number(process.env.BENCH_CEILING_CHECKS ?? 20_000);
const CEILING_SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const INTERVAL_MS = 30_000;
export const TARGET = fileURLToPath(new URL('./fixtures/http-target.js', import.meta.url));
const BASELINE = fileURLToPath(new URL('./fixtures/undici-prober.js', import.meta.url));

/** Logs at error only: stdout is the bench's report, and the saturated ceiling warns by design (over capacity). */
async function startApp(dataDir: string, dispatcher?: ProbeDispatcher) {
  const { server, ...input } = benchConfig(dataDir);
  const app = new VigilApp({ ...input, server: { ...server, port: 0 }, publicUrl: null, heartbeatUrl: null, dashboardUrl: null }, { logger: createLogger('error'), dispatcher });
  await app.start();
  return app;
}

/** The due instant a probe dispatched (or started) at `t` belongs to: the last one at or before t. */
function dueOf(id: string, t: number): number {
  return nextDue(id, INTERVAL_MS, t - INTERVAL_MS + 1);
}

/** Sees every probe the engine dispatches, and when, to tell which due time each one served. */
class CountingDispatcher implements ProbeDispatcher {
  readonly ran = new Map<string, number[]>();
  constructor(private readonly inner: ProbeDispatcher, private readonly idOf: (task: ProbeTask) => string) {}
  get inFlight() { return this.inner.inFlight; }
  get queued() { return this.inner.queued; }
  close() { return this.inner.close(); }
  async run(task: ProbeTask): Promise<ProbeResult> {
    const dispatchedAt = Date.now();
    const result = await this.inner.run(task);
    const id = this.idOf(task);
    let list = this.ran.get(id);
    if (!list) this.ran.set(id, (list = []));
    list.push(dueOf(id, dispatchedAt));
    return result;
  }
}

async function sustained(port: number) {
  const dir = tempDir('sustained');
  try {
    const { ids } = await seedChecks(dir.path, SUSTAINED_CHECKS, (i) => ({ url: `http://127.0.0.1:${port}/c/${i}`, checkFrequency: INTERVAL_MS / 60_000 }));
    const counting = new CountingDispatcher(new ThreadDispatcher(), (task) => ids[Number(/\/c\/(\d+)$/.exec(task.url)![1])]!);
    const app = await startApp(dir.path, counting);
    const t0 = Date.now();
    const lagBefore = app.engine.metrics.lag.count;
    await new Promise((r) => setTimeout(r, SUSTAINED_SECONDS * 1000));
    const t1 = Date.now();
    // A probe due just before t1 fires at the next tick; then the running ones finish.
    await new Promise((r) => setTimeout(r, 1000));
    await app.stop();
    const inWindow = (due: number) => due >= t0 && due < t1;
    let due = 0;
    for (const id of ids) for (let t = nextDue(id, INTERVAL_MS, t0); t < t1; t += INTERVAL_MS) due++;
    let ran = 0;
    let twice = 0;
    for (const dues of counting.ran.values()) {
      const mine = dues.filter(inWindow);
      ran += new Set(mine).size;
      twice += mine.length - new Set(mine).size;
    }
    const reopened = await startApp(dir.path);
    const seqs = reopened.store.db.prepare('SELECT seq, id FROM checks').raw().all() as Array<[number, string]>;
    const idOfSeq = new Map(seqs);
    const rows = reopened.store.db.prepare("SELECT check_seq, at FROM history WHERE kind = 'probe'").raw().iterate() as IterableIterator<[number, number]>;
    const persistedDues = new Set<string>();
    for (const [seq, at] of rows) {
      const id = idOfSeq.get(seq)!;
      const d = dueOf(id, at);
      if (inWindow(d)) persistedDues.add(`${id}@${d}`);
    }
    await reopened.stop();
    const m = app.engine.metrics;
    return { due, ran, twice, persisted: persistedDues.size, lagP99: m.lag.percentile(99) ?? 0, lagSamples: m.lag.count - lagBefore, skipped: m.skippedInFlight, seconds: (t1 - t0) / 1000 };
  } finally {
    dir.remove();
  }
}

/** Vigil saturated on `dispatcher` (which it closes): successful and failed probes persisted per second. */
export async function vigilCeiling(port: number, dispatcher: ProbeDispatcher, seconds = CEILING_SECONDS) {
  const dir = tempDir('ceiling');
  try {
    // Far more demand than two cores can serve: every check every 3 s.
    await seedChecks(dir.path, CEILING_CHECKS, (i) => ({ url: `http://127.0.0.1:${port}/c/${i}`, checkFrequency: 0.05 }));
    const app = await startApp(dir.path, dispatcher);
    await new Promise((r) => setTimeout(r, 3000)); // warm up past the first phase spread
    const from = Date.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const to = Date.now();
    app.writer.flush();
    const count = (status: string) =>
      app.store.db.prepare("SELECT count(*) FROM history WHERE kind = 'probe' AND status = ? AND at >= ? AND at < ?").pluck().get(status, from, to) as number;
    const up = count('up');
    const down = count('down');
    await app.stop();
    const elapsed = (to - from) / 1000;
    return { rate: up / elapsed, failedRate: down / elapsed };
  } finally {
    dir.remove();
  }
}

/** The baseline: `threads` worker threads of bare undici, `perThread` requests in flight each. */
async function bareUndici(port: number, threads: number, perThread: number): Promise<number> {
  const counts = await Promise.all(
    Array.from({ length: threads }, () => new Promise<number>((resolve, reject) => {
      const w = new Worker(BASELINE, { workerData: { origin: `http://127.0.0.1:${port}`, inFlight: perThread, seconds: CEILING_SECONDS } });
      w.once('message', (n: number) => resolve(n));
      w.once('error', reject);
    })),
  );
  return counts.reduce((a, b) => a + b, 0) / CEILING_SECONDS;
}

export async function runEngineBench(): Promise<string> {
  const port = await freePort();
  const target = await spawnUntil([TARGET], { PORT: String(port) }, /listening/);
  try {
    const pool = new ThreadDispatcher();
    const ceiling = { ...(await vigilCeiling(port, pool)), threads: pool.threads, perThread: pool.probesInFlightPerThread };
    const base = await bareUndici(port, ceiling.threads, ceiling.perThread);
    const s = await sustained(port);
    const budget = `${ceiling.threads} probe thread${ceiling.threads === 1 ? '' : 's'} × ${ceiling.perThread} in flight`;
    return [
      `### Probe engine (local HTTP target in its own process)`,
      '',
      table(['measure', 'figure', 'target'], [
        [`sustained: ${fmt(SUSTAINED_CHECKS)} HTTP checks at 30 s for ${fmt(s.seconds)} s`, `${fmt(s.due)} probes due in the window (${fmt(s.due / s.seconds)}/s)`, '≥ 1,000/s'],
        ['sustained: of those, probes that ran (matched by due time)', `${fmt(s.ran)} = ${fmt((s.ran / s.due) * 100, 2)}%; ${fmt(s.twice)} due times probed twice; ${fmt(s.skipped)} skipped while the previous one was in flight`, '≥ 99%, none twice'],
        ['sustained: of those, persisted rows (matched by due time)', `${fmt(s.persisted)} = ${fmt((s.persisted / s.ran) * 100, 2)}% of those that ran`, '100%'],
        ['sustained: schedule lag p99', `${fmt(s.lagP99, 1)} ms (${fmt(s.lagSamples)} probes; the wheel ticks every 100 ms)`, '≤ 1,000 ms'],
        [`ceiling: bare undici, fresh connection per request, ${budget} (baseline)`, `${fmt(base)} successful requests/s`, '-'],
        [`ceiling: Vigil saturated (${fmt(CEILING_CHECKS)} checks every 3 s), ${budget}`, `${fmt(ceiling.rate)} successful probes/s persisted = ${fmt((ceiling.rate / base) * 100, 1)}% of baseline (${fmt(ceiling.failedRate)} failed/s)`, '≥ 60%'],
      ]),
      headline({
        measure: `Probe engine saturated: successful HTTP probes persisted, ${budget}`,
        figure: `${fmt(ceiling.rate)} probes/s`,
        baseline: `bare undici, fresh connections ${fmt(base)} req/s`,
        ratio: percentOf(ceiling.rate, base),
        target: '≥ 60%',
      }),
    ].join('\n');
  } finally {
    await stop(target);
  }
}

runIfMain(import.meta.url, runEngineBench);
