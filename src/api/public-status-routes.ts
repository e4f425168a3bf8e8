import { Type } from '@sinclair/typebox';
import { errorBody, errors } from '../domain/errors.js';
import { StringEnum } from '../core/schemas/common.js';
import { defineRoute, type HttpRequest, type Reply, type Route } from './http-types.js';
import { BADGE_STYLES, badgeJson, badgeSvg, type BadgeStyle } from '../status-pages/badge-svg.js';
import { feedItems, pageAtom, pageJson, pageJsonFeed } from '../status-pages/page-feeds.js';
import type { Incident } from '../store/incidents.js';
import { PAGE_SCRIPTS, renderNotFoundHtml, renderPageHtml } from '../status-pages/page-html.js';
import { pageHeaders } from './page-headers.js';
import { RESPONSE_WINDOWS, UPTIME_WINDOWS, type BadgeKind } from '../status-pages/public-pages.js';
import type { StatusPage } from '../store/status-pages.js';
import { VIGIL_ICON_SVG } from '../status-pages/vigil-icon.js';
import type { RenderCache, Rendered } from './render-cache.js';
import type { PageServices } from './services.js';

const HTML = 'text/html; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const SLUG = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
/**
 * A status page's headers: its refresh script by hash, logos from https origins, framed only by
 * the origins its owner lists (issue 34).
 */
const statusPageHeaders = (frameAncestors: readonly string[]) =>
  pageHeaders({ inlineScripts: PAGE_SCRIPTS, httpsImages: true, frameAncestors, referrer: 'strict-origin-when-cross-origin' });
const NOT_FOUND_HEADERS = statusPageHeaders([]);

/** How long a page showing a check still waiting for its first result is kept. */
const PENDING_RECHECK_MS = 2_000;

const publicPage = {
  tag: 'status-pages',
  auth: 'none',
  allowRestricted: true,
  rateLimit: 'none',
  idempotency: 'none',
  errorShape: 'standard',
  documented: false,
  responses: {},
  // Pages, feeds and badges are linked and embedded: a cache-buster (`?v=2`) or a tracking tag
  // added to a shared link must not break them; a near-miss of their own parameters still does.
  unknownQuery: 'typos-refused',
} as const;

const BadgeQuery = Type.Object(
  {
    style: Type.Optional(StringEnum(BADGE_STYLES)),
    label: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: true },
);

type Format = 'html' | 'json' | 'atom' | 'feed';

function splitFormat(name: string): { slug: string; format: Format } {
  if (name.endsWith('.feed.json')) return { slug: name.slice(0, -10), format: 'feed' };
  if (name.endsWith('.json')) return { slug: name.slice(0, -5), format: 'json' };
  if (name.endsWith('.atom')) return { slug: name.slice(0, -5), format: 'atom' };
  return { slug: name, format: 'html' };
}

/**
 * The public, sign-in-free side of status pages (issue 15): `/status/{slug}` as HTML, `.json`
 * and `.atom`, a page's custom domain at `/`, and badges of the checks pages list. Answers come
 * from render caches the app purges on every status change; badges have their own, so badge
 * URLs with made-up labels can never push pages out.
 */
