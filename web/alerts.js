import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { fieldOf } from './check-form.js';
import { confirmDialog, Field, toast } from './ui.js';

const EVENTS = ['website_down', 'website_up', 'website_error', 'ssl_error', 'ssl_warning', 'domain_expiring', 'domain_expired', 'domain_renewed'];
const HOOK_TYPES = ['', 'slack', 'discord', 'teams', 'pumble', 'pagerduty', 'opsgenie', 'pushover', 'generic'];

function Events({ value, onChange }) {
  const flip = (e) => onChange(value.includes(e) ? value.filter((x) => x !== e) : [...value, e]);
  return html`<fieldset class="events"><legend>Events</legend>${EVENTS.map(
    (e) => html`<label class="check"><input type="checkbox" checked=${value.includes(e)} onChange=${() => flip(e)} /> ${e.replace('_', ' ')}</label>`,
  )}</fieldset>`;
}

function EmailSettings() {
  const [s, setS] = useState(null);
  const [err, setErr] = useState({});
  useEffect(() => {
    api('GET', '/alerts/email').then(({ data }) => setS(data ? { ...data, recipients: data.recipients.join(', ') } : { enabled: true, recipients: '', events: ['website_down', 'website_up'], emailFormat: 'html' }), (e) => setErr({ _: e.message }));
  }, []);
  if (!s) return html`<p class="muted">${err._ ?? 'Loading…'}</p>`;
  const fail = (e) => {
    const f = fieldOf(e.message) ?? (/recipient|email/i.test(e.message) ? 'recipients' : '_');
    setErr({ [f]: e.message });
  };
  const save = (e) => {
    e.preventDefault();
    const body = { enabled: s.enabled, recipients: s.recipients.split(/[\s,]+/).filter(Boolean), events: s.events, emailFormat: s.emailFormat };
    api('PATCH', '/alerts/email', body).then(() => (setErr({}), toast('Email alerts saved')), fail);
  };
  const test = () => api('POST', '/alerts/email/test').then(({ data }) => toast(data.message), (e) => toast(e.message, 'error'));
  return html`<form class="card" onSubmit=${save}>
    <h2>Email</h2>
    ${err._ ? html`<p class="error">${err._}</p>` : ''}
    <${Field} label="Recipients" error=${err.recipients} hint="Up to 10 addresses, comma separated">
      <input name="recipients" value=${s.recipients} onInput=${(e) => setS({ ...s, recipients: e.currentTarget.value })} />
    <//>
    <${Events} value=${s.events} onChange=${(events) => setS({ ...s, events })} />
    <div class="grid2">
      <label class="check"><input type="checkbox" checked=${s.enabled} onChange=${(e) => setS({ ...s, enabled: e.currentTarget.checked })} /> Enabled</label>
      <${Field} label="Format"><select value=${s.emailFormat} onChange=${(e) => setS({ ...s, emailFormat: e.currentTarget.value })}><option>html</option><option>text</option></select><//>
    </div>
    <div class="actions"><button class="primary" type="submit">Save</button><button type="button" onClick=${test}>Send test email</button></div>
  </form>`;
}

function Webhooks() {
  const [hooks, setHooks] = useState(null);
  const [draft, setDraft] = useState({ name: '', url: '', webhookType: '', secret: '', events: ['website_down', 'website_up'] });
  const [err, setErr] = useState({});
  const load = () => api('GET', '/alerts/webhooks').then(({ data }) => setHooks(data), (e) => setErr({ _: e.message }));
  useEffect(load, []);
  const add = (e) => {
    e.preventDefault();
    const body = { name: draft.name, url: draft.url, events: draft.events, ...(draft.webhookType ? { webhookType: draft.webhookType } : {}), ...(draft.secret ? { secret: draft.secret } : {}) };
    api('POST', '/alerts/webhooks', body).then(
      () => (setErr({}), setDraft({ ...draft, name: '', url: '', secret: '' }), toast('Webhook added'), load()),
      (e) => setErr({ [fieldOf(e.message) ?? (/url/i.test(e.message) ? 'url' : /name/i.test(e.message) ? 'name' : '_')]: e.message }),
    );
  };
  const test = (h) => api('POST', `/alerts/webhooks/${h.id}/test`).then(({ data }) => toast(`${data.message} (HTTP ${data.status})`), (e) => toast(e.message, 'error'));
  const remove = (h) => confirmDialog(`Delete webhook ${h.name}?`, 'Alerts stop going to it at once.', 'Delete').then((yes) => yes && api('DELETE', `/alerts/webhooks/${h.id}`).then(load, (e) => toast(e.message, 'error')));
  const set = (f) => (e) => setDraft({ ...draft, [f]: e.currentTarget.value });
  return html`<section class="card">
    <h2>Webhooks</h2>
    ${err._ ? html`<p class="error">${err._}</p>` : ''}
    ${hooks === null ? html`<p class="muted">Loading…</p>` : hooks.length === 0 ? html`<p class="muted">No webhooks yet.</p>` : html`<ul class="hooks">${hooks.map(
      (h) => html`<li><span><strong>${h.name}</strong> <small class="muted">${h.webhookType} · ${h.url}</small></span>
        <span class="actions"><button type="button" onClick=${() => test(h)}>Test</button><button type="button" class="danger" onClick=${() => remove(h)}>Delete</button></span></li>`,
    )}</ul>`}
    <form onSubmit=${add}>
      <h3>Add a webhook</h3>
      <div class="grid2">
        <${Field} label="Name" error=${err.name}><input name="name" value=${draft.name} onInput=${set('name')} maxlength="100" /><//>
        <${Field} label="Type" hint="Detected from the URL when left empty"><select value=${draft.webhookType} onChange=${set('webhookType')}>${HOOK_TYPES.map((t) => html`<option value=${t}>${t || 'auto'}</option>`)}</select><//>
      </div>
      <${Field} label="URL" error=${err.url}><input name="url" value=${draft.url} onInput=${set('url')} placeholder="https://hooks.example.com/…" /><//>
      <${Field} label="Signing secret" hint="Optional: deliveries then carry X-Svc-Signature"><input name="secret" value=${draft.secret} onInput=${set('secret')} /><//>
      <${Events} value=${draft.events} onChange=${(events) => setDraft({ ...draft, events })} />
      <div class="actions"><button class="primary" type="submit">Add webhook</button></div>
    </form>
  </section>`;
}

export function AlertsPage({ scopes, restricted }) {
  if (restricted) return html`<section class="card"><h1>Alerts</h1><p class="muted">Alert settings are account-wide: this key is restricted to some checks, so it cannot see them.</p></section>`;
  if (!scopes.includes('alerts:read')) return html`<section class="card"><h1>Alerts</h1><p class="muted">This key lacks the alerts:read scope.</p></section>`;
  return html`<div class="alerts-page"><h1>Alerts</h1><${EmailSettings} /><${Webhooks} /></div>`;
}
