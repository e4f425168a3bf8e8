import type { KumaStatusPage } from '../store/kuma-source.js';

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
const on = (v: unknown): boolean => v === 1 || v === true || v === '1';

/**
 * The settings of a Kuma status page that a Vigil status page (slug, title, description, checks)
 * does not carry, one sentence each (the report's `notImported`): only those set away from
 * Kuma's defaults. Column names are Kuma's (1.23 and 2.x).
 */
export function pageNotImported(page: KumaStatusPage): string[] {
  const s = page.settings;
  const notes: string[] = [];
  const footer = text(s.footer_text);
  if (footer) notes.push(`footer text ${JSON.stringify(footer.slice(0, 80))}: a Vigil status page has no footer text`);
  if (on(s.show_tags)) notes.push('show tags: Vigil status pages do not show tags (the imported checks carry them)');
  if (text(s.custom_css)) notes.push('custom CSS: a Vigil status page has its own style');
  const icon = text(s.icon);
  if (icon && icon !== '/icon.svg') notes.push(`icon ${icon}: a Vigil status page has no logo`);
  const theme = text(s.theme);
  if (theme && theme !== 'auto') notes.push(`theme ${theme}: a Vigil status page follows the visitor's light or dark setting`);
  if (s.published !== undefined && !on(s.published)) notes.push('unpublished in Kuma: the Vigil page is public at /status/<slug> (delete it if it should not be)');
  if (s.search_engine_index !== undefined && !on(s.search_engine_index)) notes.push('hidden from search engines: Vigil has no such setting');
  if (text(s.password)) notes.push('password: Vigil status pages are public');
  if (s.show_powered_by !== undefined && !on(s.show_powered_by)) notes.push('"Powered by" hidden: a Vigil status page always names Vigil in its footer');
  if (on(s.show_certificate_expiry)) notes.push('certificate expiry: a Vigil status page does not show it (each check\'s ssl does, in the API)');
  if (on(s.show_only_last_heartbeat)) notes.push('only the last heartbeat: a Vigil status page shows 90 days of bars');
  const refresh = Number(s.auto_refresh_interval);
  if (refresh > 0) notes.push(`auto refresh every ${refresh} s: a Vigil status page does not reload itself (its JSON and Atom feed are there to poll)`);
  const analytics = [s.google_analytics_tag_id, s.analytics_id, s.analytics_script_url].map(text).filter(Boolean);
  if (analytics.length > 0) notes.push('analytics: a Vigil status page loads no third-party script');
  if (text(s.rss_title)) notes.push('RSS title: Vigil\'s Atom feed is titled after the page');
  for (const domain of page.domains) notes.push(`custom domain ${domain}: set it on the Vigil page with PATCH /v1/public/status-pages/{id} (customDomain)`);
  for (const title of page.pinnedIncidents) notes.push(`pinned incident ${JSON.stringify(title.slice(0, 80))}: Vigil status pages have no incident posts`);
  return notes;
}
