import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { VigilApp } from '../src/app.js';
import { testContent } from '../src/alerts/alert-content.js';
import type { AlertEvent } from '../src/domain/events.js';
import { genericPayload } from '../src/alerts/formats/generic.js';
import { createLogger } from '../src/log.js';
import { Histogram } from '../src/domain/histogram.js';
import { benchConfig, seedChecks } from './lib/seed.js';
import { fmt, freePort, headline, runIfMain, spawnUntil, stop, table, tempDir } from './lib/harness.js';
import { bareUndici, inChildTrustingTestCa, TEST_CA } from './lib/webhook-bench.js';

/**
 * Issue 6 target: 1,000 checks go down at once with 3 webhooks each. Time until all 3,000
 * deliveries are acknowledged by a local HTTPS receiver (its own process), against a bare
 * undici POST loop to the same receiver in the same run (target >= 50% of its rate), and the
 * probing lag during the burst (must stay within its normal p99). The 1,000 checks are real
 * and probed every 3 s by the real engine against a local target throughout (the baseline
 * runs under that same load, just before the burst, from new connections like Vigil's); their
 * `website_down` events are handed to the event sink in one synchronous burst, as if every
 * probe had failed in the same tick.
 */
const CHECKS = Number(process.env.BENCH_ALERT_CHECKS ?? 1000);
const WEBHOOKS = ['generic', 'slack', 'discord'] as const;
const NORMAL_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const TARGET = fileURLToPath(new URL('./fixtures/http-target.js', import.meta.url));
const RECEIVER = fileURLToPath(new URL('./fixtures/webhook-receiver.js', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function receiverCount(origin: string): Promise<number> {
  const res = await request(`${origin}/count`);
  return Number(await res.body.text());
}

async function measure(): Promise<string> {
  const targetPort = await freePort();
  const receiverPort = await freePort();
  const target = await spawnUntil([TARGET], { PORT: String(targetPort) }, /listening/);
  const receiver = await spawnUntil([RECEIVER], { PORT: String(receiverPort) }, /listening/);
  const origin = `https://127.0.0.1:${receiverPort}`;
  const dir = tempDir('alerts');
  try {
    const config = benchConfig(dir.path, { rdap: { bootstrapUrl: null } });
    const perTarget = config.alerts.perTargetConcurrency;
    const inFlight = Math.min(config.alerts.concurrency, perTarget * WEBHOOKS.length);
    const total = CHECKS * WEBHOOKS.length;
    const sample = JSON.stringify(genericPayload(testContent(Date.now(), config)));

    const { ids } = await seedChecks(dir.path, CHECKS, (i) => ({ url: `http://127.0.0.1:${targetPort}/c/${i}`, checkFrequency: 0.05 }));
    const { server, ...input } = config;
    const app = new VigilApp({ ...input, server: { ...server, port: 0 }, publicUrl: null, heartbeatUrl: null, dashboardUrl: null }, { logger: createLogger('warn') });
    await app.start();
    try {
      const accountId = (await app.store.checks.byId(ids[0]!))!.accountId;
      const account = (await app.store.accounts.byId(accountId))!;
      for (const type of WEBHOOKS) {
        await app.alerts.webhooks.create(account, { url: `${origin}/hooks/${type}`, name: type, webhookType: type, secret: 'bench-secret' });
      }

      await sleep(5_000); // past the first phase spread: every check probed at its interval
      app.engine.metrics.lag = new Histogram();
      app.engine.metrics.tickDelay = new Histogram();
      const probesBefore = app.engine.metrics.completed;
      await sleep(NORMAL_SECONDS * 1000);
      const normal = app.engine.metrics.lag;
      const normalTicks = app.engine.metrics.tickDelay;
      const normalProbes = (app.engine.metrics.completed - probesBefore) / NORMAL_SECONDS;

      const acknowledgedBefore = await receiverCount(origin);
      const regions = { primary: config.region, peer: null, regionsTotal: 1, regionsDown: 1, confirmedDown: false };
      await bareUndici(origin, sample, 300, inFlight); // warm-up: JIT
      const rounds: Array<{ base: number; burst: number; burstMs: number; sinkMs: number }> = [];
      const burstLag = new Histogram();
      const burstTicks = new Histogram();
      for (let round = 0; round < ROUNDS; round++) {
        // The baseline runs in the same process, under the same probing load as the burst after it.
        const base = await bareUndici(origin, sample, total, inFlight);
        await sleep(1_000);
        const deliveredBefore = app.alerts.sender.metrics.delivered;
        app.engine.metrics.lag = new Histogram();
        app.engine.metrics.tickDelay = new Histogram();
        const now = app.clock.now();
        const started = performance.now();
        for (const id of ids) {
          const event: AlertEvent = {
            type: 'website_down', at: now, previousStatus: 'up', status: 'down', error: 'Expected status 200, got 500',
            statusCode: 500, responseTime: null, regions, ssl: null,
          };
          app.alerts.handle({ id, accountId }, event);
        }
        const sinkMs = performance.now() - started;
        while (app.alerts.sender.metrics.delivered - deliveredBefore < total) await sleep(2);
        const burstMs = performance.now() - started;
        burstLag.merge(app.engine.metrics.lag);
        burstTicks.merge(app.engine.metrics.tickDelay);
        rounds.push({ base: base.rate, burst: total / (burstMs / 1000), burstMs, sinkMs });
        await sleep(1_000);
      }
      const acknowledged = (await receiverCount(origin)) - acknowledgedBefore - 300 - ROUNDS * total;
      const queue = await app.alerts.repos.deliveries.countByStatus();
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const base = median(rounds.map((r) => r.base));
      const rate = median(rounds.map((r) => r.burst));
      const sinkMs = median(rounds.map((r) => r.sinkMs));
      const normalP99 = normal.percentile(99) ?? 0;
      const burstP99 = burstLag.percentile(99) ?? 0;
      const ticks = (h: Histogram) => `p99 ${fmt(h.percentile(99) ?? 0, 1)} ms, max ${fmt(h.percentile(100) ?? 0, 1)} ms (${fmt(h.count)} ticks)`;
      return [
        `### Alert deliveries (${fmt(CHECKS)} checks down at once x ${WEBHOOKS.length} webhooks = ${fmt(total)} deliveries per burst, local HTTPS receiver in its own process)`,
        '',
        `Each round: a bare undici POST loop (${inFlight} in flight, keep-alive, new connections, the generic payload) sends ${fmt(total)} requests, then ${fmt(CHECKS)} \`website_down\` events enter the event sink at once and Vigil delivers them (slack, discord and signed generic formats, persisted queue, delivery worker). Both run in the same process under the same probing load (${fmt(normalProbes)} probes/s).`,
        '',
        table(['round', 'baseline (bare undici)', 'Vigil: events to all acknowledged', 'Vigil / baseline'], rounds.map((r, i) => [
          i === 0 ? '1 (cold: first alerts of the process)' : String(i + 1),
          `${fmt(r.base)} req/s`,
          `${fmt(r.burstMs)} ms = ${fmt(r.burst)} deliveries/s`,
          `${fmt((r.burst / r.base) * 100, 1)}%`,
        ])),
        '',
        table(['measure', 'figure', 'target'], [
          ['delivery rate, median of rounds', `${fmt(rate)} deliveries/s = ${fmt((rate / base) * 100, 1)}% of the median baseline (${fmt(base)} req/s)`, '>= 50%'],
          ['the event sink (enqueue only), per event', `${fmt((sinkMs / CHECKS) * 1000, 1)} µs`, '-'],
          [`probing lag p99, normal (${NORMAL_SECONDS} s)`, `${fmt(normalP99, 1)} ms (p50 ${fmt(normal.percentile(50) ?? 0, 1)} ms)`, '-'],
          [`probing lag p99 during the bursts (${fmt(burstLag.count)} probes)`, `${fmt(burstP99, 1)} ms (p50 ${fmt(burstLag.percentile(50) ?? 0, 1)} ms)`, `<= normal p99: ${burstP99 <= normalP99 ? 'met' : 'not met'}`],
          ['of which event-loop delay: each wheel tick after its boundary, normal', ticks(normalTicks), '-'],
          ['the same during the bursts', ticks(burstTicks), '-'],
          ['acknowledged by the receiver / recorded delivered', `${fmt(acknowledged)} / ${fmt(queue.delivered)} (failed ${queue.failed}, pending ${queue.pending + queue.sending})`, `${fmt(ROUNDS * total)} each, none twice`],
        ]),
        headline({
          measure: `Alert deliveries, ${fmt(CHECKS)} checks down at once × ${WEBHOOKS.length} webhooks (persisted queue)`,
          figure: `${fmt(rate)} deliveries/s`,
          baseline: `bare undici POST loop ${fmt(base)} req/s`,
          ratio: `${fmt((rate / base) * 100, 1)}%`,
          target: '≥ 50%',
        }),
      ].join('\n');
    } finally {
      await app.stop();
    }
  } finally {
    await stop(receiver);
    await stop(target);
    dir.remove();
  }
}

export async function runAlertsBench(): Promise<string> {
  return process.env.NODE_EXTRA_CA_CERTS === TEST_CA ? measure() : inChildTrustingTestCa(SELF, 'alerts');
}

runIfMain(import.meta.url, runAlertsBench);
