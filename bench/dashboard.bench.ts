import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { sqliteRollups } from '../src/store/sqlite/rollups.js';
import { HOUR_MS } from '../src/domain/rollup.js';
import { seedChecks } from './lib/seed.js';
import { CLI, fmt, freePort, headline, runIfMain, spawnUntil, stop, table, tempDir } from './lib/harness.js';
import { browserMissing, launchBrowser } from '../test/helpers/browser.js';

/**
 * Issue 15 targets, in headless Chromium: with 10,000 checks, the dashboard's list is usable
 * (rows drawn from GET /checks/summary) within 1.5 s of navigation, beside a same-run baseline:
 * a static page of the same checks pre-rendered as HTML, no script; and a change of a check
 * (pause/resume through the API) shows in the open list within 2 s, pushed, never polled.
 * BENCH_DASH_CHECKS=500 runs it small.
 */
const CHECKS = Number(process.env.BENCH_DASH_CHECKS ?? 10_000);
const LOADS = 5;
const CHANGES = 10;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Paused checks (no probes run) with 24 hours of hour rollups each, so every row has a sparkline. */
async function seed(dataDir: string): Promise<{ key: string; ids: string[] }> {
  const seeded = await seedChecks(dataDir, CHECKS, (i) => ({ url: `https://site-${i}.example.com/health`, name: `Site ${i}`, checkFrequency: 5, folder: `team-${i % 20}` }));
  const store = openSqliteStore(dataDir);
  const rollups = sqliteRollups(store.db);
  const now = Date.now();
  await store.transaction(async () => {
    for (const [i, id] of seeded.ids.entries()) {
      await store.checks.setDisabled(id, true, 'bench', now);
      const seq = (await store.checks.byId(id))!.seq;
      for (let h = 23; h >= 0; h--) {
        const rt = 80 + ((i * 7 + h * 13) % 60);
        rollups.addSample(seq, now - h * HOUR_MS, { ok: (i + h) % 97 !== 0, responseTime: rt, timing: { dns: 2, connect: 5, tls: 10, ttfb: rt - 20, total: rt } });
      }
    }
  });
  rollups.close();
  await store.close();
  return seeded;
}

function staticPage(count: number): string {
  const rows: string[] = [];
  for (let i = 0; i < count; i++) {
    rows.push(`<a class="row" href="#${i}"><b>Site ${i}</b><small>https://site-${i}.example.com/health</small><span>paused</span><span>website</span><span>${80 + (i % 60)} ms</span><span>99.9%</span></a>`);
  }
  return `<!doctype html><html><head><meta charset="utf-8"><title>static</title><style>.row{display:grid;grid-template-columns:3fr 1fr 1fr 1fr 1fr;height:52px}</style></head><body>${rows.join('')}</body></html>`;
}

async function timeToUsable(page: Page, url: string): Promise<number> {
  await page.goto('about:blank');
  await page.goto(url);
  await page.waitForSelector('body[data-list-ready="true"] .row');
  return (await page.evaluate(`performance.getEntriesByName('vigil-list-usable')[0].startTime`)) as number;
}

async function timeToLoad(page: Page, url: string): Promise<number> {
  await page.goto('about:blank');
  await page.goto(url, { waitUntil: 'load' });
  return (await page.evaluate(`performance.getEntriesByType('navigation')[0].loadEventEnd`)) as number;
}

export async function runDashboardBench(): Promise<string> {
  const missing = browserMissing();
  if (missing) return `### Dashboard (issue 15)\n\nSkipped: ${missing}.`;
  const dir = tempDir('dashboard');
  const html = staticPage(CHECKS);
  const baseline = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
  await new Promise<void>((r) => baseline.listen(0, '127.0.0.1', r));
  const browser = await launchBrowser();
  let vigil: Awaited<ReturnType<typeof spawnUntil>> | null = null;
  try {
    const { key, ids } = await seed(dir.path);
    const configFile = join(dir.path, 'bench.json');
    writeFileSync(configFile, JSON.stringify({ rateLimits: { perKeyPerMinute: 1e9 }, logLevel: 'warn', plans: { pro: { maxChecks: 1e7 } } }));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    vigil = await spawnUntil([CLI, 'serve', '--config', configFile], { VIGIL_DATA_DIR: dir.path, VIGIL_PORT: String(port), VIGIL_PUBLIC_URL: base }, /listening on/);
    const signIn = await fetch(`${base}/v1/public/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: key }) });
    const cookie = /vigil_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')![1]!;
    await browser.context.addCookies([{ name: 'vigil_session', value: cookie, url: base, httpOnly: true, sameSite: 'Strict' }]);
    const page = await browser.context.newPage();

    const summaryMs: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const t0 = performance.now();
      await (await fetch(`${base}/v1/public/checks/summary`, { headers: { cookie: `vigil_session=${cookie}` } })).arrayBuffer();
      summaryMs.push(performance.now() - t0);
    }
    const usable: number[] = [];
    const staticLoad: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      usable.push(await timeToUsable(page, `${base}/dashboard`));
      staticLoad.push(await timeToLoad(page, `http://127.0.0.1:${(baseline.address() as AddressInfo).port}/`));
    }

    // Live: the first check is paused; resume and pause it through the API and time the row.
    await timeToUsable(page, `${base}/dashboard`);
    await page.waitForSelector('body[data-live="open"]');
    const live: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const paused = i % 2 === 1;
      const t0 = performance.now();
      await fetch(`${base}/v1/public/checks/${ids[0]}/toggle`, {
        method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ disabled: paused }),
      });
      await page.waitForSelector(`.row[data-id="${ids[0]}"]${paused ? '[data-status="paused"]' : ':not([data-status="paused"])'}`);
      live.push(performance.now() - t0);
    }
    const usableMedian = median(usable);
    return [
      `### Dashboard (issue 15): ${fmt(CHECKS)} checks in headless Chromium`,
      '',
      table(
        ['measure', 'median', 'worst', 'target'],
        [
          ['time to a usable list (navigation → rows drawn)', `${fmt(usableMedian)} ms`, `${fmt(Math.max(...usable))} ms`, '≤ 1,500 ms'],
          ['baseline: static HTML page of the same checks, load event', `${fmt(median(staticLoad))} ms`, `${fmt(Math.max(...staticLoad))} ms`, '—'],
          ['GET /checks/summary alone (Node client)', `${fmt(median(summaryMs))} ms`, `${fmt(Math.max(...summaryMs))} ms`, '—'],
          ['API change → row updated in the open list (pushed)', `${fmt(median(live))} ms`, `${fmt(Math.max(...live))} ms`, '≤ 2,000 ms'],
        ],
      ),
      '',
      `Usable list / static page: ${fmt(usableMedian / median(staticLoad), 2)}× (${LOADS} loads each, alternated). Live: ${CHANGES} pause/resume changes.`,
      headline({
        measure: `Dashboard of ${fmt(CHECKS)} checks in Chromium: navigation to a usable list`,
        figure: `${fmt(usableMedian)} ms`,
        baseline: `static HTML page of the same checks ${fmt(median(staticLoad))} ms`,
        ratio: `${fmt(usableMedian / median(staticLoad), 2)}×`,
        target: '≤ 1,500 ms',
      }),
    ].join('\n');
  } finally {
    await browser.close();
    if (vigil) await stop(vigil);
    baseline.close();
    dir.remove();
  }
}

runIfMain(import.meta.url, runDashboardBench);
