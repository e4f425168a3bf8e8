import type { Reply } from './http-types.js';
import type { ClaimView } from '../oauth/claim-service.js';
import { agentLabel, escapeHtml } from '../oauth/html.js';
import { pageHeaders } from './page-headers.js';

/** A one-button page must not be framed (clickjacking), cached or leak its URL in a Referer; it runs no script. */
const PAGE_HEADERS: Record<string, string> = { 'Cache-Control': 'no-store', ...pageHeaders({ referrer: 'no-referrer' }) };

/** The claim link's page: the button while the link is open, otherwise what became of it. */
export function claimPage(view: ClaimView): Reply {
  switch (view.state) {
    case 'open':
      return page(200, 'Claim your Vigil account', `
<p>${escapeHtml(agentLabel(view.agentName))} created a Vigil uptime-monitoring account for <b>${escapeHtml(view.email)}</b>.</p>
<p>Claim it to take control of it: its alerts start being delivered, and it is no longer paused after 7 days or deleted after 30.</p>
<form method="post"><button type="submit">Claim this account</button></form>`);
    case 'done':
      return page(200, 'Account claimed', `
<p>The account of <b>${escapeHtml(view.email)}</b> is yours. Its alerts are now delivered${view.resumedChecks ? `, and its ${view.resumedChecks} paused check${view.resumedChecks === 1 ? ' runs' : 's run'} again` : ''}.</p>`);
    case 'claimed':
      return page(409, 'Already claimed', `<p>The account of <b>${escapeHtml(view.email)}</b> has already been claimed. This link worked once.</p>`);
    case 'invalid':
      return page(404, 'Link not valid', '<p>This claim link is not valid or has expired. An unclaimed account is deleted 30 days after its signup.</p>');
  }
}

/** A small self-contained page (claim and status page subscription links): no framing, no caching, no Referer. */
export function page(status: number, title: string, body: string): Reply {
  const text = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)} · Vigil</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;line-height:1.5}
button{font-size:1.1rem;padding:.6rem 1.4rem;cursor:pointer}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}
</body></html>`;
  return { status, headers: PAGE_HEADERS, raw: { contentType: 'text/html; charset=utf-8', text } };
}
