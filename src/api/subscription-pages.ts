import { escapeHtml as esc } from '../oauth/html.js';
import { ApiError } from '../domain/errors.js';
import type { Subscribed } from '../status-pages/subscriptions-service.js';
import type { StatusPage } from '../store/status-pages.js';
import type { Subscriber } from '../store/subscribers.js';
import { page } from './claim-page.js';
import type { Reply } from './http-types.js';

/** The HTML answers of a status page's subscribe form and of its confirmation and unsubscribe links (issue 29). */

const back = (p: StatusPage, url: string) => `<p><a href="${esc(url)}">Back to ${esc(p.title)}</a></p>`;

export function subscribedPage(done: Subscribed, pageUrl: string): Reply {
  if (done.kind === 'email') {
    return page(200, 'Check your inbox', `<p>If this address does not follow <b>${esc(done.page.title)}</b> yet, a message with a confirmation link is on its way.
Nothing else is sent until you confirm.</p>${back(done.page, pageUrl)}`);
  }
  const secret = done.secret === null ? '<p>Notices are signed with the secret you chose.</p>'
    : `<p>The verification and every notice carry <code>X-Vigil-Signature: sha256=&lt;HMAC-SHA256 of the body&gt;</code> with this secret. It is shown <b>once</b>; keep it:</p>
<p><code id="secret">${esc(done.secret)}</code></p>`;
  // 202: nothing is sent until the receiver answers the verification (issue 34).
  return page(202, 'Verify your webhook', `<p>Vigil now sends your webhook one signed request,
<code>{"type":"subscription.verify","challenge":"…"}</code>. Answer it with a 2xx status and the challenge as the body
(plain text, or JSON <code>{"challenge":"…"}</code>): only then does the webhook receive a signed JSON notice for every
incident update of <b>${esc(done.page.title)}</b>. A subscription not verified within 24 hours is dropped; to try again,
send this form again (a new secret and link replace these).</p>
${secret}<p>To end the subscription, send a POST to this address (also shown once):</p><p><code id="unsubscribe">${esc(done.unsubscribeUrl)}</code></p>${back(done.page, pageUrl)}`);
}

/** A refused form (bad address, rate limit, a full page): the message and the way back. */
export function refusedPage(err: ApiError, slug: string): Reply {
  const reply = page(err.status, err.status === 429 ? 'Too many attempts' : 'Not subscribed', `<p>${esc(err.message)}</p><p><a href="/status/${esc(encodeURIComponent(slug))}">Back to the status page</a></p>`);
  reply.headers = { ...reply.headers, ...err.headers };
  return reply;
}

const INVALID = () => page(404, 'Link not valid', '<p>This link is not valid: the subscription has ended, or was never confirmed within 48 hours.</p>');

/** GET of a link shows a button (mail scanners open links; only a person presses it). */
export function confirmPage(found: { subscriber: Subscriber; page: StatusPage } | null, pageUrl: (p: StatusPage) => string): Reply {
  if (!found) return INVALID();
  if (found.subscriber.confirmedAt !== null) return page(200, 'Subscribed', `<p>You follow <b>${esc(found.page.title)}</b>.</p>${back(found.page, pageUrl(found.page))}`);
  return page(200, `Confirm your subscription`, `<p>Receive an email for every incident update of <b>${esc(found.page.title)}</b> at <b>${esc(found.subscriber.address)}</b>.</p>
<form method="post"><button type="submit">Confirm</button></form>`);
}

export function confirmedPage(p: StatusPage | null, pageUrl: (p: StatusPage) => string): Reply {
  if (!p) return INVALID();
  return page(200, 'Subscribed', `<p>You will receive an email for every incident update of <b>${esc(p.title)}</b>. Each has a link to unsubscribe.</p>${back(p, pageUrl(p))}`);
}

export function unsubscribePage(found: { subscriber: Subscriber; page: StatusPage } | null): Reply {
  if (!found) return page(200, 'Unsubscribed', '<p>This address receives nothing from this status page.</p>');
  return page(200, 'Unsubscribe', `<p>Stop receiving updates of <b>${esc(found.page.title)}</b>?</p><form method="post"><button type="submit">Unsubscribe</button></form>`);
}

/** After the POST: the same answer whether or not the link was still valid (nothing more is sent either way). */
export function unsubscribedPage(p: StatusPage | null): Reply {
  return page(200, 'Unsubscribed', `<p>${p ? `You no longer receive updates of <b>${esc(p.title)}</b>.` : 'This address receives nothing from this status page.'}</p>`);
}
