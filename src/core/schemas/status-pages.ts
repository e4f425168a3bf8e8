import { Type } from '@sinclair/typebox';
import { IsoDate } from './common.js';

/** Request and response shapes of the status pages API (issue 15; beyond the spec). */

const Slug = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$',
  description: 'lower-case letters, digits and hyphens, starting and ending with a letter or digit (the page lives at /status/{slug})',
});
const Title = Type.String({ minLength: 1, maxLength: 100, description: 'One line of plain text' });
const Description = Type.Union([Type.String({ maxLength: 1000 }), Type.Null()], { description: 'Plain text shown under the title' });
const CheckIds = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: 500,
  description: 'Checks of your account shown on the page, in this order (duplicates dropped)',
});
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 129 }), {
  maxItems: 20,
  description: 'The page also shows every check with one of these tags (key or key:value, case-insensitive), after checkIds in dashboard order',
});
const AutoIncidents = Type.Boolean({
  description: 'A confirmed outage of one of its checks opens an incident ("<name> is not responding") that resolves itself when the check is up again',
});
const WebhookSubscriptions = Type.Boolean({
  description: 'Visitors may subscribe webhooks (each confirmed only once its receiver answers a signed challenge); email subscriptions are always taken. Default false',
});
const LogoUrl = Type.Union([Type.String({ minLength: 1, maxLength: 2048 }), Type.Null()], { description: 'An https URL of an image shown above the title' });
const AccentColor = Type.Union([Type.String({ minLength: 1, maxLength: 7 }), Type.Null()], { description: 'A hex colour (#rgb or #rrggbb) for links, buttons and charts' });
const FooterText = Type.Union([Type.String({ maxLength: 500 }), Type.Null()], { description: 'Plain text in the footer (line breaks kept)' });
const Favicon = Type.Union([Type.String({ minLength: 1, maxLength: 2048 }), Type.Null()], { description: 'An https URL of the icon browsers show for the page' });
const HidePoweredBy = Type.Boolean({ description: 'Leaves out "Powered by Vigil"' });
const EmbedAllowedOrigins = Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
  maxItems: 20,
  description: 'Origins (https://www.example.com: scheme, host, optional port) whose pages may show this page in a frame; empty (the default): no site may frame it',
});
const Look = {
  logoUrl: Type.Optional(LogoUrl),
  accentColor: Type.Optional(AccentColor),
  footerText: Type.Optional(FooterText),
  favicon: Type.Optional(Favicon),
  hidePoweredBy: Type.Optional(HidePoweredBy),
  embedAllowedOrigins: Type.Optional(EmbedAllowedOrigins),
};
const CustomDomain = Type.Union([Type.String({ minLength: 1, maxLength: 253 }), Type.Null()], {
  description: 'A host name such as status.example.com: requests with this Host get the page at /',
});

export const CreateStatusPageBody = Type.Object(
  {
    slug: Slug,
    title: Title,
    description: Type.Optional(Description),
    checkIds: Type.Optional(CheckIds),
    tags: Type.Optional(Tags),
    customDomain: Type.Optional(CustomDomain),
    autoIncidents: Type.Optional(AutoIncidents),
    webhookSubscriptions: Type.Optional(WebhookSubscriptions),
    ...Look,
  },
  { additionalProperties: false, $id: 'CreateStatusPage' },
);

export const UpdateStatusPageBody = Type.Object(
  {
    slug: Type.Optional(Slug),
    title: Type.Optional(Title),
    description: Type.Optional(Description),
    checkIds: Type.Optional(CheckIds),
    tags: Type.Optional(Tags),
    customDomain: Type.Optional(CustomDomain),
    autoIncidents: Type.Optional(AutoIncidents),
    webhookSubscriptions: Type.Optional(WebhookSubscriptions),
    ...Look,
  },
  { additionalProperties: false, $id: 'UpdateStatusPage' },
);

export const StatusPageObject = Type.Object(
  {
    id: Type.String(),
    slug: Type.String(),
    title: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    checkIds: Type.Array(Type.String()),
    tags: Type.Array(Type.String()),
    customDomain: Type.Union([Type.String(), Type.Null()]),
    autoIncidents: Type.Boolean(),
    logoUrl: Type.Union([Type.String(), Type.Null()]),
    accentColor: Type.Union([Type.String(), Type.Null()]),
    footerText: Type.Union([Type.String(), Type.Null()]),
    favicon: Type.Union([Type.String(), Type.Null()]),
    hidePoweredBy: Type.Boolean(),
    webhookSubscriptions: Type.Boolean(),
    embedAllowedOrigins: Type.Array(Type.String()),
    url: Type.String({ description: 'The public page' }),
    createdAt: IsoDate,
    updatedAt: IsoDate,
  },
  { $id: 'StatusPage' },
);

export const StatusPageResponse = Type.Object({ data: StatusPageObject });
export const StatusPageListResponse = Type.Object({ data: Type.Array(StatusPageObject), meta: Type.Object({ total: Type.Integer() }) });

export type CreateStatusPageInput = (typeof CreateStatusPageBody)['static'];
export type UpdateStatusPageInput = (typeof UpdateStatusPageBody)['static'];
