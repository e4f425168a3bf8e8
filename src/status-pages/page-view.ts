import { inMaintenance } from '../monitor/maintenance.js';
import type { Check } from '../domain/records.js';
import { publicStatus } from '../core/views.js';
import { blockedBy } from '../core/check-dependencies.js';
import { DAY_MS, dayKey } from '../domain/cover.js';
import { HOUR_MS, hourKey } from '../domain/rollup.js';
import type { RollupReads } from '../store/rollup-store.js';
import type { StatusPage } from '../store/status-pages.js';
import type { LoggedStatus, StateChangeRepo } from '../store/store.js';
import type { LastProbe } from '../monitor/live-check.js';
import { currentOrNext, windowCovers, type MaintenanceWindow } from '../domain/maintenance-windows.js';
import type { Incident, IncidentUpdate } from '../store/incidents.js';

export const BAR_DAYS = 90;
const SPARK_HOURS = 24;
const INCIDENT_DAYS = 30;
const MAX_INCIDENTS = 10;
const MAX_FEED_ENTRIES = 50;
/** How far ahead a page announces scheduled maintenance. */
const WINDOW_DAYS = 7;

export type PublicStatus = 'up' | 'down' | 'paused' | 'pending' | 'maintenance';
export type OverallState = 'operational' | 'partial_outage' | 'major_outage' | 'maintenance' | 'unknown';

/** One day's bar: results that day and the share that succeeded (null: no results). */
export interface DayBar {
  day: string;
  total: number;
  uptime: number | null;
}

export interface PublicCheck {
  id: string;
  name: string;
  status: PublicStatus;
  /** When the latest result came in (the check's `lastProbe`), not when its status last changed. */
  lastChecked: number | null;
  /** The latest result's response time. */
  responseTime: number | null;
  /** Oldest first, BAR_DAYS of them, today last. */
  days: DayBar[];
  /** Share of successful results over the bars' days, in percent; null without results. */
  uptime: number | null;
  /** Mean response time per hour over the last 24 hours, oldest first (null: none that hour). */
  spark: Array<number | null>;
  maintenanceUntil: number | null;
  /** Checks it depends on that are down now (issue 27): their names, for "blocked by". */
  blockedBy: Array<{ id: string; name: string }>;
}

/** A stretch of downtime of one check, from its status log. */
export interface Outage {
  checkId: string;
  name: string;
  from: number;
  /** Null while it lasts. */
  to: number | null;
}

export interface StatusChange {
  checkId: string;
  name: string;
  at: number;
  status: LoggedStatus;
}

/** A scheduled maintenance window of some of the page's checks: in force now or starting within 7 days. */
export interface PublicWindow {
  title: string;
  description: string | null;
  active: boolean;
  /** The occurrence in force, or the next one. */
  startsAt: number;
  endsAt: number;
  /** The page's checks it covers, in page order. */
  checkIds: string[];
}

export interface PublicPage {
  slug: string;
  title: string;
  description: string | null;
  generatedAt: number;
  overall: OverallState;
  checks: PublicCheck[];
  /** What the operator said (issue 29): open ones first, then those resolved in the last 30 days. */
  incidents: PublicIncident[];
  outages: Outage[];
  maintenanceWindows: PublicWindow[];
  /** The page's own look (issue 29). */
  look: Pick<StatusPage, 'logoUrl' | 'accentColor' | 'footerText' | 'favicon' | 'hidePoweredBy'>;
  /** Issue 34: whether the subscribe form offers webhooks. */
  webhookSubscriptions: boolean;
}

/** An incident as the page shows it: the affected checks by name, the timeline newest first. */
export interface PublicIncident extends Omit<Incident, 'pageId' | 'checkIds' | 'updates'> {
  checks: Array<{ id: string; name: string }>;
  updates: IncidentUpdate[];
}

/** A check in maintenance, for the feeds. */
export interface MaintenanceNotice {
  checkId: string;
  name: string;
  /** When maintenance was switched on (the check's last edit). */
  since: number;
  until: number | null;
}

