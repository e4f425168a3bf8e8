import { createHash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { Reply } from '../front/http-types.js';
import { Lru } from '../util/lru.js';
import { etagMatches } from './status-routes.js';

/** What a public page or badge rendered to, and what makes it stale. */
export interface Rendered {
  status: number;
  contentType: string;
  text: string;
  /** The page it shows (purged when the page changes); null for badges. */
  slug: string | null;
  /** Every check it shows (purged when one of them changes status or settings). */
  checkIds: readonly string[];
}

interface Entry extends Rendered {
  etag: string;
  renderedAt: number;
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
  /** Renders the cache served, and those it had to make (the status-page bench reads these). */
  readonly counts = { hits: 0, renders: 0 };

  constructor(
    private readonly clock: Clock,
    private readonly maxAgeMs = 10_000,
    capacity = 5_000,
  ) {
    this.entries = new Lru(capacity);
  }

  reply(key: string, req: { headers: Record<string, string> }, render: () => Rendered): Reply {
    const now = this.clock.now();
    let entry = this.entries.get(key);
    if (entry && now - entry.renderedAt < this.maxAgeMs) this.counts.hits++;
    else {
      const rendered = render();
      this.counts.renders++;
      const etag = `"${createHash('sha1').update(rendered.text).digest('base64url')}"`;
      entry = { ...rendered, etag, renderedAt: now };
      this.entries.set(key, entry);
    }
    const headers = { ETag: entry.etag, 'Cache-Control': PUBLIC_CACHE_CONTROL };
    if (entry.status === 200 && etagMatches(req.headers['if-none-match'], entry.etag)) return { status: 304, headers };
    return { status: entry.status, headers, raw: { contentType: entry.contentType, text: entry.text } };
  }

  purgeCheck(checkId: string): void {
    this.entries.deleteWhere((_, e) => e.checkIds.includes(checkId));
  }

  purgeSlug(slug: string): void {
    this.entries.deleteWhere((_, e) => e.slug === slug);
  }
}
