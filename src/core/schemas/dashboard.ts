import { ROLES } from '../../domain/people.js';
import { Type } from '@sinclair/typebox';
import { IsoDate, StringEnum } from './common.js';
import { SCOPES } from '../../domain/records.js';

/** Sessions, list summaries, chart series and the live feed: what the dashboard reads (issue 15). */

const Nullable = <T extends ReturnType<typeof Type.Number>>(t: T) => Type.Union([t, Type.Null()]);

export const SessionBody = Type.Object(
  {
    apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'An API key (vigil_live_…): the session gets exactly its scopes and restrictions' })),
    loginToken: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The token of a one-time login link (`vigil login-link`)' })),
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: 'A member signing in with their password' })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    totp: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'With TOTP on: the current code, or one of the recovery codes' })),
  },
  { additionalProperties: false },
);

export const SessionInfo = Type.Object({
  account: Type.Object({ id: Type.String(), email: Type.String() }),
  scopes: Type.Array(StringEnum(SCOPES)),
  access: Type.Union([Type.Object({ checkIds: Type.Array(Type.String()), folders: Type.Array(Type.String()) }), Type.Null()]),
  via: StringEnum(['api_key', 'login_link', 'bearer', 'member'] as const, { description: 'member: a person signed in (see user)' }),
  user: Type.Union([
    Type.Object({ id: Type.String(), email: Type.String(), name: Type.Union([Type.String(), Type.Null()]), role: StringEnum(ROLES) }),
    Type.Null(),
  ], { description: 'The member of a session a person opened; null for keys and tokens' }),
  expiresAt: Type.Union([IsoDate, Type.Null()]),
});
export const SessionResponse = Type.Object({ data: SessionInfo });

export const CheckSummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  type: Type.String(),
  folder: Type.Union([Type.String(), Type.Null()]),
  tags: Type.Array(Type.String()),
  status: StringEnum(['pending', 'up', 'down', 'paused'] as const),
  maintenance: Type.Boolean(),
  degraded: Type.Boolean({ description: 'Up but slower than responseTimeLimit: what GET /checks/status calls `degraded`' }),
  lastChecked: Type.Union([IsoDate, Type.Null()], { description: 'When the latest result (probe, ping or lookup) came in' }),
  lastResponseTime: Nullable(Type.Number({ description: 'Response time of the latest result' })),
  lastError: Type.Union([Type.String(), Type.Null()]),
  interval: Nullable(Type.Number({ description: 'Minutes; null for a heartbeat on a cron schedule' })),
  schedule: Type.Union([Type.String({ description: 'Heartbeats: the cron expression pings are due on' }), Type.Null()]),
  timezone: Type.Union([Type.String(), Type.Null()]),
  scheduleDescription: Type.Union([Type.String({ description: 'schedule in words; null without one or for an uncommon shape' }), Type.Null()]),
  nextExpectedAt: Type.Union([IsoDate, Type.Null()], { description: 'Heartbeats on a schedule: when the next ping is due' }),
  uptime24h: Nullable(Type.Number({ description: 'Successful probes over all probes in the last 24 hours (hour rollups), percent' })),
  sparkline: Type.Array(Nullable(Type.Number()), { description: 'Average response time (ms) of each of the last 24 hours, oldest first' }),
});
export const SummaryResponse = Type.Object({ data: Type.Array(CheckSummary), meta: Type.Object({ total: Type.Integer() }) });

export const BEATS_MAX_CHECKS = 100;

export const BeatsQuery = Type.Object({
  ids: Type.String({ minLength: 1, maxLength: 8000, description: `Check ids, comma-separated, at most ${BEATS_MAX_CHECKS}` }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 30, description: 'Results per check' })),
});

export const BeatsResponse = Type.Object({
  data: Type.Array(
    Type.Object({
      id: Type.String(),
      at: Type.Array(Type.Number(), { description: 'Epoch ms of each result, oldest first' }),
      status: Type.Array(StringEnum(['up', 'down'] as const)),
      responseTime: Type.Array(Nullable(Type.Number())),
    }),
    { description: 'One entry per check the credential may see, in request order; unknown ids are left out' },
  ),
});

export const SeriesQuery = Type.Object({
  range: Type.Optional(StringEnum(['1h', '6h', '1d', '7d', '30d', '90d'] as const, { default: '1d' })),
});

const Column = Type.Array(Nullable(Type.Number()));
export const SeriesResponse = Type.Object({
  data: Type.Object({
    checkId: Type.String(),
    range: Type.String(),
    from: IsoDate,
    to: IsoDate,
    step: Type.Integer({ description: 'Milliseconds per point' }),
    at: Type.Array(Type.Number(), { description: 'Epoch ms of each point’s start' }),
    total: Type.Array(Type.Integer()),
    uptime: Column,
    responseTime: Column,
    dns: Column,
    connect: Column,
    tls: Column,
    ttfb: Column,
    incidents: Type.Array(Type.Object({ start: IsoDate, end: Type.Union([IsoDate, Type.Null()]), durationMs: Type.Number(), error: Type.Union([Type.String(), Type.Null()]) })),
  }),
});