export interface PageViewDeps {
  checks: { byId(id: string): Promise<Check | null> };
  rollups: Pick<RollupReads, 'bucketTotals'>;
  stateChanges: Pick<StateChangeRepo, 'between'>;
  /** The check's latest result, live from memory; null before the first since start. */
  lastProbe: (checkId: string) => LastProbe | null;
  /** The account's scheduled maintenance windows. */
  windows?: (accountId: string) => readonly MaintenanceWindow[];
}

/**
 * What a status page shows, built from the check records, day and hour rollups (one read of
 * each per check) and the state-change log. Only the page's own checks of its own account are
 * ever read.
 */
export class PageViews {
  constructor(private readonly deps: PageViewDeps) {}

  /** The page's checks that still exist and belong to its account, in its order. */
  async checksOf(page: StatusPage): Promise<Check[]> {
    const out: Check[] = [];
    for (const id of page.checkIds) {
      const check = await this.deps.checks.byId(id);
      if (check && check.accountId === page.accountId) out.push(check);
    }
    return out;
  }

  async build(page: StatusPage, now: number, incidents: readonly Incident[] = []): Promise<PublicPage> {
    const listed = await this.checksOf(page);
    const checks: PublicCheck[] = [];
    for (const c of listed) checks.push(await this.publicCheck(c, now));
    return {
      slug: page.slug,
      title: page.title,
      description: page.description,
      generatedAt: now,
      overall: overallOf(checks),
      checks,
      incidents: publicIncidents(incidents, listed),
      outages: await this.outages(listed, now),
      maintenanceWindows: await this.windows(page.accountId, listed, now),
      look: { logoUrl: page.logoUrl, accentColor: page.accentColor, footerText: page.footerText, favicon: page.favicon, hidePoweredBy: page.hidePoweredBy },
      webhookSubscriptions: page.webhookSubscriptions,
    };
  }

  /** Windows covering some of the checks, in force now or starting within WINDOW_DAYS, soonest first. */
  private windows(accountId: string, checks: readonly Check[], now: number): PublicWindow[] {
    const out: PublicWindow[] = [];
    for (const w of this.deps.windows?.(accountId) ?? []) {
      const covered = checks.filter((c) => windowCovers(w, c)).map((c) => c.id);
      if (covered.length === 0) continue;
      const o = currentOrNext(w, now);
      if (o === null || o.start > now + WINDOW_DAYS * DAY_MS) continue;
      out.push({ title: w.title, description: w.description, active: o.start <= now, startsAt: o.start, endsAt: o.end, checkIds: covered });
    }
    return out.sort((a, b) => a.startsAt - b.startsAt);
  }

  /** The page's checks in maintenance now (the feeds). */
  async maintenance(page: StatusPage, now: number): Promise<MaintenanceNotice[]> {
    return (await this.checksOf(page))
      .filter((c) => inMaintenance(c, now))
      .map((c) => ({ checkId: c.id, name: c.name, since: c.updatedAt, until: c.maintenanceUntil }));
  }

  /** Status changes of the page's checks, newest first (the Atom feed). */
  async changes(page: StatusPage, now: number): Promise<StatusChange[]> {
    const from = now - INCIDENT_DAYS * DAY_MS;
    const out: StatusChange[] = [];
    for (const check of await this.checksOf(page)) {
      for (const change of (await this.deps.stateChanges.between(check.seq, from, now))) {
        if (change.at >= from) out.push({ checkId: check.id, name: check.name, at: change.at, status: change.status });
      }
    }
    return out.sort((a, b) => b.at - a.at).slice(0, MAX_FEED_ENTRIES);
  }

