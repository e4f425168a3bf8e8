import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CreateCheckBody } from '../core/schemas/checks.js';
import { CreateWebhookBody, EmailSettingsPatchBody, UpdateWebhookBody } from '../core/schemas/alerts.js';
import { CreateStatusPageBody } from '../core/schemas/status-pages.js';
import { CreateMaintenanceWindowBody } from '../core/schemas/maintenance-windows.js';

/**
 * The monitoring file (issue 30), declared from the API's own create schemas: a field added to
 * a check, webhook, email settings, status page or maintenance window body is a field of the
 * file by that alone.
 * Objects that the API names by id are named here by their key in the file.
 */

export const FILE_VERSION = 1;

const KEY_PATTERN = '^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,98}[A-Za-z0-9])?$';
const Key = Type.String({ pattern: KEY_PATTERN, description: 'a key of this file: letters, digits, _ . - (at most 100 characters)' });

const RenamedFrom = Type.Optional(
  Type.String({
    pattern: KEY_PATTERN,
    description: 'The key this entry had before: its object (and a check\'s history and ping URL) is kept under the new key',
  }),
);
const CheckKeys = (what: string) =>
  Type.Optional(Type.Array(Key, { maxItems: 1000, description: `Keys of checks in this file (or of the account's checks) ${what}` }));

// The API names checks by id; the file names them by key (`checks` below).
const { checkIds: _webhookCheckIds, ...webhookFields } = CreateWebhookBody.properties;
const { checkIds: _emailCheckIds, ...emailFields } = EmailSettingsPatchBody.properties;
const { checkIds: _pageCheckIds, ...pageFields } = CreateStatusPageBody.properties;
const { checkIds: _windowCheckIds, ...windowFields } = CreateMaintenanceWindowBody.properties;

export const CheckEntry = Type.Object(
  {
    ...CreateCheckBody.properties,
    dependsOn: Type.Optional(Type.Array(Key, {
      maxItems: CreateCheckBody.properties.dependsOn.maxItems,
      description: 'Keys of checks (of this file or of the account) it depends on: while one is down its alerts are held; replaces the list',
    })),
    paused: Type.Optional(Type.Boolean({ description: 'true pauses the check, false resumes it; left out, the pause state is left as it is' })),
    renamedFrom: RenamedFrom,
  },
  { additionalProperties: false, description: 'A check: the fields of POST /v1/public/checks. A field left out has its default, as on create' },
);

export const WebhookEntry = Type.Object(
  {
    ...webhookFields,
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'The webhook URL; it acts like a password, so write it as a ${VARIABLE} reference' }),
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Signing secret, as a ${VARIABLE} reference; left out: deliveries are unsigned' })),
    enabled: UpdateWebhookBody.properties.enabled,
    checks: CheckKeys('whose alerts go here (with folders; both left out: every check)'),
    renamedFrom: RenamedFrom,
  },
  { additionalProperties: false, description: 'An alert webhook: the fields of POST /v1/public/alerts/webhooks' },
);

export const EmailEntry = Type.Object(
  {
    ...emailFields,
    recipients: Type.Array(Type.String({ maxLength: 254 }), { maxItems: 100, description: '1 to 10 email addresses' }),
    checks: CheckKeys('whose alerts are emailed (with folders; both left out: every check)'),
  },
  { additionalProperties: false, description: 'Email alert settings: the fields of PATCH /v1/public/alerts/email. Left out of the file: left as they are' },
);

export const StatusPageEntry = Type.Object(
  {
    ...pageFields,
    slug: Type.Optional(CreateStatusPageBody.properties.slug),
    checks: Type.Optional(Type.Array(Key, { maxItems: 500, description: 'Keys of the checks shown on the page, in this order' })),
    renamedFrom: RenamedFrom,
  },
  { additionalProperties: false, description: 'A public status page: the fields of POST /v1/public/status-pages; slug defaults to the key' },
);

export const MaintenanceWindowEntry = Type.Object(
  {
    ...windowFields,
    checks: CheckKeys('in the window (with folders, tags or allChecks: at least one)'),
    renamedFrom: RenamedFrom,
  },
  { additionalProperties: false, description: 'A maintenance window: the fields of POST /v1/public/maintenance-windows. A field left out has its default, as on create' },
);

const Entries = <T extends TSchema>(entry: T, what: string) =>
  Type.Optional(Type.Record(Type.String({ pattern: KEY_PATTERN }), entry, { description: `${what}, each under a key this file chooses` }));

export const MonitoringFile = Type.Object(
  {
    $schema: Type.Optional(Type.String({ description: 'Where editors find this schema' })),
    version: Type.Literal(FILE_VERSION, { description: 'The file format version' }),
    checks: Entries(CheckEntry, 'Checks'),
    webhooks: Entries(WebhookEntry, 'Alert webhooks'),
    email: Type.Optional(EmailEntry),
    statusPages: Entries(StatusPageEntry, 'Public status pages'),
    maintenanceWindows: Entries(MaintenanceWindowEntry, 'Scheduled maintenance windows'),
  },
  { additionalProperties: false },
);

export type MonitoringFileInput = Static<typeof MonitoringFile>;
export type CheckEntryInput = Static<typeof CheckEntry>;
export type WebhookEntryInput = Static<typeof WebhookEntry>;
export type EmailEntryInput = Static<typeof EmailEntry>;
export type StatusPageEntryInput = Static<typeof StatusPageEntry>;
export type MaintenanceWindowEntryInput = Static<typeof MaintenanceWindowEntry>;

/** The file's JSON Schema (GET /v1/config-schema.json), for editors and CI linters. */
export function monitoringFileJsonSchema(schemaUrl: string): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(MonitoringFile)) as Record<string, unknown>;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: schemaUrl,
    title: 'Vigil monitoring file',
    description: 'One account\'s monitoring, for `vigil apply` and POST /v1/public/config/apply (docs/config-as-code.md). Any string may hold ${VARIABLE} references to environment variables.',
    ...plain,
  };
}
