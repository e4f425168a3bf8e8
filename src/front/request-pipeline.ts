import type { TSchema } from '@sinclair/typebox';
import { databaseUnreachable } from '../store/unreachable.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import { ApiError, errorBody, errors, type ErrorShape } from '../domain/errors.js';
import type { Principal } from '../core/principal.js';
import { requireScope, requireUnrestricted } from '../core/principal.js';
import { compile, compileQuery, queryObject, type Validator } from '../core/validate.js';
import type { Store } from '../store/store.js';
import type { Authenticator } from './authenticator.js';
import { MAX_BODY_BYTES, type HandlerContext, type HttpRequest, type Reply, type Route } from '../api/http-types.js';
import { Idempotency } from './idempotency.js';
import { headersOf, type RateLimiter, type RateState } from './rate-limiter.js';
import { Router } from './router.js';
import { queryNamesCheck, type QueryNamesCheck } from './query-names.js';

interface Prepared {
  route: Route;
  body?: Validator<TSchema>;
  query?: Validator<TSchema>;
  queryNames: QueryNamesCheck;
}

export interface RequestPipelineDeps {
  routes: readonly Route[];
  auth: Authenticator;
  rateLimiter: RateLimiter;
  idempotency: Idempotency;
  store: Store;
  config: Config;
  clock: Clock;
  log: Logger;
  /**
   * Several centrals: false while this central's lease has lapsed (its database unreachable):
   * requests then answer 503 at once rather than hang, except the probes of its health. A
   * single server passes none.
   */
  available?: () => boolean;
}

/** Answered even by a central cut off from its database: a load balancer reads its state there. */
const ALWAYS_ANSWERED = new Set(['/healthz', '/readyz']);

/**
 * Applies the route table (DESIGN 2) to a transport-free request: route match, auth, rate
 * limit, scope and restriction, body and query validation, idempotency, then the handler.
 * Every failure is rendered here, in the shape the route declares.
 */
export class RequestPipeline {
  private readonly router: Router;
  private readonly prepared = new Map<Route, Prepared>();

  /** The route table it applies (tests walk every route). */
  get routes(): readonly Route[] {
    return this.deps.routes;
  }

  constructor(private readonly deps: RequestPipelineDeps) {
    this.router = new Router(deps.routes);
    for (const route of deps.routes) {
      this.prepared.set(route, {
        route,
        body: route.body ? compile(route.body) : undefined,
        query: route.query ? compileQuery(route.query) : undefined,
        queryNames: queryNamesCheck(route),
      });
    }
  }

  /** Synchronous unless something on the route's way (a precheck, the handler, idempotency) waits. */
  handle(req: HttpRequest): Reply | Promise<Reply> {
    // HEAD is GET without the body (RFC 9110 9.3.2); the adapter leaves the body out.
    const match = this.router.match(req.method, req.path) ?? (req.method === 'HEAD' ? this.router.match('GET', req.path) : null);
    if (!match) return render(errors.routeNotFound(req.method, req.path), 'standard');
    const route = match.route;
    if (req.oversized) return render(errors.payloadTooLarge(MAX_BODY_BYTES), route.errorShape);
    if (this.deps.available && !this.deps.available() && !ALWAYS_ANSWERED.has(route.path)) {
      return render(errors.unavailable('This central cannot reach its database; another central answers'), route.errorShape);
    }
    let principal: Principal | Promise<Principal> | null;
    try {
      principal = route.auth === 'credential' ? this.deps.auth.authenticate(req.headers, route.challenge, req.method) : null;
    } catch (err) {
      return this.failed(err, req, route, null);
    }
    // A cached key answers at once; a key read from the store (or a session, a token) may not.
    if (principal instanceof Promise) {
      return principal.then((p) => this.authenticated(route, req, match.params, p), (err: unknown) => this.failed(err, req, route, null));
    }
    return this.authenticated(route, req, match.params, principal);
  }

  private authenticated(route: Route, req: HttpRequest, params: Record<string, string>, principal: Principal | null): Reply | Promise<Reply> {
    let rate: RateState | null = null;
    try {
      if (route.rateLimit === 'per-address') rate = this.deps.rateLimiter.take(`address:${req.remoteAddress}`, this.deps.config.rateLimits.perAddressPerMinute);
      else if (principal && !(req.prepaid && route.rateLimit === 'per-key')) rate = this.limit(route, principal);
      const reply = this.run(this.prepared.get(route)!, req, params, principal);
      if (!(reply instanceof Promise)) return withRate(reply, rate);
      const counted = rate;
      return reply.then((r) => withRate(r, counted), (err: unknown) => this.failed(err, req, route, counted));
    } catch (err) {
      return this.failed(err, req, route, rate);
    }
  }

  private failed(err: unknown, req: HttpRequest, route: Route, rate: RateState | null): Reply {
    const apiError = err instanceof ApiError ? err : this.unexpected(err, req);
    const reply = render(apiError, route.errorShape);
    return apiError.status === 429 ? reply : withRate(reply, rate);
  }

