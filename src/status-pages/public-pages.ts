import type { Clock } from '../domain/clock.js';
import type { Principal } from '../core/principal.js';
import type { Check } from '../domain/records.js';
import type { StatsService } from '../core/stats-service.js';
import type { RollupReads } from '../store/rollup-store.js';
import type { StatusPage, StatusPageRepo } from '../store/status-pages.js';
import type { Store } from '../store/store.js';
import { hasAnyTag } from '../domain/tags.js';
import { responseTimeColor, uptimeColor, type Badge } from './badge-svg.js';
import { PageViews, publicIncidents, type MaintenanceNotice, type PublicIncident, type PageViewDeps, type PublicPage, type PublicStatus, type StatusChange } from './page-view.js';
import type { Incident } from '../store/incidents.js';

export const UPTIME_WINDOWS = ['1d', '7d', '30d', '90d'] as const;
export const RESPONSE_WINDOWS = ['1d', '7d', '30d'] as const;
export type BadgeKind =
  | { kind: 'status' }
  | { kind: 'uptime'; window: (typeof UPTIME_WINDOWS)[number] }
  | { kind: 'response-time'; window: (typeof RESPONSE_WINDOWS)[number] };

const STATUS_BADGE: Record<PublicStatus, Pick<Badge, 'message' | 'color'>> = {
  up: { message: 'up', color: 'brightgreen' },
  down: { message: 'down', color: 'red' },
  paused: { message: 'paused', color: 'lightgrey' },
  pending: { message: 'pending', color: 'lightgrey' },
  maintenance: { message: 'maintenance', color: 'blue' },
};

/**
 * What anyone may read without signing in: status pages by slug or custom domain, their
 * status changes, and badges of checks that some page lists. A check on no page is never
 * shown, whoever asks.
 */
export class PublicPages {
  readonly views: PageViews;

  private readonly store: Store;
  private readonly pages: StatusPageRepo;
  private readonly stats: Pick<StatsService, 'multiRange'>;
  private readonly clock: Clock;

  constructor(deps: {
    store: Store; pages: StatusPageRepo; rollups: Pick<RollupReads, 'bucketTotals'>; stats: Pick<StatsService, 'multiRange'>; clock: Clock;
    lastProbe: PageViewDeps['lastProbe'];
    windows?: PageViewDeps['windows'];
  }) {
    ({ store: this.store, pages: this.pages, stats: this.stats, clock: this.clock } = deps);
    this.views = new PageViews({ checks: deps.store.checks, rollups: deps.rollups, stateChanges: deps.store.stateChanges, lastProbe: deps.lastProbe, windows: deps.windows });
  }

  bySlug(slug: string): StatusPage | null {
    return this.pages.bySlug(slug);
  }

  byHost(hostHeader: string | undefined): StatusPage | null {
    if (!hostHeader) return null;
    const host = hostHeader.trim().toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
    return host === '' ? null : this.pages.byDomain(host);
  }

  /**
   * The page with the checks its tags add after those it lists, in dashboard order. Renders are
   * purged when a shown check changes; a check that gains a tag appears within the cache's max age.
   */
  members(page: StatusPage): StatusPage {
    if (page.tags.length === 0) return page;
    const listed = new Set(page.checkIds);
    const tagged = this.store.checks
      .list({ accountId: page.accountId, access: null }, { limit: -1, offset: 0, afterSeq: null })
      .filter((c) => !listed.has(c.id) && hasAnyTag(c.tags, page.tags))
      .map((c) => c.id);
    return tagged.length === 0 ? page : { ...page, checkIds: [...page.checkIds, ...tagged] };
  }

  view(page: StatusPage, incidents: readonly Incident[] = []): PublicPage {
    return this.views.build(page, this.clock.now(), incidents);
  }

  /** The incidents as the page shows them (checks by name, only the page's own). */
  incidents(page: StatusPage, incidents: readonly Incident[]): PublicIncident[] {
    return publicIncidents(incidents, this.views.checksOf(page));
  }

  maintenance(page: StatusPage): MaintenanceNotice[] {
    return this.views.maintenance(page, this.clock.now());
  }

  changes(page: StatusPage): StatusChange[] {
    return this.views.changes(page, this.clock.now());
  }

  /** The badge's facts, or null when the check is on no status page (or does not exist). */
  badge(checkId: string, kind: BadgeKind): Badge | null {
    const check = this.store.checks.byId(checkId);
    if (!check || !this.onSomePage(check)) return null;
    const now = this.clock.now();
    if (kind.kind === 'status') return { label: 'status', ...STATUS_BADGE[this.views.publicCheck(check, now).status] };
    const stats = this.stats.multiRange(this.ownerView(check), check.id, kind.window)[kind.window];
    if (kind.kind === 'uptime') {
      const value = stats?.uptimePercentage ?? null;
      if (value === null) return { label: `uptime ${kind.window}`, message: 'no data', color: 'lightgrey' };
      return { label: `uptime ${kind.window}`, message: `${formatPercent(value)}%`, color: uptimeColor(value) };
    }
    const avg = stats?.avgResponseTime ?? null;
    if (avg === null) return { label: `response time ${kind.window}`, message: 'no data', color: 'lightgrey' };
    return { label: `response time ${kind.window}`, message: `${Math.round(avg)} ms`, color: responseTimeColor(avg) };
  }

  private onSomePage(check: Check): boolean {
    if (this.pages.listsCheck(check.id)) return true;
    return check.tags.length > 0 && this.pages.listForAccount(check.accountId).some((p) => hasAnyTag(check.tags, p.tags));
  }

  /** Statistics read as the check's own account would (the check is public through a page). */
  private ownerView(check: Check): Principal {
    const account = this.store.accounts.byId(check.accountId)!;
    return { kind: 'api_key', credentialId: 'status-page', account, scopes: ['checks:read'], access: null, key: null };
  }
}

function formatPercent(value: number): string {
  if (value >= 100) return '100';
  // Never round 99.996 up to a perfect 100.
  return (Math.floor(value * 100) / 100).toFixed(2);
}
