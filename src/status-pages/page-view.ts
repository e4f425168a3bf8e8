import { inMaintenance } from '../monitor/maintenance.js';
import type { Check } from '../domain/records.js';
import { publicStatus } from '../core/views.js';
import { DAY_MS, dayKey } from '../domain/cover.js';
import { HOUR_MS, hourKey } from '../domain/rollup.js';
import type { RollupReads, RollupTotals } from '../store/rollup-store.js';
import type { StatusPage } from '../store/status-pages.js';
import type { LoggedStatus, StateChangeRepo } from '../store/store.js';

export const BAR_DAYS = 90;
const SPARK_HOURS = 24;
const INCIDENT_DAYS = 30;
const MAX_INCIDENTS = 10;
const MAX_FEED_ENTRIES = 50;

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
  lastChecked: number | null;
  responseTime: number | null;
  /** Oldest first, BAR_DAYS of them, today last. */
  days: DayBar[];
  /** Share of successful results over the bars' days, in percent; null without results. */
  uptime: number | null;
  /** Mean response time per hour over the last 24 hours, oldest first (null: none that hour). */
  spark: Array<number | null>;
  maintenanceUntil: number | null;
}

export interface Incident {
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

export interface PublicPage {
  slug: string;
  title: string;
  description: string | null;
  generatedAt: number;
  overall: OverallState;
  checks: PublicCheck[];
  incidents: Incident[];
}

export interface PageViewDeps {
  checks: { byId(id: string): Check | null };
  rollups: Pick<RollupReads, 'totals'>;
  stateChanges: Pick<StateChangeRepo, 'between'>;
}

/**
 * What a status page shows, built from the check records, day and hour rollups and the
 * state-change log. Only the page's own checks of its own account are ever read. Buckets that
 * closed a while ago never change, so their totals are remembered: an uncached render reads
 * one day and one hour bucket per check, not 114.
 */
export class PageViews {
  private readonly closed = new Map<string, RollupTotals>();
  private closedDay = 0;
  private readonly past = new Map<number, { today: number; days: DayBar[]; total: number; success: number }>();

  constructor(private readonly deps: PageViewDeps) {}

  /** The page's checks that still exist and belong to its account, in its order. */
  checksOf(page: StatusPage): Check[] {
    const out: Check[] = [];
    for (const id of page.checkIds) {
      const check = this.deps.checks.byId(id);
      if (check && check.accountId === page.accountId) out.push(check);
    }
    return out;
  }

  build(page: StatusPage, now: number): PublicPage {
    const checks = this.checksOf(page).map((c) => this.publicCheck(c, now));
    return {
      slug: page.slug,
      title: page.title,
      description: page.description,
      generatedAt: now,
      overall: overallOf(checks),
      checks,
      incidents: this.incidents(this.checksOf(page), now),
    };
  }

  /** Status changes of the page's checks, newest first (the Atom feed). */
  changes(page: StatusPage, now: number): StatusChange[] {
    const from = now - INCIDENT_DAYS * DAY_MS;
    const out: StatusChange[] = [];
    for (const check of this.checksOf(page)) {
      for (const change of this.deps.stateChanges.between(check.seq, from, now)) {
        if (change.at >= from) out.push({ checkId: check.id, name: check.name, at: change.at, status: change.status });
      }
    }
    return out.sort((a, b) => b.at - a.at).slice(0, MAX_FEED_ENTRIES);
  }

  publicCheck(check: Check, now: number): PublicCheck {
    const today = dayKey(now);
    const past = this.pastDays(check.seq, today, now);
    const t = this.totals(check.seq, 'day', today, DAY_MS, now);
    const days = [...past.days, { day: new Date(today).toISOString().slice(0, 10), total: t.total, uptime: t.total === 0 ? null : (t.success / t.total) * 100 }];
    const total = past.total + t.total;
    const success = past.success + t.success;
    const spark: Array<number | null> = [];
    const hour = hourKey(now);
    for (let i = SPARK_HOURS - 1; i >= 0; i--) {
      const t = this.totals(check.seq, 'hour', hour - i * HOUR_MS, HOUR_MS, now);
      spark.push(t.rtCount === 0 ? null : Math.round(t.rtSum / t.rtCount));
    }
    const maintenance = inMaintenance(check, now);
    return {
      id: check.id,
      name: check.name,
      status: maintenance ? 'maintenance' : publicStatus(check),
      lastChecked: check.lastChecked,
      responseTime: check.lastResponseTime,
      days,
      uptime: total === 0 ? null : (success / total) * 100,
      spark,
      maintenanceUntil: maintenance ? check.maintenanceUntil : null,
    };
  }

  private incidents(checks: Check[], now: number): Incident[] {
    const from = now - INCIDENT_DAYS * DAY_MS;
    const out: Incident[] = [];
    for (const check of checks) {
      let open: number | null = null;
      for (const change of this.deps.stateChanges.between(check.seq, from, now)) {
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

  /** The bars before today, built once a day per check (they change only if a late result lands). */
  private pastDays(seq: number, today: number, now: number): { days: DayBar[]; total: number; success: number } {
    const hit = this.past.get(seq);
    if (hit && hit.today === today) return hit;
    const days: DayBar[] = [];
    let total = 0;
    let success = 0;
    for (let i = BAR_DAYS - 1; i >= 1; i--) {
      const start = today - i * DAY_MS;
      const t = this.totals(seq, 'day', start, DAY_MS, now);
      total += t.total;
      success += t.success;
      days.push({ day: new Date(start).toISOString().slice(0, 10), total: t.total, uptime: t.total === 0 ? null : (t.success / t.total) * 100 });
    }
    const built = { today, days, total, success };
    this.past.set(seq, built);
    return built;
  }

  /** A bucket's totals; remembered once it closed over an hour ago (late results land within it). */
  private totals(seq: number, level: 'day' | 'hour', start: number, length: number, now: number): RollupTotals {
    const final = start + length + HOUR_MS < now;
    const key = `${seq}:${level}:${start}`;
    if (final) {
      if (dayKey(now) !== this.closedDay) {
        this.closed.clear();
        this.closedDay = dayKey(now);
      }
      const hit = this.closed.get(key);
      if (hit) return hit;
    }
    const t = this.deps.rollups.totals(seq, level, [[start, start + length]]);
    if (final) this.closed.set(key, t);
    return t;
  }
}

export function overallOf(checks: readonly Pick<PublicCheck, 'status'>[]): OverallState {
  const watched = checks.filter((c) => c.status !== 'paused');
  const down = watched.filter((c) => c.status === 'down').length;
  if (down > 0) return down === watched.length ? 'major_outage' : 'partial_outage';
  if (watched.some((c) => c.status === 'maintenance')) return 'maintenance';
  if (watched.length === 0 || watched.some((c) => c.status === 'pending')) return 'unknown';
  return 'operational';
}
