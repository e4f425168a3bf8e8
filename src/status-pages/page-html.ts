import { escapeHtml as esc } from '../oauth/html.js';
import type { DayBar, Outage, OverallState, PublicCheck, PublicIncident, PublicPage, PublicStatus } from './page-view.js';
import type { IncidentImpact } from '../store/incidents.js';
import { INCIDENT_STATUS_TEXT } from './page-feeds.js';

/**
 * The public status page as one self-contained HTML document: inline CSS (light and dark from
 * prefers-color-scheme), inline SVG for bars and sparklines, no external asset. It is complete
 * without JavaScript; the small script only swaps in a fresh copy of `<main>` while visible.
 */

const OVERALL_TEXT: Record<OverallState, string> = {
  operational: 'All systems operational',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
  maintenance: 'Under maintenance',
  unknown: 'Status being checked',
};

const STATUS_TEXT: Record<PublicStatus, string> = {
  up: 'Operational',
  down: 'Down',
  paused: 'Paused',
  pending: 'Checking',
  maintenance: 'Maintenance',
};

const CSS = `
:root{--accent:#3b6fd8;--bg:#f6f7f9;--card:#fff;--text:#1b1f24;--muted:#5f6b7a;--line:#e3e7ec;--up:#1f9d55;--down:#d93a3a;--warn:#e0a100;--maint:#3b6fd8;--none:#d5dae0;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#0f1216;--card:#171b21;--text:#e6e9ed;--muted:#9aa5b1;--line:#2a3039;--none:#303741}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--text);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.wrap{max-width:860px;margin:0 auto;padding:32px 16px 48px}
h1{font-size:1.7rem;margin:0 0 4px}h2{font-size:1.05rem;margin:32px 0 10px}
.lead{color:var(--muted);margin:0 0 20px}
.banner{display:flex;align-items:center;gap:10px;padding:16px 18px;border-radius:10px;color:#fff;font-weight:600;font-size:1.1rem}
.banner.operational{background:var(--up)}.banner.partial_outage{background:var(--warn);color:#1b1f24}.banner.major_outage{background:var(--down)}
.banner.maintenance{background:var(--maint)}.banner.unknown{background:var(--muted)}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;margin-top:16px}
.check{padding:14px 18px;border-top:1px solid var(--line)}.check:first-child{border-top:0}
.row{display:flex;justify-content:space-between;align-items:center;gap:12px;flex-wrap:wrap}
.name{font-weight:600;overflow-wrap:anywhere}
.pill{font-size:.85rem;font-weight:600;white-space:nowrap}
.pill.up{color:var(--up)}.pill.down{color:var(--down)}.pill.maintenance{color:var(--maint)}.pill.paused,.pill.pending{color:var(--muted)}
.bars{display:block;width:100%;height:34px;margin:8px 0 2px}
.bars path{stroke-width:3;fill:none}.bars path.u100{stroke:var(--up)}.bars path.none{stroke:var(--none)}.bars .u100{fill:var(--up)}.bars .u99{fill:#7cc36b}.bars .u95{fill:var(--warn)}.bars .ulow{fill:var(--down)}.bars .none{fill:var(--none)}
.meta{display:flex;justify-content:space-between;gap:12px;color:var(--muted);font-size:.8rem;flex-wrap:wrap}
.right{display:flex;align-items:center;gap:14px}.spark{display:flex;align-items:center;gap:6px;color:var(--muted);font-size:.8rem}.spark svg{width:96px;height:20px}.spark polyline{fill:none;stroke:var(--accent);stroke-width:1.5}
ul.list{list-style:none;margin:0;padding:0}ul.list li{padding:10px 18px;border-top:1px solid var(--line)}ul.list li:first-child{border-top:0}
.when{color:var(--muted);font-size:.85rem}.empty{padding:14px 18px;color:var(--muted)}
footer{margin-top:32px;color:var(--muted);font-size:.85rem;display:flex;justify-content:space-between;gap:12px;flex-wrap:wrap}
a{color:var(--accent)}
.logo{display:block;max-height:48px;max-width:240px;margin:0 0 12px}.foot{flex-basis:100%;white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
.incident{background:var(--card);border:1px solid var(--line);border-left:4px solid var(--warn);border-radius:10px;margin-top:16px;padding:14px 18px}
.incident.none{border-left-color:var(--muted)}.incident.major{border-left-color:#e8590c}.incident.critical{border-left-color:var(--down)}
.incidents.past .incident{border-left-color:var(--up)}
.incident h3{margin:0;font-size:1.05rem;overflow-wrap:anywhere}.affected{margin:4px 0 0;color:var(--muted);font-size:.85rem}
ol.timeline{list-style:none;margin:10px 0 0;padding:0}ol.timeline li{padding:8px 0;border-top:1px solid var(--line)}
.msg{margin:4px 0 0;white-space:pre-wrap;overflow-wrap:anywhere}
.sub{padding:14px 18px}.sub label{display:block;font-weight:600;font-size:.9rem;margin:6px 0 4px}.sub .field{display:flex;gap:8px;flex-wrap:wrap}
.sub input{flex:1;min-width:200px;padding:8px 10px;border:1px solid var(--line);border-radius:8px;background:var(--bg);color:var(--text);font:inherit}
.sub button{padding:8px 16px;border:0;border-radius:8px;background:var(--accent);color:#fff;font:inherit;font-weight:600;cursor:pointer}
.hint{color:var(--muted);font-size:.8rem;margin:6px 0 0}.sub details{margin-top:12px}.sub summary{cursor:pointer;color:var(--muted)}
@media (max-width:520px){.wrap{padding:20px 12px}h1{font-size:1.4rem}.spark svg{width:56px}}
`;

