import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineRoute, type Reply, type Route } from '../api/http-types.js';
import { bundledDir } from '../util/bundled-file.js';
import { pageHeaders } from '../api/page-headers.js';

/** Where `npm run build` puts the bundled dashboard (scripts/build-web.mjs): dist/web; in the single binary, its unpacked copy. */
export const WEB_DIR = bundledDir('web', new URL('../../web/', import.meta.url));

interface Asset {
  type: string;
  identity: Buffer;
  br?: Buffer;
  gzip?: Buffer;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

/** The dashboard (its sign-in included) runs its own bundle only and is never framed. */
const PAGE_HEADERS = pageHeaders({ selfScripts: true, referrer: 'no-referrer' });

function load(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(dir)) return assets;
  const read = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name)) : undefined);
  for (const name of readdirSync(dir)) {
    const ext = /\.[a-z]+$/.exec(name)?.[0] ?? '';
    if (!TYPES[ext]) continue;
    assets.set(name, { type: TYPES[ext]!, identity: readFileSync(join(dir, name)), br: read(`${name}.br`), gzip: read(`${name}.gz`) });
  }
  return assets;
}

/** The precompressed variant the client accepts (brotli, then gzip), or the plain bytes. */
function serveAsset(asset: Asset, acceptEncoding: string | undefined, cache: string, extra: Record<string, string> = {}): Reply {
  const accepts = (coding: string) => new RegExp(`(^|[,\\s])${coding}(;q=(?!0(\\.0*)?\\b)[\\d.]+)?\\s*(,|$)`).test(acceptEncoding ?? '');
  const [coding, bytes] = asset.br && accepts('br') ? ['br', asset.br] : asset.gzip && accepts('gzip') ? ['gzip', asset.gzip] : [null, asset.identity];
  const headers: Record<string, string> = { 'Cache-Control': cache, Vary: 'Accept-Encoding', 'X-Content-Type-Options': 'nosniff', ...extra };
  if (coding) headers['Content-Encoding'] = coding;
  return { status: 200, headers, raw: { contentType: asset.type, text: bytes } };
}

const notBuilt: Reply = { status: 503, raw: { contentType: 'text/plain; charset=utf-8', text: 'The dashboard is not built: run npm run build\n' } };

/**
 * The dashboard's page and its content-hashed bundles, read once at start and served from
 * memory: the page is revalidated each time, the bundles are immutable.
 */
export function dashboardAssetRoutes(dir = WEB_DIR): Route[] {
  const files = load(dir);
  const page = files.get('index.html');
  const common = { auth: 'none', allowRestricted: true, rateLimit: 'none', idempotency: 'none', errorShape: 'standard', documented: false, tag: 'dashboard', responses: {}, unknownQuery: 'typos-refused' } as const;
  return [
    defineRoute({
      ...common,
      method: 'GET',
      path: '/dashboard',
      summary: 'The dashboard (single-page app)',
      handler: ({ req }) => (page ? serveAsset(page, req.headers['accept-encoding'], 'no-cache', PAGE_HEADERS) : notBuilt),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: '/dashboard/assets/:file',
      summary: 'Dashboard bundles, named by content hash',
      handler: ({ req, params }) => {
        const asset = params.file === 'index.html' ? undefined : files.get(params.file!);
        if (!asset) return { status: 404, raw: { contentType: 'text/plain; charset=utf-8', text: 'Not found\n' } };
        return serveAsset(asset, req.headers['accept-encoding'], 'public, max-age=31536000, immutable');
      },
    }),
  ];
}
