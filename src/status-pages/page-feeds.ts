import { escapeHtml as esc } from '../oauth/html.js';
import type { IncidentStatus } from '../store/incidents.js';
import type { MaintenanceNotice, PublicIncident, PublicPage, StatusChange } from './page-view.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The API-like form of an incident on the public outputs (times in ISO 8601, timeline newest first). */
function incidentJson(i: PublicIncident) {
  return {
    id: i.id,
    title: i.title,
    impact: i.impact,
    status: i.status,
    checks: i.checks,
    createdAt: iso(i.createdAt),
    updatedAt: iso(i.updatedAt),
    resolvedAt: iso(i.resolvedAt),
    updates: i.updates.map((u) => ({ status: u.status, message: u.message, at: iso(u.at) })),
  };
}

/** The page as JSON (`/status/{slug}.json`): the same facts as the HTML, times in ISO 8601. */
export function pageJson(page: PublicPage): unknown {
  return {
    slug: page.slug,
    title: page.title,
    description: page.description,
    generatedAt: iso(page.generatedAt),
    overall: page.overall,
    checks: page.checks.map((c) => ({
      id: c.id,
      name: c.name,
      status: c.status,
      lastChecked: iso(c.lastChecked),
      responseTime: c.responseTime,
      uptime90d: c.uptime,
      maintenanceUntil: iso(c.maintenanceUntil),
      blockedBy: c.blockedBy.map((b) => b.id),
      days: c.days,
      responseTimeHourly: c.spark,
    })),
    incidents: page.incidents.map(incidentJson),
    outages: page.outages.map((i) => ({ checkId: i.checkId, name: i.name, from: iso(i.from), to: iso(i.to) })),
    maintenanceWindows: page.maintenanceWindows.map((w) => ({
      title: w.title, description: w.description, active: w.active, startsAt: iso(w.startsAt), endsAt: iso(w.endsAt), checkIds: w.checkIds,
    })),
  };
}

const CHANGE_TEXT: Record<StatusChange['status'], string> = {
  up: 'is up',
  down: 'is down',
  paused: 'was paused',
  pending: 'is being checked',
};

export const INCIDENT_STATUS_TEXT: Record<IncidentStatus, string> = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
};

/** One entry of the page's feeds (Atom, JSON Feed). */
export interface FeedItem {
  id: string;
  title: string;
  text: string;
  at: number;
}

export interface FeedPage {
  slug: string;
  title: string;
  pageUrl: string;
  /** The feed's own address. */
  feedUrl: string;
}

const MAX_ITEMS = 100;

/**
 * What the feeds carry, newest first: each update of the page's incidents, each check in
 * maintenance, and the status changes of its checks.
 */
export function feedItems(slug: string, changes: readonly StatusChange[], incidents: readonly PublicIncident[], maintenance: readonly MaintenanceNotice[]): FeedItem[] {
  const items: FeedItem[] = [];
  for (const i of incidents) {
    for (const u of i.updates) {
      items.push({ id: `urn:vigil:incident:${i.id}:${u.id}`, title: `${i.title}: ${INCIDENT_STATUS_TEXT[u.status]}`, text: u.message, at: u.at });
    }
  }
  for (const m of maintenance) {
    const until = m.until === null ? 'until further notice' : `until ${iso(m.until)}`;
    items.push({ id: `urn:vigil:maintenance:${slug}:${m.checkId}:${m.since}`, title: `${m.name}: maintenance`, text: `${m.name} is in maintenance ${until}.`, at: m.since });
  }
  for (const c of changes) {
    const at = iso(c.at)!;
    const title = `${c.name} ${CHANGE_TEXT[c.status]}`;
    items.push({ id: `urn:vigil:status:${slug}:${c.checkId}:${c.at}`, title, text: `${title} since ${at}`, at: c.at });
  }
  return items.sort((a, b) => b.at - a.at).slice(0, MAX_ITEMS);
}

/** An Atom feed (RFC 4287) of the page's items, newest first. */
export function pageAtom(page: FeedPage, items: readonly FeedItem[], now: number): string {
  const updated = new Date(items[0]?.at ?? now).toISOString();
  const entries = items.map((item) =>
    `<entry><id>${esc(item.id)}</id><title>${esc(item.title)}</title><updated>${iso(item.at)}</updated>` +
    `<link href="${esc(page.pageUrl)}"/><content type="text">${esc(item.text)}</content></entry>`);
  return `<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><id>urn:vigil:status:${esc(page.slug)}</id>` +
    `<title>${esc(page.title)}</title><updated>${updated}</updated><link rel="alternate" href="${esc(page.pageUrl)}"/>` +
    `<link rel="self" href="${esc(page.feedUrl)}"/><author><name>${esc(page.title)}</name></author>${entries.join('')}</feed>\n`;
}

/** The same items as a JSON Feed 1.1 (https://jsonfeed.org/version/1.1). */
export function pageJsonFeed(page: FeedPage, items: readonly FeedItem[]): unknown {
  return {
    version: 'https://jsonfeed.org/version/1.1',
    title: page.title,
    home_page_url: page.pageUrl,
    feed_url: page.feedUrl,
    items: items.map((item) => ({ id: item.id, url: page.pageUrl, title: item.title, content_text: item.text, date_published: iso(item.at) })),
  };
}
