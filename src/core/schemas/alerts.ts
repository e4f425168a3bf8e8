import { Type } from '@sinclair/typebox';
import { EMAIL_FORMATS, WEBHOOK_TYPES } from '../../store/alert-store.js';
import { ALERT_EVENT_TYPES } from '../../domain/events.js';
import { EpochMs, ListMeta, Pagination, StringEnum } from './common.js';

/**
 * Request and response shapes of spec 4.8 and 4.9. Counts and event names are checked by the
 * services after normalising (duplicates removed, unknown events dropped), so the schemas only
 * bound the sizes.
 */

const EventList = Type.Array(Type.String({ maxLength: 64 }), {
  maxItems: 50,
  description: `Alert events (unknown values are dropped; at least one must be valid): ${ALERT_EVENT_TYPES.join(', ')}`,
});

/** Issue 17: routing and reminders, on email settings and webhooks alike (all optional). */
const TargetOptionsInput = {
  checkIds: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1000, description: 'Only these checks (and those in `folders`) alert here; both empty or absent: every check. A restricted key may only name checks in its reach' })),
  folders: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100, description: 'Checks in these folders alert here' })),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 129 }), { maxItems: 20, description: 'Checks with one of these tags alert here (key matches any value of the key; case-insensitive). Not for restricted keys' })),
  remindEveryMinutes: Type.Optional(Type.Union([Type.Integer({ minimum: 5, maximum: 10080 }), Type.Null()], { description: 'While a check stays down, repeat website_down (marked as a reminder) this often; null: no reminders' })),
};
const TargetOptionsFields = {
  checkIds: Type.Array(Type.String()),
  folders: Type.Array(Type.String()),
  tags: Type.Array(Type.String()),
  remindEveryMinutes: Type.Union([Type.Integer(), Type.Null()]),
};

export const EmailSettingsPatchBody = Type.Object(
  {
    ...TargetOptionsInput,
    recipients: Type.Optional(Type.Array(Type.String({ maxLength: 254 }), { maxItems: 100, description: '1 to 10 email addresses once duplicates are removed; replaces the list' })),
    events: Type.Optional(EventList),
    enabled: Type.Optional(Type.Boolean()),
    emailFormat: Type.Optional(StringEnum(EMAIL_FORMATS)),
  },
  { additionalProperties: false, $id: 'EmailSettingsUpdate' },
);

const EmailSettingsFields = {
  enabled: Type.Boolean(),
  recipients: Type.Array(Type.String()),
  events: Type.Array(StringEnum(ALERT_EVENT_TYPES)),
  emailFormat: StringEnum(EMAIL_FORMATS),
  ...TargetOptionsFields,
};

export const EmailSettingsResponse = Type.Object({
  data: Type.Union([Type.Object({ ...EmailSettingsFields, updatedAt: EpochMs }, { $id: 'EmailSettings' }), Type.Null()]),
});
export const EmailSettingsUpdateResponse = Type.Object({ data: Type.Object(EmailSettingsFields) });
export const EmailTestResponse = Type.Object({ data: Type.Object({ delivered: Type.Array(Type.String()), message: Type.String() }) });
export const EmailTestFailedBody = Type.Object({
  error: Type.Object({ code: Type.Integer(), message: Type.String(), delivered: Type.Optional(Type.Array(Type.String())) }),
});

const WebhookSecret = Type.String({ minLength: 1, maxLength: 256, description: 'Signs each delivery: X-Vigil-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>' });
const WebhookInput = {
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'An https URL (http too when the server sets alerts.allowHttpWebhooks); PagerDuty, Opsgenie, Pushover, Gotify, Telegram and Matrix read their credentials from it' }),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  events: Type.Optional(EventList),
  webhookType: Type.Optional(StringEnum(WEBHOOK_TYPES, { description: 'Detected from the URL when omitted (slack, discord, teams, pumble, ntfy.sh, telegram, googlechat, matrix, gotify, mattermost, rocketchat URLs; otherwise generic)' })),
  secret: Type.Optional(WebhookSecret),
  ...TargetOptionsInput,
};

export const CreateWebhookBody = Type.Object(WebhookInput, { additionalProperties: false, $id: 'CreateWebhook' });

/** Only the fields sent change; the same rules as on create. */
export const UpdateWebhookBody = Type.Object(
  {
    ...WebhookInput,
    url: Type.Optional(WebhookInput.url),
    name: Type.Optional(WebhookInput.name),
    webhookType: Type.Optional(StringEnum(WEBHOOK_TYPES, { description: 'When omitted with a new url: detected again from it if the current type was the detected one, kept if it was chosen' })),
    enabled: Type.Optional(Type.Boolean({ description: 'false: no alert is sent to it (pending deliveries are cancelled when they come due)' })),
    secret: Type.Optional(Type.Union([WebhookSecret, Type.Null()], { description: 'A new signing secret; null removes it (deliveries are then unsigned)' })),
  },
  { additionalProperties: false, $id: 'UpdateWebhook' },
);

const WebhookFields = {
  id: Type.String(),
  name: Type.String(),
  url: Type.String({ description: 'Cut to scheme and host' }),
  webhookType: StringEnum(WEBHOOK_TYPES),
  events: Type.Array(StringEnum(ALERT_EVENT_TYPES)),
  enabled: Type.Boolean(),
  ...TargetOptionsFields,
};

export const WebhookListResponse = Type.Object({
  data: Type.Array(Type.Object({ ...WebhookFields, createdAt: EpochMs }, { $id: 'Webhook' })),
});
/** The answer to a create (201) and an update (200). */
export const WebhookResponse = Type.Object({ data: Type.Object(WebhookFields) });
export const WebhookTestResponse = Type.Object({ data: Type.Object({ message: Type.String(), status: Type.Integer() }) });
export const WebhookDeletedResponse = Type.Object({ data: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }) });

export const DeliveryQuerySchema = Type.Object({
  ...Pagination,
  status: Type.Optional(StringEnum(['pending', 'delivered', 'failed', 'cancelled'] as const, { description: 'pending includes deliveries being sent' })),
  checkId: Type.Optional(Type.String({ maxLength: 64 })),
  webhookId: Type.Optional(Type.String({ maxLength: 64 })),
});

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const DeliveryEntry = Type.Object(
  {
    id: Type.String(),
    event: StringEnum(ALERT_EVENT_TYPES),
    reminder: Type.Boolean({ description: 'A repeated website_down sent while the check stays down' }),
    checkId: Type.String(),
    channel: StringEnum(['webhook', 'email'] as const),
    webhookId: Nullable(Type.String()),
    target: Type.String({ description: 'The webhook URL cut to scheme and host, or the email recipient' }),
    status: StringEnum(['pending', 'delivered', 'failed', 'cancelled'] as const),
    attempts: Type.Integer(),
    nextAttemptAt: Nullable(EpochMs),
    lastStatus: Nullable(Type.Integer({ description: 'HTTP status (or SMTP reply code) of the last attempt' })),
    lastError: Nullable(Type.String()),
    retryUntil: EpochMs,
    createdAt: EpochMs,
    finishedAt: Nullable(EpochMs),
  },
  { $id: 'AlertDelivery' },
);
export const DeliveryListResponse = Type.Object({ data: Type.Array(DeliveryEntry), meta: ListMeta });
export const DeliveryResponse = Type.Object({ data: DeliveryEntry });
