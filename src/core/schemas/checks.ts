import { Type, type Static } from '@sinclair/typebox';
import { CHECK_TYPES, HTTP_METHODS } from '../../domain/check-types.js';
import { IsoDate, ListMeta, Pagination, StringEnum } from './common.js';
import { MAX_TAGS } from '../../domain/tags.js';

export const CREATE_TYPES = CHECK_TYPES;
/** The spec's PATCH type list (4.4): heartbeat, domain, redirect and websocket are fixed at creation. */
export const PATCH_TYPES = ['website', 'rest_endpoint', 'ping', 'tcp', 'udp', 'dns', 'smtp', 'pop3', 'imap'] as const;
export const MAX_REQUEST_BODY_BYTES = 64 * 1024;
/** 31 days: the longest interval, so a monthly heartbeat fits. */
export const MAX_INTERVAL_MINUTES = 44640;

const ResponseValidation = Type.Object(
  {
    containsText: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { maxItems: 20 })),
    jsonPath: Type.Optional(Type.String({ minLength: 1, maxLength: 500, pattern: '^\\$', description: 'a JSONPath expression starting with $' })),
    expectedValue: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

/** Fields shared by create and update, all optional; nullable ones can be cleared with null. */
const settingsFields = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  checkFrequency: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: MAX_INTERVAL_MINUTES, description: 'Minutes; fractional values allowed down to the plan minimum' })),
  checkRegionOverride: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64, description: 'A region id from GET /v1/public/regions' }), Type.Null()])),
  httpMethod: Type.Optional(StringEnum(HTTP_METHODS)),
  expectedStatusCodes: Type.Optional(Type.Array(Type.Integer({ minimum: 100, maximum: 599 }), { minItems: 1, maxItems: 20 })),
  requestHeaders: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 8192 }), { maxProperties: 20 })),
  requestBody: Type.Optional(Type.Union([Type.String({ description: 'At most 64 KB; valid JSON (any text for udp datagrams)' }), Type.Null()])),
  responseValidation: Type.Optional(Type.Union([ResponseValidation, Type.Null()])),
  cacheControlNoCache: Type.Optional(Type.Boolean()),
  immediateRecheckEnabled: Type.Optional(Type.Boolean()),
  responseTimeLimit: Type.Optional(Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 300000 }), Type.Null()])),
  downConfirmationAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 99 })),
  pingPackets: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
  timezone: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
  folder: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()])),
  schedule: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100, description: 'Heartbeats: cron expression (5 or 6 fields) evaluated in timezone; pings are due at each run' }), Type.Null()])),
  gracePeriod: Type.Optional(Type.Number({ minimum: 0, maximum: 604800, description: 'Heartbeats: seconds a late ping is forgiven' })),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 129, description: 'key or key:value, each side 1 to 64 characters' }), {
    maxItems: MAX_TAGS,
    description: 'Labels such as env:production or team:web: stored as given, matched case-insensitively; replaces the list',
  })),
  dependsOn: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
    maxItems: 10,
    description: 'Ids of checks of this account it depends on: while one is down its alerts are held (blockedBy); replaces the list',
  })),
};

export const CreateCheckBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'Required except for heartbeat checks' })),
    type: Type.Optional(StringEnum(CREATE_TYPES, { default: 'website' })),
    ...settingsFields,
  },
  { additionalProperties: false, $id: 'CreateCheck' },
);
export type CreateCheckInput = Static<typeof CreateCheckBody>;

const updateFields = {
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: "A heartbeat's ping URL may be sent unchanged, not changed" })),
  type: Type.Optional(
    StringEnum(CHECK_TYPES, { description: `Changes only to ${PATCH_TYPES.join(', ')}; a type fixed at creation may be sent unchanged` }),
  ),
  ...settingsFields,
};
const UpdateSettings = Type.Object(updateFields);
export type UpdateCheckInput = Static<typeof UpdateSettings>;

export const ToggleBody = Type.Object(
  {
    disabled: Type.Boolean({ description: 'true pauses, false resumes' }),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const MaintenanceBody = Type.Object(
  {
    enabled: Type.Boolean(),
    until: Type.Optional(Type.Union([IsoDate, Type.Null()])),
  },
  { additionalProperties: false },
);

export const ListChecksQuery = Type.Object({
  ...Pagination,
  status: Type.Optional(StringEnum(['up', 'down', 'paused'] as const)),
  tag: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 129 }), {
    maxItems: MAX_TAGS,
    description: 'Repeat to narrow: every tag must match; key:value matches that value, key any value of the key (case-insensitive)',
  })),
});

