import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { VigilApp } from '../src/app.js';
import { testContent } from '../src/alerts/alert-content.js';
import { genericPayload } from '../src/alerts/formats/generic.js';
import type { AlertEvent } from '../src/domain/events.js';
import { createLogger } from '../src/log.js';
import { benchConfig, seedChecks } from './lib/seed.js';
import { fmt, freePort, runIfMain, spawnUntil, stop, table, tempDir } from './lib/harness.js';
import { bareUndici, inChildTrustingTestCa, TEST_CA } from './lib/webhook-bench.js';

/**
 * Issue 17: the receiver is down for OUTAGE seconds (60 by default) while a burst of 1,000
 * alert events x 3 webhooks is raised, then comes back. Every one of the 3,000 deliveries must
 * arrive exactly once and, per webhook and check, in the order raised; the figure is the time
 * from the receiver's return until all are acknowledged, beside a bare undici POST loop sending
 * the same 3,000 requests to the same receiver in the same run (the drain time of a sender with
 * nothing to catch up on). The events come from CHECKS checks (100 by default), each going down
 * and up in turn, so order per check means something; the queue keeps the real retry settings
 * (alerts.retryBaseMs 5 s, jittered exponential backoff). Short run: BENCH_OUTAGE_SECONDS=5.
 */
const EVENTS = Number(process.env.BENCH_OUTAGE_EVENTS ?? 1000);
const CHECKS = Number(process.env.BENCH_OUTAGE_CHECKS ?? 100);
const OUTAGE_SECONDS = Number(process.env.BENCH_OUTAGE_SECONDS ?? 60);
const WEBHOOKS = 3;
const RECEIVER = fileURLToPath(new URL('./fixtures/order-receiver.js', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Report {
  acknowledged: number;
  duplicates: number;
  outOfOrder: number;
}

async function report(origin: string): Promise<Report> {
  const res = await request(`${origin}/report`);
  return (await res.body.json()) as Report;
}

async function measure(): Promise<string> {
  const port = await freePort();
  const origin = `https://127.0.0.1:${port}`;
  let receiver = await spawnUntil([RECEIVER], { PORT: String(port) }, /listening/);
  const dir = tempDir('alerts-outage');
  try {
    const config = benchConfig(dir.path, { rdap: { bootstrapUrl: null } });
    const total = EVENTS * WEBHOOKS;
    // Checks that are never probed during the run: the events are handed to the sink directly.
    const { ids } = await seedChecks(dir.path, CHECKS, (i) => ({ url: `http://127.0.0.1:9/c/${i}`, checkFrequency: 1440 }));
    const { server, ...input } = config;
    const app = new VigilApp({ ...input, server: { ...server, port: 0 }, publicUrl: null, heartbeatUrl: null, dashboardUrl: null }, { logger: createLogger('error') });
    await app.start();
    try {
      const accountId = (await app.store.checks.byId(ids[0]!))!.accountId;
      const account = (await app.store.accounts.byId(accountId))!;
      for (let n = 1; n <= WEBHOOKS; n++) {
        await app.alerts.webhooks.create(account, { url: `${origin}/hooks/${n}`, name: `hook ${n}`, webhookType: 'generic', secret: 'bench-secret' });
      }
      // The same-run baseline: what it takes to send the 3,000 requests to this receiver when nothing is behind.
      const sample = JSON.stringify(genericPayload(testContent(Date.now(), config)));
      const inFlight = Math.min(config.alerts.concurrency, config.alerts.perTargetConcurrency * WEBHOOKS);
      await bareUndici(origin, sample, 300, inFlight); // warm-up
      const base = await bareUndici(origin, sample, total, inFlight);

      await stop(receiver);
      const outageStarted = performance.now();
      const regions = { primary: config.region, peer: null, regionsTotal: 1, regionsDown: 1, confirmedDown: false };
      const t0 = app.clock.now();
      for (let i = 0; i < EVENTS; i++) {
        const round = Math.floor(i / CHECKS);
        const down = round % 2 === 0;
        const event: AlertEvent = {
          type: down ? 'website_down' : 'website_up', at: t0 + round, previousStatus: down ? 'up' : 'down', status: down ? 'down' : 'up',
          error: down ? 'Expected status 200, got 500' : null, statusCode: down ? 500 : 200, responseTime: down ? null : 10, regions, ssl: null,
        };
        app.alerts.handle({ id: ids[i % CHECKS]!, accountId }, event);
      }
      const retriedBefore = app.alerts.sender.metrics.retried;
      await sleep(Math.max(0, OUTAGE_SECONDS * 1000 - (performance.now() - outageStarted)));
      const attemptsDuringOutage = app.alerts.sender.metrics.retried - retriedBefore;
      const queued = await app.alerts.repos.deliveries.countByStatus();

      receiver = await spawnUntil([RECEIVER], { PORT: String(port) }, /listening/);
      const back = performance.now();
      let after = await report(origin);
      while (after.acknowledged < total) {
        await sleep(20);
        after = await report(origin);
      }
      const drainMs = performance.now() - back;
      await app.alerts.idle();
      const final = await app.alerts.repos.deliveries.countByStatus();
      // The receiver was restarted: its counts are those of the drain alone.
      after = await report(origin);
      return [
        `### Alert deliveries through an outage (receiver down ${fmt(OUTAGE_SECONDS)} s during a burst of ${fmt(EVENTS)} events x ${WEBHOOKS} webhooks = ${fmt(total)} deliveries)`,
        '',
        `The receiver (HTTPS, its own process) is stopped; ${fmt(EVENTS)} events from ${fmt(CHECKS)} checks (each going down and up in turn) enter the event sink; after ${fmt(OUTAGE_SECONDS)} s the receiver starts again on the same port. Retries use the shipped settings (first retry after about ${fmt(config.alerts.retryBaseMs / 1000)} s, doubling with jitter, for ${fmt(config.alerts.retryForHours)} h). The baseline is a bare undici POST loop (${inFlight} in flight, keep-alive) sending the same number of requests to the same receiver in the same run, before the outage.`,
        '',
        table(['measure', 'figure', 'target'], [
          ['acknowledged after the return / expected', `${fmt(after.acknowledged)} / ${fmt(total)}`, 'all, none more'],
          ['delivered twice (same X-Vigil-Delivery)', fmt(after.duplicates), '0'],
          ['out of order per webhook and check', fmt(after.outOfOrder), '0'],
          ['queue after the drain', `delivered ${fmt(final.delivered)}, failed ${fmt(final.failed)}, pending ${fmt(final.pending + final.sending)}`, `${fmt(total)} delivered`],
          ['waiting when the receiver came back', fmt(queued.pending + queued.sending), '-'],
          ['attempts that failed during the outage', `${fmt(attemptsDuringOutage)} (only the head of each webhook and check line is tried)`, '-'],
          ['time to drain after the receiver returns', `${fmt(drainMs)} ms`, '-'],
          ['baseline: the same requests with nothing to catch up on', `${fmt(base.ms)} ms (${fmt(base.rate)} req/s)`, '-'],
          ['drain / baseline', `${fmt(drainMs / base.ms, 1)} x`, '-'],
        ]),
      ].join('\n');
    } finally {
      await app.stop();
    }
  } finally {
    await stop(receiver);
    dir.remove();
  }
}

export async function runAlertsOutageBench(): Promise<string> {
  return process.env.NODE_EXTRA_CA_CERTS === TEST_CA ? measure() : inChildTrustingTestCa(SELF, 'alerts-outage');
}

runIfMain(import.meta.url, runAlertsOutageBench);
