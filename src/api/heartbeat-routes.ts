import { Type } from '@sinclair/typebox';
import { errors } from '../domain/errors.js';
import { ErrorBody } from '../core/schemas/common.js';
import { checkUrl } from '../domain/check-url.js';
import { defineRoute, jsonReply, ok, type Route } from './http-types.js';
import { kumaSignal, pingMetadata, pingSignal, withStatus } from './ping-metadata.js';
import type { MonitoringServices } from './services.js';
import { publicApi } from './route-presets.js';
import { UNKNOWN_TOKEN } from '../engine/heartbeats.js';

const PingOk = Type.Object({ ok: Type.Literal(true) });
/** A ping's acknowledgement, serialised once. */
const PONG = JSON.stringify({ ok: true });
const PingNotFound = Type.Object({ ok: Type.Literal(false), error: Type.Literal('not_found') });

export function heartbeatRoutes(s: MonitoringServices): Route[] {
  /**
   * `{ok: true}` once committed. An unknown token may belong to a check the CLI or another
   * central created a moment ago: caught up with, the ping is tried once more.
   */
  const reply = (known: boolean) => {
    if (!known) throw errors.notFound('Unknown heartbeat token');
    return jsonReply(PONG);
  };
  const acknowledged = (ping: () => Promise<boolean>) =>
    ping().then((known) => (known ? reply(true) : s.checks.catchUpNow().then((caught) => (caught === 0 ? reply(false) : ping().then(reply)))));
  const ping = defineRoute({
    method: 'GET',
    path: '/heartbeat/:token',
    summary: 'Heartbeat ping (no authentication: the token is the credential); answered after the ping is committed',
    tag: 'heartbeats',
    auth: 'none',
    allowRestricted: true,
    rateLimit: 'none',
    idempotency: 'none',
    errorShape: 'heartbeat',
    // Every other parameter is the ping's metadata (api/ping-metadata.ts).
    unknownQuery: 'accepted',
    responses: { 200: PingOk, 404: PingNotFound, 413: ErrorBody },
    handler: ({ req, params }) => {
      const meta = pingMetadata(req.body, req.query);
      const signal = withStatus(pingSignal(params.action), meta);
      return acknowledged(() => (signal ? s.pings.ping(params.token!, signal, meta) : UNKNOWN_TOKEN));
    },
  });
  const withAction = { ...ping, path: '/heartbeat/:token/:action', summary: 'Heartbeat ping with /start, /fail or /<exit code 0-255>' };
  const kumaPush = defineRoute({
    ...ping,
    path: '/api/push/:token',
    summary: "Uptime Kuma's push URL of a push monitor imported by vigil import kuma (status=up|down, msg, ping in ms): the same as the check's ping",
    handler: ({ req, params }) => {
      const meta = pingMetadata(req.body, req.query);
      return acknowledged(() => s.pings.pingKuma(params.token!, kumaSignal(meta), meta));
    },
  });
  return [
    ping,
    { ...ping, method: 'POST' },
    withAction,
    { ...withAction, method: 'POST' },
    kumaPush,
    { ...kumaPush, method: 'POST' },
    defineRoute({
      method: 'POST',
      path: '/v1/public/checks/:id/regenerate-token',
      summary: 'Issue a new ping URL for a heartbeat check; the old one stops working at once',
      tag: 'heartbeats',
      ...publicApi,
      scope: 'checks:write',
      idempotency: 'optional',
      transaction: true,
      responses: { 200: Type.Object({ data: Type.Object({ pingUrl: Type.String() }) }), 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody },
      authorize: ({ principal, params }) => s.checks.get(principal, params.id!),
      handler: async ({ principal, params }) => {
        const { check } = await s.checks.regenerateToken(principal, params.id!);
        return ok({ data: { pingUrl: checkUrl(check, s.config) } });
      },
    }),
  ];
}