const SslSummary = Type.Object({
  valid: Type.Union([Type.Boolean(), Type.Null()]),
  issuer: Type.Union([Type.String(), Type.Null()]),
  expiresAt: Type.Union([IsoDate, Type.Null()]),
});

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const listFields = {
  id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  type: StringEnum(CHECK_TYPES),
  method: StringEnum(HTTP_METHODS),
  status: StringEnum(['pending', 'up', 'down', 'paused'] as const),
  interval: Nullable(Type.Number({ description: 'Minutes; null for a heartbeat on a cron schedule (see schedule)' })),
  timezone: Nullable(Type.String({ description: 'IANA time zone of schedule (null: UTC)' })),
  schedule: Nullable(Type.String({ description: 'Heartbeats: the cron expression pings are due on, instead of interval' })),
  region: Type.String(),
  expectedStatus: Type.Integer(),
  lastChecked: Nullable(IsoDate),
  lastResponseTime: Nullable(Type.Number()),
  uptime: Type.Number({ description: 'Percentage of successful probes since creation' }),
  createdAt: IsoDate,
  folder: Nullable(Type.String()),
  tags: Type.Array(Type.String()),
};

export const CheckListItem = Type.Object({ ...listFields, ssl: SslSummary }, { $id: 'CheckListItem' });

export const CheckDetail = Type.Object(
  {
    ...listFields,
    headers: Type.Record(Type.String(), Type.String()),
    body: Nullable(Type.String()),
    responseValidation: Nullable(ResponseValidation),
    consecutiveFailures: Type.Integer(),
    consecutiveFailureThreshold: Type.Integer(),
    lastStatusCode: Nullable(Type.Integer()),
    lastError: Nullable(Type.String()),
    ssl: Type.Object({
      valid: Nullable(Type.Boolean()),
      error: Nullable(Type.String({ description: 'Why the certificate did not verify (expired, self-signed, another host); null when valid' })),
      issuer: Nullable(Type.String()),
      subject: Nullable(Type.String()),
      validFrom: Nullable(IsoDate),
      validTo: Nullable(IsoDate),
      serialNumber: Nullable(Type.String()),
      fingerprint: Nullable(Type.String()),
    }),
    domain: Type.Object({
      name: Nullable(Type.String()),
      registrar: Nullable(Type.String()),
      expiresAt: Nullable(IsoDate),
      updatedAt: Nullable(IsoDate),
    }),
    updatedAt: IsoDate,
    expectedStatusCodes: Type.Array(Type.Integer()),
    cacheControlNoCache: Type.Boolean(),
    immediateRecheckEnabled: Type.Boolean(),
    responseTimeLimit: Nullable(Type.Number()),
    downConfirmationAttempts: Type.Integer(),
    pingPackets: Type.Integer(),
    checkRegionOverride: Nullable(Type.String()),
    disabled: Type.Boolean(),
    disabledReason: Nullable(Type.String()),
    maintenanceMode: Type.Boolean(),
    maintenanceUntil: Nullable(IsoDate),
    scheduleDescription: Nullable(Type.String({ description: 'schedule in words ("At 03:00, every day"); null without one or for an uncommon shape' })),
    nextExpectedAt: Type.Union([IsoDate, Type.Null()], { description: 'Heartbeats on a schedule: when the next ping is due (the next run after now); null otherwise and while paused' }),
    gracePeriod: Type.Number(),
    dependsOn: Type.Array(Type.String()),
    blockedBy: Type.Array(Type.String(), { description: 'The checks it depends on that are down now: while any is, its alerts are held' }),
    lastProbe: Nullable(
      Type.Object(
        {
          at: IsoDate,
          status: StringEnum(['up', 'down'] as const),
          responseTime: Nullable(Type.Number()),
          region: Nullable(Type.String()),
        },
        {
          description:
            'The latest result seen since the server started, live from memory (lastChecked is synced at most daily); ' +
            'for a heartbeat its last ping (a job-start ping is not a result). Null until one is seen.',
        },
      ),
    ),
  },
  { $id: 'CheckDetail' },
);

/**
 * Fields of the check record that PATCH cannot set. They are accepted so that a record read
 * with GET can be sent back as a PATCH: equal to the current value they are ignored, different
 * they are a 400 naming the field (check-patch.ts).
 */
export const RECORD_READ_ONLY_FIELDS = Object.keys(CheckDetail.properties).filter((name) => !Object.hasOwn(updateFields, name));

export const UpdateCheckBody = Type.Object(
  {
    ...updateFields,
    ...Object.fromEntries(
      RECORD_READ_ONLY_FIELDS.map((name) => [
        name,
        Type.Optional(Type.Unknown({ readOnly: true, description: 'Read-only: ignored when equal to the current value, else a 400' })),
      ]),
    ),
  },
  { additionalProperties: false, $id: 'UpdateCheck' },
);
export type UpdateCheckBody = Static<typeof UpdateCheckBody>;

export const CheckListResponse = Type.Object({ data: Type.Array(CheckListItem), meta: ListMeta });
export const CheckDetailResponse = Type.Object({ data: CheckDetail });
export const CreatedResponse = Type.Object({ data: Type.Object({ id: Type.String() }) });
export const ToggleResponse = Type.Object({
  data: Type.Object({ success: Type.Boolean(), disabled: Type.Boolean(), message: Type.String() }),
});
export const MaintenanceResponse = Type.Object({
  data: Type.Object({ maintenanceMode: Type.Boolean(), until: Nullable(IsoDate) }),
});
