import { ErrorBody } from '../core/schemas/common.js';
import {
  BEATS_MAX_CHECKS, BeatsQuery, BeatsResponse, SeriesQuery, SeriesResponse, SessionBody, SessionResponse, SummaryResponse,
} from '../core/schemas/dashboard.js';
import { errors } from '../domain/errors.js';
import type { Principal } from '../core/principal.js';
import { sessionToken, type OpenedSession, type SessionsService, type SignInClient } from '../people/sessions-service.js';
import type { PasswordSignIn } from '../people/password-sign-in.js';
import { defineRoute, jsonReply, ok, type HttpRequest, type Route } from './http-types.js';
import { checkSummary } from './check-summary.js';
import type { LiveFeed } from './live-feed.js';
import type { Answer } from '../store/answer.js';
import { publicApi } from './route-presets.js';
import type { MonitoringServices } from './services.js';

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

export function sessionInfo(principal: Principal, expiresAt: number | null) {
  return {
    account: { id: principal.account.id, email: principal.account.email },
    scopes: principal.scopes,
    access: principal.access,
    via: principal.user ? 'member' : principal.kind === 'session' ? 'login_link' : principal.kind,
    user: principal.user ?? null,
    expiresAt: iso(expiresAt),
  };
}

/** 201 with the session's cookie: every way of signing in answers so. */
export const sessionOpened = (sessions: SessionsService, session: OpenedSession) =>
  ok({ data: sessionInfo(session.principal, session.expiresAt) }, 201, { 'Set-Cookie': sessions.cookie(session), 'Cache-Control': 'no-store' });

/** Where a sign-in request came from (kept with the session). */
export const clientOf = (req: HttpRequest): SignInClient => ({ address: req.remoteAddress, userAgent: req.headers['user-agent'] ?? null });

/**
 * What the dashboard calls beyond the spec's endpoints: sign-in and sign-out, the list's
 * summaries, chart series and the live stream. Any API client may call them too.
 */
export function dashboardRoutes(
  s: MonitoringServices, sessions: SessionsService, signIn: PasswordSignIn, live: LiveFeed, authenticate: (headers: Record<string, string>) => Answer<Principal>,
): Route[] {
  const opened = (session: OpenedSession) => sessionOpened(sessions, session);
  return [
    defineRoute({
      method: 'POST',
      path: '/v1/public/sessions',
      summary: 'Sign in to the dashboard with an API key, a login-link token, or a member\'s email and password (and TOTP code): sets an HttpOnly session cookie',
      tag: 'dashboard',
      auth: 'none',
      allowRestricted: true,
      rateLimit: 'per-address',
      idempotency: 'none',
      errorShape: 'standard',
      bodyKind: 'json',
      body: SessionBody,
      responses: { 201: SessionResponse, 400: ErrorBody, 401: ErrorBody, 429: ErrorBody },
      handler: async ({ body, req }) => {
        const ways = [body.apiKey, body.loginToken, body.email].filter((w) => w !== undefined).length;
        if (ways !== 1) throw errors.badRequest('send exactly one of apiKey, loginToken and email (with password)');
        if (body.email !== undefined) {
          if (body.password === undefined) throw errors.badRequest('password is required with email');
          return opened(await signIn.withPassword({ email: body.email, password: body.password, totp: body.totp }, clientOf(req)));
        }
        if (body.password !== undefined || body.totp !== undefined) throw errors.badRequest('password and totp go with email');
        return opened(await (body.apiKey !== undefined ? sessions.signInWithKey(body.apiKey, clientOf(req)) : sessions.signInWithLoginLink(body.loginToken!, clientOf(req))));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/public/sessions/current',
      summary: 'Who the session (or credential) is: account, scopes and restriction',
      tag: 'dashboard',
      ...publicApi,
      idempotency: 'none',
      responses: { 200: SessionResponse, 401: ErrorBody, 429: ErrorBody },
      handler: ({ principal }) => ok({ data: sessionInfo(principal, principal.sessionExpiresAt ?? principal.key?.expiresAt ?? null) }, 200, { 'Cache-Control': 'no-store' }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/v1/public/sessions/current',
      summary: 'Sign out: ends the session of the cookie sent and clears it',
      tag: 'dashboard',
      ...publicApi,
      idempotency: 'none',
      responses: { 204: null, 401: ErrorBody, 403: ErrorBody },
      handler: async ({ req, principal }) => {
        const token = sessionToken(req.headers['cookie']);
        if (token !== null) await sessions.signOut(token, principal);
        return { status: 204, headers: { 'Set-Cookie': sessions.clearCookie() } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/public/checks/summary',
      summary: 'Every check with its status, last response time, 24 h uptime and hourly sparkline (from rollups), in dashboard order',
      tag: 'dashboard',
      ...publicApi,
      scope: 'checks:read',
      idempotency: 'none',
      responses: { 200: SummaryResponse, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
      handler: async ({ principal, now }) => {
        const rows: string[] = [];
        for (const c of await s.checks.all(principal)) rows.push(JSON.stringify(await checkSummary(c, s.trends, s.config, now, s.lastProbe(c.id))));
        return jsonReply(`{"data":[${rows.join(',')}],"meta":{"total":${rows.length}}}`);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/public/checks/beats',
      summary: 'The latest results of up to 100 checks at once, as columns (the beat bars of the list rows in view; one indexed read per check)',
      tag: 'dashboard',
      ...publicApi,
      scope: 'checks:read',
      idempotency: 'none',
      query: BeatsQuery,
      responses: { 200: BeatsResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
      handler: async ({ principal, query }) => {
        const ids = query.ids.split(',').map((id) => id.trim()).filter(Boolean);
        if (ids.length > BEATS_MAX_CHECKS) throw errors.badRequest(`ids: at most ${BEATS_MAX_CHECKS} checks at once`);
        const data = (await s.history.recent(principal, ids, query.limit ?? 30)).map(({ id, results }) => ({
          id, at: results.map((r) => r.at), status: results.map((r) => r.status), responseTime: results.map((r) => r.responseTime),
        }));
        return ok({ data }, 200, { 'Cache-Control': 'no-store' });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/public/checks/:id/series',
      summary: 'Response time with its dns/connect/tls/ttfb phases and uptime per step over 1h…90d (from rollups), and the incidents in that range',
      tag: 'dashboard',
      ...publicApi,
      scope: 'checks:read',
      idempotency: 'none',
      query: SeriesQuery,
      responses: { 200: SeriesResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody },
      handler: async ({ principal, params, query, now }) => {
        const check = await s.checks.get(principal, params.id!);
        const range = query.range ?? '1d';
        const { from, to, series, incidents } = await s.series.series(check.seq, range, now);
        return ok({
          data: {
            checkId: check.id, range, from: iso(from), to: iso(to), ...series,
            incidents: incidents.map((i) => ({ start: iso(i.start), end: iso(i.end), durationMs: i.durationMs, error: i.error })),
          },
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/public/live',
      summary: 'Server-sent events: `check` (a check’s summary row, on each status change or edit) and `removed`, for the credential’s checks',
      tag: 'dashboard',
      ...publicApi,
      scope: 'checks:read',
      idempotency: 'none',
      responses: { 200: null, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
      handler: ({ principal, req }) => ({
        status: 200,
        headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
        stream: (sink) => live.attach(principal, sink, () => authenticate(req.headers)),
      }),
    }),
  ];
}