export function publicStatusRoutes(s: PageServices, caches: { pages: RenderCache; badges: RenderCache }): Route[] {
  const cache = caches.pages;
  const pages = s.publicPages;

  const renderPage = async (listed: StatusPage, format: Format): Promise<Rendered> => {
    const page = await pages.members(listed);
    return renderWith(page, format, await s.incidents.shown(page, s.clock.now()));
  };

  const renderWith = async (page: StatusPage, format: Format, incidents: readonly Incident[]): Promise<Rendered> => {
    const checkIds = page.checkIds;
    if (format === 'atom' || format === 'feed') {
      const pageUrl = s.statusPages.url(page);
      const feedUrl = `${s.config.publicUrl}/status/${page.slug}${format === 'atom' ? '.atom' : '.feed.json'}`;
      const maintenance = await pages.maintenance(page);
      const items = feedItems(page.slug, await pages.changes(page), await pages.incidents(page, incidents), maintenance);
      const meta = { slug: page.slug, title: page.title, pageUrl, feedUrl };
      // A maintenance window running out changes the feed without an event: render again then.
      const ends = maintenance.map((m) => m.until).filter((t): t is number => t !== null);
      const validUntil = ends.length ? Math.min(...ends) : undefined;
      if (format === 'atom') {
        return { status: 200, contentType: 'application/atom+xml; charset=utf-8', text: pageAtom(meta, items, s.clock.now()), slug: page.slug, checkIds, validUntil };
      }
      return { status: 200, contentType: 'application/feed+json; charset=utf-8', text: JSON.stringify(pageJsonFeed(meta, items)), slug: page.slug, checkIds, validUntil };
    }
    const view = await pages.view(page, incidents);
    // Changes that come without an alert event: a maintenance window running out, and a new
    // check's first result (pending to up); render again at the window's end, or soon.
    const ends = view.checks.map((c) => c.maintenanceUntil).filter((t): t is number => t !== null);
    if (view.checks.some((c) => c.status === 'pending')) ends.push(view.generatedAt + PENDING_RECHECK_MS);
    const validUntil = ends.length ? Math.min(...ends) : undefined;
    if (format === 'json') return { status: 200, contentType: JSON_TYPE, text: JSON.stringify(pageJson(view)), slug: page.slug, checkIds, validUntil };
    return { status: 200, contentType: HTML, text: renderPageHtml(view), slug: page.slug, checkIds, validUntil, headers: statusPageHeaders(page.embedAllowedOrigins) };
  };

  // Unknown slugs are not kept: made-up addresses must not push real pages out of the cache.
  const renderSlug = async (slug: string, format: Format): Promise<Rendered> => {
    const page = SLUG.test(slug) ? await pages.bySlug(slug) : null;
    if (page) return renderPage(page, format);
    const missing = { status: 404, slug, checkIds: [], keep: false };
    if (format === 'html') return { ...missing, contentType: HTML, text: renderNotFoundHtml(), headers: NOT_FOUND_HEADERS };
    return { ...missing, contentType: JSON_TYPE, text: JSON.stringify(errorBody(errors.notFound(`No status page ${slug}`), 'standard')) };
  };

  // A badge of a check on no page is a 404, cached like the rest: listing the check purges it.
  const badge = (req: HttpRequest, checkId: string, kind: BadgeKind, file: string, query: { style?: BadgeStyle; label?: string }): Reply | Promise<Reply> => {
    const json = file.endsWith('.json');
    const key = `badge:${checkId}:${kind.kind}:${'window' in kind ? kind.window : ''}:${json ? 'json' : 'svg'}:${query.style ?? ''}:${query.label ?? ''}`;
    return caches.badges.reply(key, req, async () => {
      const checkIds = [checkId];
      const found = await pages.badge(checkId, kind);
      if (!found) {
        const text = JSON.stringify(errorBody(errors.notFound(`No status page shows check ${checkId}`), 'standard'));
        return { status: 404, contentType: JSON_TYPE, text, slug: null, checkIds };
      }
      const facts = query.label === undefined ? found : { ...found, label: query.label };
      return json
        ? { status: 200, contentType: JSON_TYPE, text: JSON.stringify(badgeJson(facts, query.style)), slug: null, checkIds }
        : { status: 200, contentType: 'image/svg+xml; charset=utf-8', text: badgeSvg(facts, query.style), slug: null, checkIds };
    });
  };

  const windowOf = <T extends string>(file: string, allowed: readonly T[]): T => {
    const name = file.replace(/\.(svg|json)$/, '');
    if (!/\.(svg|json)$/.test(file) || !(allowed as readonly string[]).includes(name)) {
      throw errors.notFound(`No such badge: ${allowed.map((w) => `${w}.svg`).join(', ')} (or .json)`);
    }
    return name as T;
  };
  return [
    defineRoute({
      ...publicPage,
      method: 'GET',
      path: '/status/:page',
      summary: 'A public status page: HTML, or .json, or a feed of its incidents, maintenance and status changes (.atom, .feed.json)',
      handler: ({ req, params }) => {
        const { slug, format } = splitFormat(params.page!);
        return cache.reply(`${slug}.${format}`, req, async () => (await renderSlug(slug, format)));
      },
    }),
    defineRoute({
      ...publicPage,
      method: 'GET',
      path: '/',
      summary: 'The status page whose customDomain is the request Host',
      handler: async ({ req }) => {
        const page = await pages.byHost(req.headers['host']);
        if (!page) throw errors.routeNotFound(req.method, req.path);
        return cache.reply(`${page.slug}.html`, req, async () => (await renderPage(page, 'html')));
      },
    }),
    defineRoute({
      ...publicPage,
      method: 'GET',
      path: '/favicon.ico',
      summary: 'The icon browsers ask for: the favicon of the status page on this custom domain, else Vigil\'s',
      handler: async ({ req }): Promise<Reply> => {
        const page = await pages.byHost(req.headers['host']);
        if (page?.favicon) return { status: 302, headers: { location: page.favicon, 'cache-control': 'public, max-age=3600' } };
        return { status: 200, headers: { 'cache-control': 'public, max-age=86400' }, raw: { contentType: 'image/svg+xml', text: VIGIL_ICON_SVG } };
      },
    }),
    defineRoute({
      ...publicPage,
      method: 'GET',
      path: '/badge/:id/:file',
      summary: 'Status badge of a check on a status page (status.svg or status.json)',
      query: BadgeQuery,
      handler: ({ req, params, query }) => {
        if (params.file !== 'status.svg' && params.file !== 'status.json') throw errors.notFound('No such badge');
        return badge(req, params.id!, { kind: 'status' }, params.file, query);
      },
    }),
    defineRoute({
      ...publicPage,
      method: 'GET',
      path: '/badge/:id/:measure/:file',
      summary: 'Uptime (1d, 7d, 30d, 90d) or average response time (1d, 7d, 30d) badge, .svg or .json',
      query: BadgeQuery,
      handler: ({ req, params, query }) => {
        const file = params.file!;
        if (params.measure === 'uptime') return badge(req, params.id!, { kind: 'uptime', window: windowOf(file, UPTIME_WINDOWS) }, file, query);
        if (params.measure === 'response-time') {
          return badge(req, params.id!, { kind: 'response-time', window: windowOf(file, RESPONSE_WINDOWS) }, file, query);
        }
        throw errors.notFound('Badges: status, uptime/{window} or response-time/{window}');
      },
    }),
  ];
}