/** Refreshes `<main>` every 2 s while the tab is visible; the ETag makes an unchanged page a 304. */
const SCRIPT = `(()=>{const r=async()=>{if(document.hidden)return;try{const x=await fetch(location.href,{cache:'no-cache'});if(!x.ok)return;const d=new DOMParser().parseFromString(await x.text(),'text/html').querySelector('main');const m=document.querySelector('main');if(d&&m&&d.innerHTML!==m.innerHTML)m.innerHTML=d.innerHTML}catch{}};setInterval(r,2000);document.addEventListener('visibilitychange',r)})();`;

const time = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

export function durationText(ms: number): string {
  if (ms < 60_000) return 'under a minute';
  const minutes = Math.max(1, Math.round(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

const percent = (value: number | null): string => (value === null ? 'no data' : `${value >= 99.995 ? '100' : value.toFixed(2)}% uptime`);

function barClass(bar: DayBar): string {
  if (bar.uptime === null) return 'none';
  if (bar.uptime >= 99.95) return 'u100';
  if (bar.uptime >= 99) return 'u99';
  if (bar.uptime >= 95) return 'u95';
  return 'ulow';
}

/**
 * Ninety bars per check, a hundred checks a page: perfect days and days without data are one
 * path each (a few bytes a bar); only days that lost uptime get their own bar with a tooltip.
 */
function bars(days: readonly DayBar[]): string {
  // Each bar is a 3-wide stroke: "m<dx>-34v34" from the previous one's foot, 8 bytes a bar.
  const paths: Record<string, { d: string; x: number }> = { u100: { d: '', x: 0 }, none: { d: '', x: 0 } };
  let marked = '';
  days.forEach((d, i) => {
    const cls = barClass(d);
    const path = paths[cls];
    const x = i * 4 + 1.5;
    if (path) {
      path.d += path.d === '' ? `M${x} 0v34` : `m${x - path.x}-34v34`;
      path.x = x;
    } else marked += `<rect x="${i * 4}" width="3" height="34" class="${cls}"><title>${d.day}: ${d.uptime!.toFixed(2)}%</title></rect>`;
  });
  const shapes = Object.entries(paths).map(([cls, p]) => (p.d ? `<path class="${cls}" d="${p.d}"/>` : '')).join('');
  return `<svg class="bars" viewBox="0 0 ${days.length * 4 - 1} 34" preserveAspectRatio="none" role="img" aria-label="Uptime per day, last ${days.length} days">${shapes}${marked}</svg>`;
}

function sparkline(points: ReadonlyArray<number | null>): string {
  const values = points.filter((p): p is number => p !== null);
  if (values.length < 2) return '';
  const max = Math.max(...values);
  const min = Math.min(...values);
  const span = max - min || 1;
  const step = 120 / (points.length - 1);
  const coords = points
    .map((p, i) => (p === null ? null : `${(i * step).toFixed(1)},${(20 - ((p - min) / span) * 18).toFixed(1)}`))
    .filter((c) => c !== null)
    .join(' ');
  return `<svg viewBox="0 0 120 22" preserveAspectRatio="none" role="img" aria-label="Response time, last 24 hours"><polyline points="${coords}"/></svg>`;
}

function checkHtml(c: PublicCheck): string {
  const rt = c.responseTime === null ? '' : `<span>${Math.round(c.responseTime)} ms</span>`;
  const blocked = c.blockedBy.length ? ` <span class="when" data-blocked-by>blocked by ${c.blockedBy.map((b) => esc(b.name)).join(', ')}</span>` : '';
  return `<div class="check" id="check-${esc(c.id)}"><div class="row"><span class="name">${esc(c.name)}${blocked}</span>` +
    `<span class="right"><span class="spark">${sparkline(c.spark)}${rt}</span><span class="pill ${c.status}" data-status="${c.status}">${STATUS_TEXT[c.status]}</span></span></div>\n` +
    `${bars(c.days)}<div class="meta"><span>${c.days.length} days ago</span><span>${percent(c.uptime)}</span><span>Today</span></div></div>`;
}

function maintenanceHtml(checks: readonly PublicCheck[]): string {
  const open = checks.filter((c) => c.status === 'maintenance');
  if (open.length === 0) return '';
  const items = open.map((c) => `<li><strong>${esc(c.name)}</strong> <span class="when">${c.maintenanceUntil === null ? 'until further notice' : `until ${time(c.maintenanceUntil)}`}</span></li>`);
  return `<h2>Maintenance</h2><div class="card"><ul class="list">${items.join('')}</ul></div>`;
}

function windowsHtml(page: PublicPage): string {
  if (page.maintenanceWindows.length === 0) return '';
  const names = new Map(page.checks.map((c) => [c.id, c.name]));
  const items = page.maintenanceWindows.map((w) => {
    const when = w.active ? `in progress until ${time(w.endsAt)}` : `${time(w.startsAt)} to ${time(w.endsAt)}`;
    const checks = w.checkIds.map((id) => esc(names.get(id) ?? id)).join(', ');
    const about = w.description ? `<br><span class="when">${esc(w.description)}</span>` : '';
    return `<li data-window-active="${w.active}"><strong>${esc(w.title)}</strong> <span class="when">${when}</span><br><span class="when">${checks}</span>${about}</li>`;
  });
  return `<h2>Scheduled maintenance</h2><div class="card"><ul class="list">${items.join('')}</ul></div>`;
}

const IMPACT_TEXT: Record<IncidentImpact, string> = { none: 'No impact', minor: 'Minor', major: 'Major', critical: 'Critical' };

/** One incident with its timeline, newest update first; messages are plain text (line breaks kept by CSS). */
function incidentHtml(i: PublicIncident): string {
  const affected = i.checks.length ? `<p class="affected">Affects ${i.checks.map((c) => esc(c.name)).join(', ')}</p>` : '';
  const timeline = i.updates.map((u) =>
    `<li data-status="${u.status}"><strong>${INCIDENT_STATUS_TEXT[u.status]}</strong> <span class="when">${time(u.at)}</span><p class="msg">${esc(u.message)}</p></li>`);
  return `<article class="incident ${i.impact}" id="incident-${esc(i.id)}" data-status="${i.status}"><div class="row"><h3>${esc(i.title)}</h3>` +
    `<span class="pill impact-${i.impact}">${IMPACT_TEXT[i.impact]}</span></div>${affected}<ol class="timeline">${timeline.join('')}</ol></article>`;
}

function openIncidentsHtml(incidents: readonly PublicIncident[]): string {
  const open = incidents.filter((i) => i.resolvedAt === null);
  if (open.length === 0) return '';
  return `<section class="incidents open" aria-label="Open incidents">${open.map(incidentHtml).join('')}</section>`;
}

/** Outages still going on: current, so shown above the checks like open incidents. */
function ongoingHtml(outages: readonly Outage[], now: number): string {
  const items = outages.filter((o) => o.to === null).map((o) =>
    `<li><strong>${esc(o.name)}</strong> is down <span class="when">since ${time(o.from)}, for ${durationText(now - o.from)}</span></li>`);
  return items.length ? `<section class="outages ongoing" aria-label="Ongoing outages"><h2>Ongoing outages</h2><div class="card"><ul class="list">${items.join('')}</ul></div></section>` : '';
}

/** How long a resolved outage lasted; one shorter than a minute is not "1 min". */
function resolvedText(ms: number): string {
  return ms < 60_000 ? 'resolved in under a minute' : `resolved after ${durationText(ms)}`;
}

function historyHtml(incidents: readonly PublicIncident[], outages: readonly Outage[]): string {
  const resolved = incidents.filter((i) => i.resolvedAt !== null);
  const items = outages.filter((o) => o.to !== null).map((o) =>
    `<li><strong>${esc(o.name)}</strong> was down <span class="when">since ${time(o.from)}, ${resolvedText(o.to! - o.from)}</span></li>`);
  const past = resolved.length ? `<section class="incidents past" aria-label="Past incidents">${resolved.map(incidentHtml).join('')}</section>` : '';
  const down = items.length ? `<div class="card"><ul class="list">${items.join('')}</ul></div>` : '';
  const body = past || down ? `${past}${down}` : '<div class="card"><p class="empty">No incidents in the last 30 days.</p></div>';
  return `<h2>Past incidents, last 30 days</h2>${body}`;
}

function document(title: string, main: string, head = '', css = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title>${head}<style>${CSS}${css}</style></head><body><div class="wrap">${main}</div></body></html>`;
}

/**
 * What the page's look adds, each value escaped where it lands: the colour (validated as hex
 * when saved) only as a custom property's value, the URLs (https, as the URL parser wrote them)
 * only in attributes, the footer as text.
 */
function lookParts(look: PublicPage['look'], title: string): { head: string; css: string; logo: string; footer: string } {
  const color = look.accentColor !== null && /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(look.accentColor) ? look.accentColor : null;
  return {
    head: look.favicon ? `<link rel="icon" href="${esc(look.favicon)}">` : '',
    css: color ? `:root{--accent:${color}}` : '',
    logo: look.logoUrl ? `<img class="logo" src="${esc(look.logoUrl)}" alt="${esc(title)}" referrerpolicy="no-referrer">` : '',
    footer: look.footerText ? `<p class="foot">${esc(look.footerText)}</p>` : '',
  };
}

/**
 * The subscribe forms: plain POST forms (no JavaScript), outside `<main>` so the refresh never
 * wipes what a visitor is typing.
 */
function subscribeHtml(base: string, webhooks: boolean): string {
  return `<section class="subscribe" id="subscribe"><h2>Get updates</h2><div class="card sub">
<form method="post" action="${base}/subscribe"><input type="hidden" name="kind" value="email"><label for="sub-email">Email updates of incidents</label>
<div class="field"><input id="sub-email" type="email" name="email" required maxlength="254" placeholder="you@example.com" autocomplete="email"><button type="submit">Subscribe</button></div>
<p class="hint">We send a confirmation link first; every message has an unsubscribe link.</p></form>
<details><summary>${webhooks ? 'Webhook or feed' : 'Feed'}</summary>${webhooks ? webhookFormHtml(base) : ''}
<p class="hint">Feeds: <a href="${base}.atom">Atom</a> · <a href="${base}.feed.json">JSON Feed</a></p></details></div></section>`;
}

/** Only on a page whose owner takes webhook subscribers (issue 34); the receiver echoes a challenge first. */
function webhookFormHtml(base: string): string {
  return `<form method="post" action="${base}/subscribe"><input type="hidden" name="kind" value="webhook">
<label for="sub-url">Webhook URL (receives signed JSON once it answers a verification challenge)</label><div class="field"><input id="sub-url" type="url" name="url" required maxlength="2048" placeholder="your receiver's URL (https)"></div>
<label for="sub-secret">Signing secret (optional, 16–128 characters; empty: one is made for you)</label><div class="field"><input id="sub-secret" name="secret" minlength="16" maxlength="128" autocomplete="off"><button type="submit">Subscribe webhook</button></div></form>`;
}

export function renderPageHtml(page: PublicPage): string {
  const base = `/status/${encodeURIComponent(page.slug)}`;
  const checks = page.checks.length ? page.checks.map(checkHtml).join('') : '<p class="empty">No checks on this page yet.</p>';
  const look = lookParts(page.look, page.title);
  const powered = page.look.hidePoweredBy ? '' : ' · Powered by Vigil';
  const main = `<main><header>${look.logo}<h1>${esc(page.title)}</h1>${page.description ? `<p class="lead">${esc(page.description)}</p>` : ''}</header>
<div class="banner ${page.overall}" data-overall="${page.overall}">${OVERALL_TEXT[page.overall]}</div>
${openIncidentsHtml(page.incidents)}${ongoingHtml(page.outages, page.generatedAt)}<div class="card">${checks}</div>${maintenanceHtml(page.checks)}${windowsHtml(page)}${historyHtml(page.incidents, page.outages)}
<footer>${look.footer}<span>Updated ${time(page.generatedAt)}</span><span><a href="${base}.json">JSON</a> · <a href="${base}.atom">Atom feed</a> · <a href="${base}.feed.json">JSON Feed</a>${powered}</span></footer></main>`;
  const head = `<link rel="alternate" type="application/atom+xml" title="${esc(page.title)}" href="${base}.atom">${look.head}`;
  return document(page.title, `${main}${subscribeHtml(base, page.webhookSubscriptions)}<script>${SCRIPT}</script>`, head, look.css);
}

export function renderNotFoundHtml(): string {
  return document('Status page not found', '<main><h1>Status page not found</h1><p class="lead">There is no status page at this address.</p></main>');
}

/** The inline scripts a page carries: its Content-Security-Policy allows these, by hash, and no other. */
export const PAGE_SCRIPTS: readonly string[] = [SCRIPT];
