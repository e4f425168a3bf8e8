import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { channelLabel } from './channels.js';
import { DeliveryLog } from './deliveries.js';
import { alertFieldOf, Events } from './events.js';
import { useChecks } from './live.js';
import { Routing, routeSummary, routingBody, routingDraft } from './routing.js';
import { confirmDialog, Field, toast } from './ui.js';
import { WebhookForm } from './webhook-form.js';

const remindText = (t) => (t.remindEveryMinutes ? `reminds every ${t.remindEveryMinutes} min` : '');

function EmailSettings() {
  const [s, setS] = useState(null);
  const [err, setErr] = useState({});
  useEffect(() => {
    api('GET', '/alerts/email').then(
      ({ data }) => setS(data ? { ...data, recipients: data.recipients.join(', '), routing: routingDraft(data) } : { enabled: true, recipients: '', events: ['website_down', 'website_up'], emailFormat: 'html', routing: routingDraft(null) }),
      (e) => setErr({ _: e.message }),
    );
  }, []);
  if (!s) return html`<p class="muted">${err._ ?? 'Loading…'}</p>`;
  const fail = (e) => {
    const f = alertFieldOf(e.message) ?? (/recipient|email/i.test(e.message) ? 'recipients' : '_');
    setErr({ [f === 'checkIds' || f === 'folders' ? 'routing' : f]: e.message });
  };
  const save = (e) => {
    e.preventDefault();
    if (s.routing.some && s.routing.checkIds.length + s.routing.folders.length === 0) {
      setErr({ routing: 'Choose at least one check or folder, or Every check' });
      return;
    }
    const body = { enabled: s.enabled, recipients: s.recipients.split(/[\s,]+/).filter(Boolean), events: s.events, emailFormat: s.emailFormat, ...routingBody(s.routing) };
    api('PATCH', '/alerts/email', body).then(() => (setErr({}), toast('Email alerts saved')), fail);
  };
  const test = () => api('POST', '/alerts/email/test').then(({ data }) => toast(data.message), (e) => toast(e.message, 'error'));
  return html`<form class="card" onSubmit=${save}>
    <h2>Email</h2>
    ${err._ ? html`<p class="error">${err._}</p>` : ''}
    <${Field} label="Recipients" error=${err.recipients} hint="Up to 10 addresses, comma separated">
      <input name="recipients" value=${s.recipients} onInput=${(e) => setS({ ...s, recipients: e.currentTarget.value })} />
    <//>
    <${Events} value=${s.events} onChange=${(events) => setS({ ...s, events })} error=${err.events} />
    <${Routing} value=${s.routing} onChange=${(routing) => setS({ ...s, routing })} errors=${err} />
    <div class="grid2">
      <label class="check"><input type="checkbox" checked=${s.enabled} onChange=${(e) => setS({ ...s, enabled: e.currentTarget.checked })} /> Enabled</label>
      <${Field} label="Format"><select value=${s.emailFormat} onChange=${(e) => setS({ ...s, emailFormat: e.currentTarget.value })}><option>html</option><option>text</option></select><//>
    </div>
    <div class="actions"><button class="primary" type="submit">Save</button><button type="button" onClick=${test}>Send test email</button></div>
  </form>`;
}

function WebhookItem({ hook, names, onEdit, onLog, onChanged }) {
  const test = () => api('POST', `/alerts/webhooks/${hook.id}/test`).then(({ data }) => toast(`${data.message} (HTTP ${data.status})`), (e) => toast(e.message, 'error'));
  const remove = () =>
    confirmDialog(`Delete webhook ${hook.name}?`, 'Alerts stop going to it at once.', 'Delete').then(
      (yes) => yes && api('DELETE', `/alerts/webhooks/${hook.id}`).then(onChanged, (e) => toast(e.message, 'error')),
    );
  const routed = hook.checkIds.length + hook.folders.length > 0;
  return html`<li data-id=${hook.id} data-type=${hook.webhookType}>
    <span>
      <strong>${hook.name}</strong> ${hook.enabled ? '' : html`<span class="badge" data-status="paused">disabled</span>`}
      <small class="muted">${channelLabel(hook.webhookType)} · ${hook.url}</small>
      <small class=${`route${routed ? ' routed' : ''}`}>${routeSummary(hook, names)}${hook.remindEveryMinutes ? ` · ${remindText(hook)}` : ''} · ${hook.events.join(', ')}</small>
    </span>
    <span class="actions">
      <button type="button" onClick=${test}>Test</button>
      <button type="button" onClick=${onEdit}>Edit</button>
      <button type="button" onClick=${onLog}>Deliveries</button>
      <button type="button" class="danger" onClick=${remove}>Delete</button>
    </span>
  </li>`;
}

function Webhooks({ hooks, load, error, onLog }) {
  const checks = useChecks();
  const names = new Map(checks.map((c) => [c.id, c.name]));
  const [editing, setEditing] = useState(null);
  const edited = () => (setEditing(null), load());
  return html`<section class="card">
    <h2>Webhooks</h2>
    ${error ? html`<p class="error">${error}</p>` : ''}
    ${hooks === null
      ? html`<p class="muted">Loading…</p>`
      : hooks.length === 0
        ? html`<p class="muted">No webhooks yet.</p>`
        : html`<ul class="hooks">${hooks.map((h) =>
            editing === h.id
              ? html`<li class="edit" key=${h.id}><${WebhookForm} hook=${h} onDone=${edited} onCancel=${() => setEditing(null)} /></li>`
              : html`<${WebhookItem} key=${h.id} hook=${h} names=${names} onEdit=${() => setEditing(h.id)} onLog=${() => onLog(h.id)} onChanged=${load} />`,
          )}</ul>`}
    <${WebhookForm} onDone=${load} />
  </section>`;
}

export function AlertsPage({ scopes, restricted }) {
  const [hooks, setHooks] = useState(null);
  const [error, setError] = useState(null);
  const [logHook, setLogHook] = useState('');
  const allowed = !restricted && scopes.includes('alerts:read');
  const load = () => api('GET', '/alerts/webhooks').then(({ data }) => (setHooks(data), setError(null)), (e) => setError(e.message));
  useEffect(() => void (allowed && load()), [allowed]);
  if (restricted) {
    return html`<div class="alerts-page">
      <section class="card"><h1>Alerts</h1><p class="muted">Alert settings are account-wide: this key is restricted to some checks, so it cannot see them. The log below shows its checks' deliveries.</p></section>
      ${scopes.includes('alerts:read') ? html`<${DeliveryLog} hooks=${[]} webhookId="" onWebhook=${() => {}} canRetry=${scopes.includes('alerts:write')} />` : ''}
    </div>`;
  }
  if (!allowed) return html`<section class="card"><h1>Alerts</h1><p class="muted">This key lacks the alerts:read scope.</p></section>`;
  const showLog = (id) => {
    setLogHook(id);
    requestAnimationFrame(() => document.querySelector('.deliveries')?.scrollIntoView({ block: 'start' }));
  };
  return html`<div class="alerts-page">
    <h1>Alerts</h1>
    <${EmailSettings} />
    <${Webhooks} hooks=${hooks} load=${load} error=${error} onLog=${showLog} />
    <${DeliveryLog} hooks=${hooks} webhookId=${logHook} onWebhook=${setLogHook} canRetry=${scopes.includes('alerts:write')} />
  </div>`;
}
