import type { TSchema } from '@sinclair/typebox';
import { errors } from '../domain/errors.js';
import type { Route } from '../api/http-types.js';
import { suggestions } from '../util/did-you-mean.js';

/**
 * Throws the 400 of a query parameter the route does not take; else returns the parameters its
 * query schema is to validate (a lenient route's others left out).
 */
export type QueryNamesCheck = (query: URLSearchParams) => URLSearchParams;

const NOTHING_REFUSED: QueryNamesCheck = (query) => query;

/**
 * The query parameters a route takes (issue 35 item 3): those its query schema declares, none
 * without one. An unknown or misspelled one is a 400 naming it, with a "did you mean" when a
 * known one is close, like a body's unknown field; nothing is ignored quietly. A route open to
 * other parameters says so (`Route.unknownQuery`): pages and badges refuse only near-misses of
 * their own (a cache-buster or a tracking tag on a shared link still works), heartbeats and
 * sign-in callbacks take any.
 */
export function queryNamesCheck(route: Pick<Route, 'query' | 'unknownQuery'>): QueryNamesCheck {
  const policy = route.unknownQuery ?? 'refused';
  if (policy === 'accepted') return NOTHING_REFUSED;
  const known = declaredNames(route.query);
  const names = new Set(known);
  return (query) => {
    if (query.size === 0) return query;
    let ignored = false;
    for (const name of query.keys()) {
      if (names.has(name)) continue;
      const close = suggestions(name, known);
      if (policy === 'refused' || close.length > 0) throw errors.badRequest(unknownMessage(name, close, known));
      ignored = true;
    }
    return ignored ? new URLSearchParams([...query].filter(([name]) => names.has(name))) : query;
  };
}

function declaredNames(schema: TSchema | undefined): string[] {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties === undefined ? [] : Object.keys(properties);
}

function unknownMessage(name: string, close: readonly string[], known: readonly string[]): string {
  const head = `Unknown query parameter ${JSON.stringify(name)}`;
  if (close.length > 0) return `${head}; did you mean ${close.join(' or ')}?`;
  return known.length === 0 ? `${head}: this route takes no query parameters` : `${head}: this route takes ${known.join(', ')}`;
}
