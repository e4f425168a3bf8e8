import { escapeHtml as esc } from '../oauth/html.js';
import type { PublicPage, StatusChange } from './page-view.js';

/** The page as JSON (`/status/{slug}.json`): the same facts as the HTML, times in ISO 8601. */
export function pageJson(page: PublicPage): unknown {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
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
      days: c.days,
      responseTimeHourly: c.spark,
    })),
    incidents: page.incidents.map((i) => ({ checkId: i.checkId, name: i.name, from: iso(i.from), to: iso(i.to) })),
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

/** An Atom feed (RFC 4287) of the status changes of the page's checks, newest first. */
export function pageAtom(page: { slug: string; title: string; pageUrl: string }, changes: readonly StatusChange[], now: number): string {
  const updated = new Date(changes[0]?.at ?? now).toISOString();
  const entries = changes.map((c) => {
    const at = new Date(c.at).toISOString();
    const title = `${c.name} ${CHANGE_TEXT[c.status]}`;
    return `<entry><id>urn:vigil:status:${esc(page.slug)}:${esc(c.checkId)}:${c.at}</id><title>${esc(title)}</title><updated>${at}</updated>` +
      `<link href="${esc(page.pageUrl)}"/><content type="text">${esc(`${title} since ${at}`)}</content></entry>`;
  });
  return `<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><id>urn:vigil:status:${esc(page.slug)}</id>` +
    `<title>${esc(page.title)}</title><updated>${updated}</updated><link rel="alternate" href="${esc(page.pageUrl)}"/>` +
    `<author><name>${esc(page.title)}</name></author>${entries.join('')}</feed>\n`;
}
