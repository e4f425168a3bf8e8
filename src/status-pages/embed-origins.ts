import { errors } from '../domain/errors.js';

/** At most this many origins may embed one page (a Content-Security-Policy header carries them all). */
export const MAX_EMBED_ORIGINS = 20;

/**
 * The origins allowed to show a status page in a frame (its `frame-ancestors`), validated: each
 * an http or https origin (scheme, host, optional port) with nothing else, written as the URL
 * parser writes it; duplicates dropped. No wildcard: a page is embedded where its owner names.
 */
export function embedOrigins(raw: readonly string[]): string[] {
  const origins = new Set<string>();
  for (const value of raw) origins.add(originOf(value));
  if (origins.size > MAX_EMBED_ORIGINS) throw errors.badRequest(`embedAllowedOrigins: at most ${MAX_EMBED_ORIGINS} origins`);
  return [...origins];
}

function originOf(value: string): string {
  const problem = `embedAllowedOrigins: ${JSON.stringify(value)} is not an origin such as https://www.example.com (scheme, host and port only)`;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw errors.badRequest(problem);
  }
  const bare = url.pathname === '/' && url.search === '' && url.hash === '' && !url.username && !url.password;
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname || !bare || /[*\s]/.test(value)) throw errors.badRequest(problem);
  // The parser keeps a trailing slash or an explicit default port out of the origin; anything else written is refused above.
  if (!/^https?:\/\/[^/?#]+\/?$/i.test(value.trim())) throw errors.badRequest(problem);
  return url.origin;
}
