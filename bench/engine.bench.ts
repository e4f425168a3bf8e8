import { fileURLToPath } from 'node:url';
import { Client } from 'undici';
import { VigilApp } from '../src/app.js';
import { nextDue } from '../src/engine/timing-wheel.js';
import { createLogger } from '../src/log.js';
import { benchConfig, seedChecks } from './lib/seed.js';
import { fmt, freePort, runIfMain, spawnUntil, stop, table, tempDir } from './lib/harness.js';

/**
 * Issue 3 targets against a local target on loopback:
 * - sustained: >= 1,000 probes/s (30,000 checks at 30 s) for two minutes, >= 99% of scheduled
 *   probes run, schedule lag p99 <= 1 s, every result persisted;
 * - ceiling: Vigil's saturated probe rate (fresh connection, phase timing, persisted) >= 60%
 *   of a bare undici fresh-connection prober in the same run.
 */
const SUSTAINED_CHECKS = Number(process.env.BENCH_SUSTAINED_CHECKS ?? 30_000);
const SUSTAINED_SECONDS = Number(process.env.BENCH_SUSTAINED_SECONDS ?? 120);
const CEILING_SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const TARGET = fileURLToPath(new URL('./fixtures/http-target.js', import.meta.url));

async function startApp(dataDir: string) {
  const { server, ...input } = benchConfig(dataDir);
  const app = new VigilApp({ ...input, server: { ...server, port: 0 }, publicUrl: null, heartbeatUrl: null, dashboardUrl: null }, { logger: createLogger('warn') });
  await app.start();
  return app;
}

function persisted(app: VigilApp): number {
  return app.store.db.prepare("SELECT count(*) FROM history WHERE kind = 'probe'").pluck().get() as number;
}

async function sustained(port: number) {
  const dir = tempDir('sustained');
  try {
    const intervalMs = 30_000;
    const { ids } = seedChecks(dir.path, SUSTAINED_CHECKS, (i) => ({ url: `http://127.0.0.1:${port}/c/${i}`, checkFrequency: 0.5 }));
    const app = await startApp(dir.path);
    const t0 = Date.now();
    const before = { ...app.engine.metrics };
    await new Promise((r) => setTimeout(r, SUSTAINED_SECONDS * 1000));
    const t1 = Date.now();
    const m = app.engine.metrics;
    // Probes due in [t0, t1): each check's stable phase says exactly when.
    let due = 0;
    for (const id of ids) {
      for (let t = nextDue(id, intervalMs, t0); t < t1; t += intervalMs) due++;
    }
    const completed = m.completed - before.completed;
    const lagP99 = m.lag.percentile(99) ?? 0;
    await app.stop();
    const reopened = await startApp(dir.path);
    const stored = persisted(reopened);
    await reopened.stop();
    return { due, completed, lagP99, stored, rate: completed / ((t1 - t0) / 1000), skipped: m.skippedInFlight };
  } finally {
    dir.remove();
  }
}

async function vigilCeiling(port: number) {
  const dir = tempDir('ceiling');
  try {
    // Far more demand than two cores can serve: 20,000 checks every 3 s.
    seedChecks(dir.path, 20_000, (i) => ({ url: `http://127.0.0.1:${port}/c/${i}`, checkFrequency: 0.05 }));
    const app = await startApp(dir.path);
    await new Promise((r) => setTimeout(r, 3000)); // warm up past the first phase spread
    const from = app.engine.metrics.completed;
    const storedBefore = persisted(app);
    await new Promise((r) => setTimeout(r, CEILING_SECONDS * 1000));
    const completed = app.engine.metrics.completed - from;
    app.writer.flush();
    const stored = persisted(app) - storedBefore;
    await app.stop();
    return { rate: completed / CEILING_SECONDS, storedRate: stored / CEILING_SECONDS };
  } finally {
    dir.remove();
  }
}

/** The baseline: undici on the main thread, a fresh connection per request, 256 in flight. */
async function bareUndici(port: number) {
  const deadline = Date.now() + CEILING_SECONDS * 1000;
  let done = 0;
  let i = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      const client = new Client(`http://127.0.0.1:${port}`, { pipelining: 0 });
      try {
        const res = await client.request({ path: `/c/${i++}`, method: 'GET' });
        await res.body.text();
        done++;
      } finally {
        await client.close();
      }
    }
  };
  await Promise.all(Array.from({ length: 256 }, worker));
  return done / CEILING_SECONDS;
}

export async function runEngineBench(): Promise<string> {
  const port = await freePort();
  const target = await spawnUntil([TARGET], { PORT: String(port) }, /listening/);
  try {
    const base = await bareUndici(port);
    const ceiling = await vigilCeiling(port);
    const s = await sustained(port);
    return [
      `### Probe engine (local HTTP target in its own process)`,
      '',
      table(['measure', 'figure', 'target'], [
        [`sustained: ${fmt(SUSTAINED_CHECKS)} checks at 30 s for ${SUSTAINED_SECONDS} s`, `${fmt(s.rate)} probes/s`, '>= 1,000/s'],
        ['sustained: scheduled probes that ran', `${fmt((s.completed / s.due) * 100, 2)}% (${fmt(s.completed)} of ${fmt(s.due)}; ${fmt(s.skipped)} skipped while the previous was in flight)`, '>= 99%'],
        ['sustained: schedule lag p99', `${fmt(s.lagP99, 1)} ms`, '<= 1,000 ms'],
        ['sustained: results persisted', `${fmt(s.stored)} rows for ${fmt(s.completed)} results`, 'all'],
        ['ceiling: bare undici fresh-connection prober (baseline)', `${fmt(base)} req/s`, '-'],
        ['ceiling: Vigil saturated (fresh connection, phase timing, persisted)', `${fmt(ceiling.rate)} probes/s (${fmt(ceiling.storedRate)} rows/s stored) = ${fmt((ceiling.rate / base) * 100, 1)}% of baseline`, '>= 60%'],
      ]),
    ].join('\n');
  } finally {
    await stop(target);
  }
}

runIfMain(import.meta.url, runEngineBench);