  private limit(route: Route, principal: Principal): RateState | null {
    const limits = this.deps.config.rateLimits;
    if (route.rateLimit === 'per-key') return this.deps.rateLimiter.take(`key:${principal.credentialId}`, limits.perKeyPerMinute);
    if (route.rateLimit === 'status') {
      const [account, key] = this.deps.rateLimiter.takeAll([
        [`status-account:${principal.account.id}`, limits.statusPerAccountPerMinute],
        [`status-key:${principal.credentialId}`, limits.statusPerKeyPerMinute],
      ]);
      return key!.remaining <= account!.remaining ? key! : account!;
    }
    return null;
  }

  private run(p: Prepared, req: HttpRequest, params: Record<string, string>, credential: Principal | null): Reply | Promise<Reply> {
    const { route } = p;
    let principal = credential;
    if (principal) {
      if (route.scope) requireScope(principal, route.scope);
      if (!route.allowRestricted) requireUnrestricted(principal);
      // What may change something carries the client's address for the audit log (reads stay as they are).
      if (req.method !== 'GET' && req.method !== 'HEAD') principal = { ...principal, address: req.remoteAddress };
    }
    const known = p.queryNames(req.query);
    const idemKey = principal && route.idempotency !== 'none' ? Idempotency.readKey(req.headers, route.idempotency === 'required') : null;
    const body = p.body ? validated(p.body, parseBody(req, route)) : undefined;
    const query = p.query ? validated(p.query, queryObject(known)) : undefined;
    const ctx: HandlerContext<unknown, unknown> = { req, params, body, query, principal: principal!, now: this.deps.clock.now() };

    if (idemKey === null || principal === null) {
      const pending = route.precheck?.(ctx);
      return pending === undefined ? route.handler(ctx) : pending.then(() => route.handler(ctx));
    }
    return this.runIdempotent(route, req, ctx, principal, idemKey, body);
  }

  private async runIdempotent(
    route: Route, req: HttpRequest, ctx: HandlerContext<unknown, unknown>, principal: Principal, idemKey: string, body: unknown,
  ): Promise<Reply> {
    const { idempotency, store } = this.deps;
    const accountId = principal.account.id;
    // A route that reads its body as text (rawBody) is told apart by that text.
    const hash = Idempotency.fingerprint(body ?? (route.rawBody ? req.body.toString('utf8') : null));
    const replay = await idempotency.replay(accountId, idemKey, req.method, req.path, hash);
    if (replay) {
      // The record belongs to the account; this caller gets the answer only if it may ask.
      if (route.authorize) await route.authorize(ctx);
      else if (principal.access) throw errors.forbidden('A key restricted to checks or folders cannot replay this request');
      return replay;
    }
    const pending = route.precheck?.(ctx);
    // The handler's store work and the idempotency record: one unit of work.
    const atomically = (): Promise<Reply> =>
      store.transaction(async () => {
        const reply = await route.handler(ctx);
        await idempotency.remember(accountId, idemKey, req.method, req.path, hash, reply);
        return reply;
      });
    if (route.transaction && pending === undefined) return atomically();
    // Between the replay check and the record there is a wait: a duplicate arriving meanwhile is a 409.
    const done = idempotency.begin(accountId, idemKey);
    try {
      await pending;
      if (route.transaction) return atomically();
      const reply = await route.handler(ctx);
      await idempotency.remember(accountId, idemKey, req.method, req.path, hash, reply);
      return reply;
    } finally {
      done();
    }
  }

  private unexpected(err: unknown, req: HttpRequest): ApiError {
    if (databaseUnreachable(err)) {
      this.deps.log.warn({ err: (err as Error).message, method: req.method, path: req.path }, 'the database cannot be reached');
      return errors.unavailable('This central cannot reach its database; try again, or another central');
    }
    this.deps.log.error({ err, method: req.method, path: req.path, client: req.remoteAddress }, 'unhandled error');
    return errors.internal();
  }
}

function parseBody(req: HttpRequest, route: Route): unknown {
  const text = req.body.length ? req.body.toString('utf8') : '';
  if (route.bodyKind === 'form') return Object.fromEntries(new URLSearchParams(text));
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw errors.invalidJson();
  }
}

function validated(validator: Validator<TSchema>, value: unknown): unknown {
  const result = validator.check(value);
  if (!result.ok) throw errors.badRequest(result.message);
  return result.value;
}

function withRate(reply: Reply, rate: RateState | null): Reply {
  if (rate) reply.headers = reply.headers ? { ...headersOf(rate), ...reply.headers } : headersOf(rate);
  return reply;
}

export function render(err: ApiError, shape: ErrorShape): Reply {
  return { status: err.status, headers: err.headers, body: errorBody(err, shape) };
}
