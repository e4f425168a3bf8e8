import { Type } from '@sinclair/typebox';
import { ApiError } from '../domain/errors.js';
import { ErrorBody, Success } from '../core/schemas/common.js';
import { SubscriberListQuery, SubscriberListResponse } from '../core/schemas/subscribers.js';
import { cutUrl } from '../alerts/webhook-url.js';
import type { Subscriber } from '../store/subscribers.js';
import { defineRoute, ok, type Route } from './http-types.js';
import { publicApi } from './route-presets.js';
import type { PageServices } from './services.js';
import {
  confirmedPage, confirmPage, refusedPage, subscribedPage, unsubscribedPage, unsubscribePage,
} from './subscription-pages.js';

const errorsFor = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorBody]));
const base = { ...publicApi, allowRestricted: false, tag: 'status-pages' } as const;
const SUBSCRIBERS = '/v1/public/status-pages/:id/subscribers';
/** The form, the links: no credential, a budget per client address, HTML answers. */
const publicForm = {
  tag: 'status-pages', auth: 'none', allowRestricted: true, rateLimit: 'per-address', idempotency: 'none', errorShape: 'standard',
  documented: false, responses: {}, bodyKind: 'form',
  // Links in mail and forms on pages: a tracking tag added on the way does no harm.
  unknownQuery: 'typos-refused',
} as const;
const SubscribeForm = Type.Object(
  {
    kind: Type.Optional(Type.String({ maxLength: 20 })),
    email: Type.Optional(Type.String({ maxLength: 1000 })),
    url: Type.Optional(Type.String({ maxLength: 4000 })),
    secret: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: true },
);
const AnyForm = Type.Object({}, { additionalProperties: true });

/** The owner's view of a subscriber: webhook URLs cut to scheme and host (they act as passwords). */
function subscriberJson(s: Subscriber) {
  return {
    id: s.id,
    kind: s.kind,
    address: s.kind === 'email' ? s.address : cutUrl(s.address),
    confirmed: s.confirmedAt !== null,
    createdAt: new Date(s.createdAt).toISOString(),
  };
}

/** Subscriptions to status pages (issue 29): the public form and links, and the owner's list. */
export function subscriptionRoutes(s: PageServices): Route[] {
  const subs = s.subscriptions;
  const pageUrl = s.statusPages.url.bind(s.statusPages);
  return [
    defineRoute({
      ...publicForm,
      method: 'POST',
      path: '/status/:page/subscribe',
      summary: 'The subscribe form of a status page (email with double opt-in, or a webhook)',
      body: SubscribeForm,
      handler: async ({ req, params, body }) => {
        try {
          const done = await subs.subscribe(params.page!, body, req.remoteAddress);
          return subscribedPage(done, pageUrl(done.page));
        } catch (err) {
          if (err instanceof ApiError) return refusedPage(err, params.page!);
          throw err;
        }
      },
    }),
    defineRoute({
      ...publicForm,
      method: 'GET',
      path: '/status-subscription/:token/confirm',
      summary: 'The confirmation link of an email subscription: a button',
      handler: async ({ params }) => confirmPage(await subs.byToken(params.token!), pageUrl),
    }),
    defineRoute({
      ...publicForm,
      method: 'POST',
      path: '/status-subscription/:token/confirm',
      summary: 'Confirms an email subscription',
      body: AnyForm,
      handler: async ({ params }) => confirmedPage(await subs.confirm(params.token!), pageUrl),
    }),
    defineRoute({
      ...publicForm,
      method: 'GET',
      path: '/status-subscription/:token/unsubscribe',
      summary: 'The unsubscribe link: a button',
      handler: async ({ params }) => unsubscribePage(await subs.byToken(params.token!)),
    }),
    defineRoute({
      ...publicForm,
      method: 'POST',
      path: '/status-subscription/:token/unsubscribe',
      summary: 'Ends a subscription in one POST (RFC 8058 one-click too)',
      body: AnyForm,
      handler: async ({ params }) => unsubscribedPage(await subs.unsubscribe(params.token!)),
    }),
    defineRoute({
      ...base,
      method: 'GET',
      path: SUBSCRIBERS,
      summary: 'List the subscribers of a status page, with counts',
      scope: 'checks:read',
      idempotency: 'none',
      query: SubscriberListQuery,
      responses: { 200: SubscriberListResponse, ...errorsFor(400, 401, 403, 404, 429) },
      handler: async ({ principal, params, query }) => {
        const found = await subs.list(principal, params.id!, query);
        return ok({ data: found.data.map(subscriberJson), meta: { page: found.page, limit: found.limit, ...found.counts } });
      },
    }),
    defineRoute({
      ...base,
      method: 'DELETE',
      path: `${SUBSCRIBERS}/:subscriberId`,
      summary: 'Remove a subscriber from a status page',
      scope: 'checks:write',
      idempotency: 'none',
      responses: { 200: Type.Object({ data: Success }), ...errorsFor(401, 403, 404, 429) },
      handler: async ({ principal, params }) => {
        await subs.remove(principal, params.id!, params.subscriberId!);
        return ok({ data: { success: true } });
      },
    }),
  ];
}
