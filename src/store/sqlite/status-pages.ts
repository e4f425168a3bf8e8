import type { Synchronous } from '../synchronous.js';
import type { Db } from '../db.js';
import type { OperationsRepo, StatusPage, StatusPageRepo } from '../status-pages.js';

interface PageRowDb {
  id: string;
  account_id: string;
  slug: string;
  title: string;
  description: string | null;
  custom_domain: string | null;
  tags: string;
  auto_incidents: number;
  logo_url: string | null;
  accent_color: string | null;
  footer_text: string | null;
  favicon: string | null;
  hide_powered_by: number;
  webhook_subscriptions: number;
  embed_allowed_origins: string;
  created_at: number;
  updated_at: number;
}

export function sqliteStatusPages(db: Db): Synchronous<StatusPageRepo> {
  const insertPage = db.prepare(
    `INSERT INTO status_pages (id, account_id, slug, title, description, custom_domain, auto_incidents,
       logo_url, accent_color, footer_text, favicon, hide_powered_by, webhook_subscriptions, embed_allowed_origins, tags, created_at, updated_at)
     VALUES (@id, @accountId, @slug, @title, @description, @customDomain, @autoIncidents,
       @logoUrl, @accentColor, @footerText, @favicon, @hidePoweredBy, @webhookSubscriptions, @embedJson, @tagsJson, @createdAt, @updatedAt)`,
  );
  const updatePage = db.prepare(
    `UPDATE status_pages SET slug = @slug, title = @title, description = @description, custom_domain = @customDomain,
     auto_incidents = @autoIncidents, logo_url = @logoUrl, accent_color = @accentColor, footer_text = @footerText,
     favicon = @favicon, hide_powered_by = @hidePoweredBy, webhook_subscriptions = @webhookSubscriptions, embed_allowed_origins = @embedJson, tags = @tagsJson, updated_at = @updatedAt WHERE id = @id`,
  );
  const deletePage = db.prepare('DELETE FROM status_pages WHERE id = ?');
  const byId = db.prepare<[string], PageRowDb>('SELECT * FROM status_pages WHERE id = ?');
  const bySlug = db.prepare<[string], PageRowDb>('SELECT * FROM status_pages WHERE slug = ?');
  const byDomain = db.prepare<[string], PageRowDb>('SELECT * FROM status_pages WHERE custom_domain = ?');
  const forAccount = db.prepare<[string], PageRowDb>('SELECT * FROM status_pages WHERE account_id = ? ORDER BY created_at, id');
  const checksOf = db.prepare<[string], string>('SELECT check_id FROM status_page_checks WHERE page_id = ? ORDER BY position').pluck();
  const clearChecks = db.prepare('DELETE FROM status_page_checks WHERE page_id = ?');
  const addCheck = db.prepare('INSERT INTO status_page_checks (page_id, check_id, position) VALUES (?, ?, ?)');
  const listed = db.prepare<[string], number>('SELECT 1 FROM status_page_checks WHERE check_id = ? LIMIT 1').pluck();
  const slugsListing = db
    .prepare<[string], string>('SELECT p.slug FROM status_page_checks c JOIN status_pages p ON p.id = c.page_id WHERE c.check_id = ?')
    .pluck();
  const autoPages = db.prepare<[string], PageRowDb>(
    'SELECT p.* FROM status_page_checks c JOIN status_pages p ON p.id = c.page_id WHERE c.check_id = ? AND p.auto_incidents = 1',
  );

  const toPage = (r: PageRowDb): StatusPage => ({
    id: r.id,
    accountId: r.account_id,
    slug: r.slug,
    title: r.title,
    description: r.description,
    customDomain: r.custom_domain,
    checkIds: checksOf.all(r.id),
    tags: JSON.parse(r.tags) as string[],
    autoIncidents: r.auto_incidents === 1,
    logoUrl: r.logo_url,
    accentColor: r.accent_color,
    footerText: r.footer_text,
    favicon: r.favicon,
    hidePoweredBy: r.hide_powered_by === 1,
    webhookSubscriptions: r.webhook_subscriptions === 1,
    embedAllowedOrigins: JSON.parse(r.embed_allowed_origins) as string[],
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });
  const row = (page: StatusPage) => ({ ...page, autoIncidents: page.autoIncidents ? 1 : 0, hidePoweredBy: page.hidePoweredBy ? 1 : 0,
    webhookSubscriptions: page.webhookSubscriptions ? 1 : 0, tagsJson: JSON.stringify(page.tags), embedJson: JSON.stringify(page.embedAllowedOrigins) });
  const one = (row: PageRowDb | undefined) => (row === undefined ? null : toPage(row));
  const setChecks = (page: StatusPage) => {
    clearChecks.run(page.id);
    page.checkIds.forEach((checkId, position) => addCheck.run(page.id, checkId, position));
  };

  return {
    insert: db.transaction((page: StatusPage) => {
      insertPage.run(row(page));
      setChecks(page);
    }),
    update: db.transaction((page: StatusPage) => {
      updatePage.run(row(page));
      setChecks(page);
    }),
    delete: (id) => void deletePage.run(id),
    byId: (id) => one(byId.get(id)),
    bySlug: (slug) => one(bySlug.get(slug)),
    byDomain: (host) => one(byDomain.get(host)),
    listForAccount: (accountId) => forAccount.all(accountId).map(toPage),
    listsCheck: (checkId) => listed.get(checkId) !== undefined,
    slugsListing: (checkId) => slugsListing.all(checkId),
    autoIncidentPages: (checkId) => autoPages.all(checkId).map(toPage),
  };
}

export function sqliteOperations(db: Db): Synchronous<OperationsRepo> {
  const touch = db.prepare('INSERT INTO readiness (id, checked_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at');
  const pending = db.prepare<[], number>("SELECT count(*) FROM alert_deliveries WHERE status IN ('pending', 'sending')").pluck();
  return {
    touch: (now) => void touch.run(now),
    pendingDeliveries: () => pending.get() ?? 0,
  };
}
