import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Clock } from '../domain/clock.js';
import type { Reply } from './http-types.js';
import { Lru } from '../util/lru.js';
import { etagMatches } from './status-routes.js';
import type { StatusFeed } from '../core/status-feed.js';
import type { StatusPagesService } from '../status-pages/status-pages-service.js';
import type { IncidentsService } from '../status-pages/incidents-service.js';

/** What a public page or badge rendered to, and what makes it stale. */
export interface Rendered {
  status: number;
  contentType: string;
  text: string;
  /** The page it shows (purged when the page changes); null for badges. */
  slug: string | null;
  /** Every check it shows (purged when one of them changes status or settings). */
  checkIds: readonly string[];
  /** When it goes stale by itself (a maintenance window ends), if sooner than the cache's max age. */
  validUntil?: number;
  /** False for answers anyone can multiply at will (unknown slugs): served, never kept. */
  keep?: boolean;
  /** Headers of this answer beyond caching ones (an HTML page's security headers). */
  headers?: Readonly<Record<string, string>>;
}

interface Entry extends Rendered {
  etag: string;
  renderedAt: number;
  /** Compressed once at render, for clients that accept it (every browser does). */
  br: Buffer | null;
  gzip: Buffer | null;
}

/** Below this, compressing saves less than its headers cost (badges). */
const COMPRESS_FROM = 1024;

function preferred(acceptEncoding: string | undefined): 'br' | 'gzip' | null {
  if (!acceptEncoding) return null;
  if (/\bbr\b/.test(acceptEncoding)) return 'br';
  if (/\bgzip\b/.test(acceptEncoding)) return 'gzip';
  return null;
}

/**
 * Browsers and proxies may keep a copy 2 s and serve it a little longer while they revalidate;
 * the ETag makes revalidation a 304.
 */
export const PUBLIC_CACHE_CONTROL = 'public, max-age=2, stale-while-revalidate=5';

/**
 * Rendered public pages and badges, kept until one of their checks or their page changes (the
 * app purges on every status change, so an outage is served at once) or, for figures that move
 * with every probe (response times, uptime), until they are `maxAgeMs` old.
 */
export class RenderCache {
  private readonly entries: Lru<string, Entry>;
  /**
   * The keys that showed each check, so a purge (every status change and edit) touches what
   * shows the check instead of every entry. Keys the LRU has since dropped stay listed until
   * their check is purged; past `indexLimit` of them the whole cache starts afresh.
   */
  private keysOfCheck = new Map<string, Set<string>>();
  private indexed = 0;
  /** Moves on every purge. */
  private purges = 0;
  private readonly indexLimit: number;

  constructor(
    private readonly clock: Clock,
    private readonly maxAgeMs = 10_000,
    capacity = 5_000,
  ) {
    this.entries = new Lru(capacity);
    this.indexLimit = 8 * capacity;
  }

  /** A kept render answers at once; a new one once it is rendered. */
  reply(key: string, req: { headers: Record<string, string> }, render: () => Promise<Rendered>): Reply | Promise<Reply> {
    const now = this.clock.now();
    const entry = this.entries.get(key);
    if (entry !== undefined && this.fresh(entry, now)) return this.answer(entry, req);
    const purges = this.purges;
    return render().then((rendered) => {
      const made = this.made(rendered, now);
      // A purge while it rendered may have voided what it read.
      if (made.keep !== false && purges === this.purges) this.keep(key, made);
      return this.answer(made, req);
    });
  }

  private answer(entry: Entry, req: { headers: Record<string, string> }): Reply {
    const encoding = entry.br ? preferred(req.headers['accept-encoding']) : null;
    // A strong ETag names one representation: each encoding has its own.
    const etag = `"${entry.etag}${encoding ? `-${encoding}` : ''}"`;
    const headers: Record<string, string> = { ...entry.headers, 'X-Content-Type-Options': 'nosniff', ETag: etag, 'Cache-Control': PUBLIC_CACHE_CONTROL };
    if (entry.br) headers['Vary'] = 'Accept-Encoding';
    if (entry.status === 200 && etagMatches(req.headers['if-none-match'], etag)) return { status: 304, headers };
    if (encoding) headers['Content-Encoding'] = encoding;
    const body = encoding === 'br' ? entry.br! : encoding === 'gzip' ? entry.gzip! : entry.text;
    return { status: entry.status, headers, raw: { contentType: entry.contentType, text: body } };
  }

  private fresh(entry: Entry, now: number): boolean {
    return now - entry.renderedAt < this.maxAgeMs && (entry.validUntil === undefined || now < entry.validUntil);
  }

  private made(rendered: Rendered, now: number): Entry {
    // Compressed once per render, so only what is kept is worth it.
    const big = rendered.keep !== false && rendered.text.length >= COMPRESS_FROM;
    return {
      ...rendered,
      etag: createHash('sha1').update(rendered.text).digest('base64url'),
      renderedAt: now,
      br: big ? brotliCompressSync(rendered.text, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }) : null,
      gzip: big ? gzipSync(rendered.text) : null,
    };
  }

  private keep(key: string, entry: Entry): void {
    if (this.indexed + entry.checkIds.length > this.indexLimit) {
      this.entries.clear();
      this.keysOfCheck = new Map();
      this.indexed = 0;
    }
    this.entries.set(key, entry);
    for (const checkId of entry.checkIds) {
      let keys = this.keysOfCheck.get(checkId);
      if (keys === undefined) this.keysOfCheck.set(checkId, (keys = new Set()));
      if (keys.has(key)) continue;
      keys.add(key);
      this.indexed++;
    }
  }

  purgeCheck(checkId: string): void {
    this.purges++;
    const keys = this.keysOfCheck.get(checkId);
    if (keys === undefined) return;
    this.keysOfCheck.delete(checkId);
    this.indexed -= keys.size;
    for (const key of keys) this.entries.delete(key);
  }

  purgeSlug(slug: string): void {
    this.purges++;
    this.entries.deleteWhere((_, e) => e.slug === slug);
  }
}

/**
 * The public pages' and badges' renders, each kept until what it shows changes: a check's
 * status or settings (from the status feed, once written; a ping or a slow spell that changed no
 * status changes no page, their figures age out like probes'), or the page's own edit.
 */
export class PublicRenders {
  readonly pages: RenderCache;
  readonly badges: RenderCache;

  constructor(
    clock: Clock,
    feed: StatusFeed,
    sources: { statusPages: Pick<StatusPagesService, 'onChange'>; incidents: Pick<IncidentsService, 'onChange'> },
  ) {
    this.pages = new RenderCache(clock);
    this.badges = new RenderCache(clock);
    feed.subscribe((change) => {
      if (change.type !== 'ping' && change.type !== 'degraded') this.purgeCheck(change.checkId);
    });
    // An incident is on its page and in its feeds: those go; badges do not show incidents.
    sources.incidents.onChange((page) => this.pages.purgeSlug(page.slug));
    sources.statusPages.onChange((...pages) => {
      for (const page of pages) {
        if (!page) continue;
        this.pages.purgeSlug(page.slug);
        for (const id of page.checkIds) this.purgeCheck(id);
      }
    });
  }

  private purgeCheck(checkId: string): void {
    this.pages.purgeCheck(checkId);
    this.badges.purgeCheck(checkId);
  }
}
