import { Type } from '@sinclair/typebox';
import { EMAIL_FORMATS, WEBHOOK_TYPES } from '../../store/alert-store.js';
import { ALERT_EVENT_TYPES } from '../../domain/events.js';
import { EpochMs, StringEnum } from './common.js';

/**
 * Request and response shapes of spec 4.8 and 4.9. Counts and event names are checked by the
 * services after normalising (duplicates removed, unknown events dropped), so the schemas only
 * bound the sizes.
 */

const EventList = Type.Array(Type.String({ maxLength: 64 }), {
  maxItems: 50,
  description: `Alert events (unknown values are dropped; at least one must be valid): ${ALERT_EVENT_TYPES.join(', ')}`,
});

export const EmailSettingsPatchBody = Type.Object(
  {
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
};

export const EmailSettingsResponse = Type.Object({
  data: Type.Union([Type.Object({ ...EmailSettingsFields, updatedAt: EpochMs }, { $id: 'EmailSettings' }), Type.Null()]),
});
export const EmailSettingsUpdateResponse = Type.Object({ data: Type.Object(EmailSettingsFields) });
export const EmailTestResponse = Type.Object({ data: Type.Object({ delivered: Type.Array(Type.String()), message: Type.String() }) });
export const EmailTestFailedBody = Type.Object({
  error: Type.Object({ code: Type.Integer(), message: Type.String(), delivered: Type.Optional(Type.Array(Type.String())) }),
});

export const CreateWebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'An https URL; PagerDuty, Opsgenie and Pushover read their credentials from its query string' }),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    events: Type.Optional(EventList),
    webhookType: Type.Optional(StringEnum(WEBHOOK_TYPES, { description: 'Detected from the URL when omitted (slack, discord, teams, pumble; otherwise generic)' })),
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Signs each delivery: X-Vigil-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>' })),
  },
  { additionalProperties: false, $id: 'CreateWebhook' },
);

const WebhookFields = {
  id: Type.String(),
  name: Type.String(),
  url: Type.String({ description: 'Cut to scheme and host' }),
  webhookType: StringEnum(WEBHOOK_TYPES),
  events: Type.Array(StringEnum(ALERT_EVENT_TYPES)),
  enabled: Type.Boolean(),
};

export const WebhookListResponse = Type.Object({
  data: Type.Array(Type.Object({ ...WebhookFields, createdAt: EpochMs }, { $id: 'Webhook' })),
});
export const WebhookCreatedResponse = Type.Object({ data: Type.Object(WebhookFields) });
export const WebhookTestResponse = Type.Object({ data: Type.Object({ message: Type.String(), status: Type.Integer() }) });
export const WebhookDeletedResponse = Type.Object({ data: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }) });
