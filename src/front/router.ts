import type { Route } from '../api/http-types.js';

interface Compiled {
  route: Route;
  segments: string[];
}

/**
 * Matches method and path against the route table. Static segments win over parameters, so
 * /checks/status is never taken for /checks/:id.
 */
export class Router {
  private readonly byMethod = new Map<string, Compiled[]>();

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      const list = this.byMethod.get(route.method) ?? [];
      list.push({ route, segments: split(route.path) });
      this.byMethod.set(route.method, list);
    }
    for (const list of this.byMethod.values()) list.sort((a, b) => specificity(b.segments) - specificity(a.segments));
  }

  match(method: string, path: string): { route: Route; params: Record<string, string> } | null {
    const candidates = this.byMethod.get(method);
    if (!candidates) return null;
    const parts = split(path);
    for (const { route, segments } of candidates) {
      if (segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let matched = true;
      for (let i = 0; i < segments.length; i++) {
        const seg = segments[i]!;
        const part = parts[i]!;
        if (seg.startsWith(':')) {
          if (!part) {
            matched = false;
            break;
          }
          params[seg.slice(1)] = safeDecode(part);
        } else if (seg !== part) {
          matched = false;
          break;
        }
      }
      if (matched) return { route, params };
    }
    return null;
  }
}

const split = (path: string): string[] => path.replace(/\/+$/, '').split('/').slice(1);
const specificity = (segments: string[]): number => segments.filter((s) => !s.startsWith(':')).length;

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