  async publicCheck(check: Check, now: number): Promise<PublicCheck> {
    const today = dayKey(now);
    const first = today - (BAR_DAYS - 1) * DAY_MS;
    const perDay = new Map((await this.deps.rollups.bucketTotals(check.seq, 'day', first, today + DAY_MS)));
    const days: DayBar[] = [];
    let total = 0;
    let success = 0;
    for (let start = first; start <= today; start += DAY_MS) {
      const t = perDay.get(start);
      total += t?.total ?? 0;
      success += t?.success ?? 0;
      days.push({ day: dayLabel(start), total: t?.total ?? 0, uptime: t && t.total > 0 ? (t.success / t.total) * 100 : null });
    }
    const hour = hourKey(now);
    const firstHour = hour - (SPARK_HOURS - 1) * HOUR_MS;
    const perHour = new Map((await this.deps.rollups.bucketTotals(check.seq, 'hour', firstHour, hour + HOUR_MS)));
    const spark: Array<number | null> = [];
    for (let start = firstHour; start <= hour; start += HOUR_MS) {
      const t = perHour.get(start);
      spark.push(t && t.rtCount > 0 ? Math.round(t.rtSum / t.rtCount) : null);
    }
    const maintenance = inMaintenance(check, now);
    // The record's timing fields are synced only on status changes (spec 2.2): the latest result is in memory.
    const last = this.deps.lastProbe(check.id);
    return {
      id: check.id,
      name: check.name,
      status: maintenance ? 'maintenance' : publicStatus(check),
      lastChecked: last ? last.at : check.lastChecked,
      responseTime: last ? last.responseTime : check.lastResponseTime,
      days,
      uptime: total === 0 ? null : (success / total) * 100,
      spark,
      maintenanceUntil: maintenance ? check.maintenanceUntil : null,
      blockedBy: (await blockedBy(check, (id) => this.deps.checks.byId(id))).map((p) => ({ id: p.id, name: p.name })),
    };
  }

  private async outages(checks: Check[], now: number): Promise<Outage[]> {
    const from = now - INCIDENT_DAYS * DAY_MS;
    const out: Outage[] = [];
    for (const check of checks) {
      let open: number | null = null;
      for (const change of (await this.deps.stateChanges.between(check.seq, from, now))) {
        if (change.status === 'down') open ??= Math.max(change.at, from);
        else if (open !== null) {
          out.push({ checkId: check.id, name: check.name, from: open, to: change.at });
          open = null;
        }
      }
      if (open !== null) out.push({ checkId: check.id, name: check.name, from: open, to: null });
    }
    return out.sort((a, b) => b.from - a.from).slice(0, MAX_INCIDENTS);
  }
}

/** Open incidents first (newest first), then resolved ones (latest resolved first); checks by name, only the page's own. */
export function publicIncidents(incidents: readonly Incident[], listed: readonly Check[]): PublicIncident[] {
  const names = new Map(listed.map((c) => [c.id, c.name]));
  const shown = incidents.map(({ pageId: _page, checkIds, updates, ...rest }) => ({
    ...rest,
    checks: checkIds.filter((id) => names.has(id)).map((id) => ({ id, name: names.get(id)! })),
    updates: [...updates].reverse(),
  }));
  const open = shown.filter((i) => i.resolvedAt === null).sort((a, b) => b.createdAt - a.createdAt);
  const closed = shown.filter((i) => i.resolvedAt !== null).sort((a, b) => b.resolvedAt! - a.resolvedAt!);
  return [...open, ...closed];
}

/** Day labels repeat on every render: 90 of them a check, so each is formatted once. */
const labels = new Map<number, string>();
function dayLabel(start: number): string {
  let label = labels.get(start);
  if (label === undefined) {
    if (labels.size > 1_000) labels.clear();
    label = new Date(start).toISOString().slice(0, 10);
    labels.set(start, label);
  }
  return label;
}

export function overallOf(checks: readonly Pick<PublicCheck, 'status'>[]): OverallState {
  const watched = checks.filter((c) => c.status !== 'paused');
  const down = watched.filter((c) => c.status === 'down').length;
  if (down > 0) return down === watched.length ? 'major_outage' : 'partial_outage';
  if (watched.some((c) => c.status === 'maintenance')) return 'maintenance';
  if (watched.length === 0 || watched.some((c) => c.status === 'pending')) return 'unknown';
  return 'operational';
}
