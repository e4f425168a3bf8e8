import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DAY_MS, dayKey } from '../../src/domain/cover.js';
import { HOUR_MS, hourKey } from '../../src/domain/rollup.js';
import type { Check } from '../../src/domain/records.js';
import type { RollupTotals } from '../../src/domain/rollup.js';
import { overallOf, PageViews } from '../../src/status-pages/page-view.js';
import { badgeJson, badgeSvg, textWidth, uptimeColor } from '../../src/status-pages/badge-svg.js';
import { durationText, renderPageHtml } from '../../src/status-pages/page-html.js';
import type { StatusPage } from '../../src/store/status-pages.js';

const NOW = Date.parse('2026-11-23T15:30:00Z');
const totals = (total: number, success: number, rtSum = 0): RollupTotals => ({
  total, success, failure: total - success, rtCount: total, rtSum, rtMin: null, rtMax: null,
});

function world() {
  const check = { id: 'chk_a', seq: 1, accountId: 'acc_1', name: 'API', status: 'up', disabled: false, maintenance: false, maintenanceUntil: null, lastChecked: NOW, lastResponseTime: 120, tags: [], dependsOn: [] } as unknown as Check;
  const foreign = { ...check, id: 'chk_b', seq: 2, accountId: 'acc_2', name: 'Not mine' } as Check;
  const today = dayKey(NOW);
  const buckets: Record<string, Array<[number, RollupTotals]>> = {
    day: [[today - 89 * DAY_MS, totals(10, 10)], [today - 3 * DAY_MS, totals(100, 90)], [today, totals(4, 4)]],
    hour: [[hourKey(NOW) - 2 * HOUR_MS, totals(2, 2, 300)], [hourKey(NOW), totals(1, 1, 90)]],
  };
  const views = new PageViews({
    checks: { byId: async (id) => ({ chk_a: check, chk_b: foreign })[id] ?? null },
    rollups: { bucketTotals: async (_seq, level, from, to) => buckets[level]!.filter(([at]) => at >= from && at < to) },
    stateChanges: {
      between: async () => [
        { at: NOW - 5 * DAY_MS, status: 'down' },
        { at: NOW - 5 * DAY_MS + 600_000, status: 'up' },
        { at: NOW - 60_000, status: 'down' },
      ],
    },
    lastProbe: () => null,
  });
  const page: StatusPage = { id: 'spg_1', accountId: 'acc_1', slug: 's', title: 'S', description: null, customDomain: null, checkIds: ['chk_b', 'chk_a', 'chk_gone'], tags: [], autoIncidents: false, logoUrl: null, accentColor: null, footerText: null, favicon: null, hidePoweredBy: false, webhookSubscriptions: false, embedAllowedOrigins: [], createdAt: 0, updatedAt: 0 };
  return { views, page };
}

test('a page shows only its own account’s existing checks, with 90 day bars and 24 hourly points', async () => {
  const { views, page } = world();
  const view = await views.build(page, NOW);
  assert.deepEqual(view.checks.map((c) => c.id), ['chk_a']);
  const [c] = view.checks;
  assert.equal(c!.days.length, 90);
  assert.deepEqual(c!.days[0], { day: '2026-08-26', total: 10, uptime: 100 });
  assert.equal(c!.days[86]!.uptime, 90);
  assert.equal(c!.days[88]!.uptime, null, 'a day without results has no uptime');
  assert.deepEqual(c!.days[89], { day: '2026-11-23', total: 4, uptime: 100 });
  assert.equal(c!.uptime, (104 / 114) * 100);
  assert.equal(c!.spark.length, 24);
  assert.deepEqual(c!.spark.slice(-3), [150, null, 90]);
});

test('outages: down periods, the open one last to end', async () => {
  const { views, page } = world();
  const { outages } = await views.build(page, NOW);
  assert.deepEqual(outages.map((i) => [i.from, i.to]), [[NOW - 60_000, null], [NOW - 5 * DAY_MS, NOW - 5 * DAY_MS + 600_000]]);
});

test('overall state from the checks’ states; paused checks do not count', () => {
  const of = (...s: string[]) => overallOf(s.map((status) => ({ status }) as never));
  assert.equal(of('up', 'up', 'paused'), 'operational');
  assert.equal(of('up', 'down'), 'partial_outage');
  assert.equal(of('down', 'paused'), 'major_outage');
  assert.equal(of('up', 'maintenance'), 'maintenance');
  assert.equal(of('up', 'pending'), 'unknown');
  assert.equal(of(), 'unknown');
});

test('the HTML escapes what users typed and needs nothing from outside', async () => {
  const { views, page } = world();
  const html = renderPageHtml({ ...(await views.build(page, NOW)), title: '<script>alert(1)</script>', description: '"quoted" & more' });
  assert.ok(!html.includes('<script>alert(1)'));
  assert.ok(html.includes('&#60;script&#62;alert(1)&#60;/script&#62;'));
  assert.ok(html.includes('&#34;quoted&#34; &#38; more'));
  assert.equal(durationText(90_000), '2 min');
  assert.equal(durationText(3 * 3_600_000 + 60_000), '3 h 1 min');
  assert.equal(durationText(50 * 3_600_000), '2 d 2 h');
});

test('badges: widths grow with the text, colours follow the figure, JSON in the shields.io shape', () => {
  assert.ok(textWidth('response time 30d') > textWidth('status'));
  assert.equal(uptimeColor(99.95), 'brightgreen');
  assert.equal(uptimeColor(94), 'orange');
  const svg = badgeSvg({ label: 'a&b', message: 'up', color: 'brightgreen' }, 'flat-square');
  assert.match(svg, /<title>a&#38;b: up<\/title>/);
  assert.doesNotMatch(svg, /rx="3"/, 'flat-square has square corners');
  assert.deepEqual(badgeJson({ label: 'l', message: 'm', color: 'red' }, undefined), { schemaVersion: 1, label: 'l', message: 'm', color: 'red' });
});
