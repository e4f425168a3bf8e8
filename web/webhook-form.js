import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { CHANNELS, channelOf, channelUrl } from './channels.js';
import { alertFieldOf, Events } from './events.js';
import { Routing, routingBody, routingDraft } from './routing.js';
import { Field, toast } from './ui.js';

const draftOf = (hook) => ({
  name: hook?.name ?? '',
  type: hook?.webhookType ?? '',
  values: {},
  events: hook?.events ?? ['website_down', 'website_up'],
  enabled: hook?.enabled ?? true,
  secret: '',
  removeSecret: false,
  routing: routingDraft(hook),
});

/** Where an API message belongs: the channel's first field for anything about the URL. */
function errorField(message, channel) {
  const f = alertFieldOf(message);
  if (f === 'url' || (!f && /\bURL\b/.test(message))) return `ch_${channel.fields[0].name}`;
  if (f === 'checkIds' || f === 'folders') return 'routing';
  return f ?? '_';
}

/**
 * Adds a webhook (no `hook`) or changes one (PATCH: the URL only when its fields are filled in,
 * the secret only when typed or removed). The API's messages appear under their fields.
 */
export function WebhookForm({ hook, onDone, onCancel }) {
  const [d, setD] = useState(() => draftOf(hook));
  const [err, setErr] = useState({});
  const [busy, setBusy] = useState(false);
  const channel = channelOf(d.type);
  const set = (patch) => setD({ ...d, ...patch });
  const setValue = (name) => (e) => set({ values: { ...d.values, [name]: e.currentTarget.value } });

  const submit = (e) => {
    e.preventDefault();
    let url;
    try {
      url = channelUrl(channel, d.values);
    } catch (bad) {
      setErr({ [`ch_${bad.field}`]: bad.message });
      return;
    }
    if (url === null && !hook) {
      setErr({ [`ch_${channel.fields[0].name}`]: `${channel.fields[0].label} is required` });
      return;
    }
    if (d.routing.some && d.routing.checkIds.length + d.routing.folders.length === 0) {
      setErr({ routing: 'Choose at least one check or folder, or Every check' });
      return;
    }
    const body = {
      name: d.name,
      events: d.events,
      ...routingBody(d.routing),
      ...(url !== null ? { url } : {}),
      ...(d.type ? { webhookType: d.type } : {}),
      ...(d.secret ? { secret: d.secret } : hook && d.removeSecret ? { secret: null } : {}),
      ...(hook ? { enabled: d.enabled } : {}),
    };
    setBusy(true);
    api(hook ? 'PATCH' : 'POST', hook ? `/alerts/webhooks/${hook.id}` : '/alerts/webhooks', body)
      .then(
        ({ data }) => {
          setErr({});
          if (!hook) setD(draftOf(null));
          toast(hook ? 'Webhook saved' : 'Webhook added');
          onDone(data);
        },
        (e2) => setErr({ [errorField(e2.message, channel)]: e2.message }),
      )
      .finally(() => setBusy(false));
  };

  return html`<form class=${`webhook-form${hook ? ' editing' : ''}`} onSubmit=${submit} data-webhook=${hook?.id ?? ''}>
    <h3>${hook ? `Edit ${hook.name}` : 'Add a webhook'}</h3>
    ${err._ ? html`<p class="error">${err._}</p>` : ''}
    <div class="grid2">
      <${Field} label="Name" error=${err.name}><input name="name" value=${d.name} onInput=${(e) => set({ name: e.currentTarget.value })} maxlength="100" required /><//>
      <${Field} label="Channel" error=${err.webhookType} hint=${d.type ? '' : 'Slack, Discord, Teams, Pumble, ntfy.sh, Telegram, Google Chat, Matrix, Gotify, Mattermost and Rocket.Chat URLs are recognised'}>
        <select name="webhookType" value=${d.type} onChange=${(e) => set({ type: e.currentTarget.value, values: {} })}>
          ${CHANNELS.map((c) => html`<option value=${c.type}>${c.label}</option>`)}
        </select>
      <//>
    </div>
    ${hook ? html`<p class="muted">Now sending to ${hook.url}. Leave the fields below empty to keep that address.</p>` : ''}
    <div class="grid2">${channel.fields.map(
      (f) => html`<${Field} label=${f.label} error=${err[`ch_${f.name}`]} hint=${f.hint}>
        ${f.options
          ? html`<select name=${`ch_${f.name}`} value=${d.values[f.name] ?? f.options[0][0]} onChange=${setValue(f.name)}>${f.options.map(([v, label]) => html`<option value=${v}>${label}</option>`)}</select>`
          : html`<input name=${`ch_${f.name}`} value=${d.values[f.name] ?? ''} onInput=${setValue(f.name)} placeholder=${f.placeholder ?? ''} autocomplete="off" />`}
      <//>`,
    )}</div>
    <${Field} label="Signing secret" error=${err.secret} hint=${hook ? 'Empty: keep the current one (if any)' : 'Optional: each delivery then carries X-Vigil-Signature: sha256=<HMAC of the body>'}>
      <input name="secret" value=${d.secret} onInput=${(e) => set({ secret: e.currentTarget.value })} autocomplete="off" />
    <//>
    ${hook ? html`<label class="check"><input type="checkbox" name="removeSecret" checked=${d.removeSecret} disabled=${d.secret !== ''} onChange=${(e) => set({ removeSecret: e.currentTarget.checked })} /> Remove the signing secret (send unsigned)</label>` : ''}
    <${Events} value=${d.events} onChange=${(events) => set({ events })} error=${err.events} />
    <${Routing} value=${d.routing} onChange=${(routing) => set({ routing })} errors=${err} />
    ${hook ? html`<label class="check"><input type="checkbox" name="enabled" checked=${d.enabled} onChange=${(e) => set({ enabled: e.currentTarget.checked })} /> Enabled</label>` : ''}
    <div class="actions">
      <button class="primary" type="submit" disabled=${busy}>${hook ? 'Save webhook' : 'Add webhook'}</button>
      ${onCancel ? html`<button type="button" onClick=${onCancel}>Cancel</button>` : ''}
    </div>
  </form>`;
}
