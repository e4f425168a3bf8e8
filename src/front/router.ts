import type { Route } from '../api/http-types.js';

interface Compiled {
  route: Route;
  segments: string[];
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * Matches method and path against the route table. Static segments win over parameters, so
 * /checks/status is never taken for /checks/:id. Every request comes through here: a path
 * without parameters is one map lookup, and the others are matched on the segment count.
 */
export class Router {
  private readonly exact = new Map<string, RouteMatch>();
  /** Routes with parameters, by method and segment count, most specific first. */
  private readonly patterns = new Map<string, Compiled[][]>();

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      const segments = split(route.path);
      if (!segments.some(isParam)) {
        this.exact.set(`${route.method} /${segments.join('/')}`, { route, params: NO_PARAMS });
        continue;
      }
      const bySize = this.patterns.get(route.method) ?? [];
      (bySize[segments.length] ??= []).push({ route, segments });
      this.patterns.set(route.method, bySize);
    }
    for (const bySize of this.patterns.values()) {
      for (const list of bySize) list?.sort((a, b) => specificity(b.segments) - specificity(a.segments));
    }
  }

  match(method: string, path: string): RouteMatch | null {
    const trimmed = path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') || '/' : path;
    const exact = this.exact.get(`${method} ${trimmed}`);
    if (exact) return exact;
    const parts = trimmed.split('/');
    parts.shift();
    const candidates = this.patterns.get(method)?.[parts.length];
    if (!candidates) return null;
    for (const { route, segments } of candidates) {
      const params = matchSegments(segments, parts);
      if (params) return { route, params };
    }
    return null;
  }
}

function matchSegments(segments: string[], parts: string[]): Record<string, string> | null {
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if (isParam(seg) ? parts[i] === '' : seg !== parts[i]) return null;
  }
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) if (isParam(segments[i]!)) params[segments[i]!.slice(1)] = safeDecode(parts[i]!);
  return params;
}

const isParam = (segment: string): boolean => segment.charCodeAt(0) === 58; // ':'
const split = (path: string): string[] => path.replace(/\/+$/, '').split('/').slice(1);
const specificity = (segments: string[]): number => segments.filter((s) => !isParam(s)).length;

function safeDecode(part: string): string {
  if (!part.includes('%')) return part;
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
