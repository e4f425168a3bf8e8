import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { CheckPicker } from './check-picker.js';
import { confirmDialog, CopyButton, Field, fieldNamed, toast } from './ui.js';
import { PageIncidents } from './incidents.js';
import { PageSubscribers, SubscriberCount } from './subscribers.js';

const FIELDS = ['slug', 'title', 'description', 'customDomain', 'checkIds', 'logoUrl', 'accentColor', 'footerText', 'favicon', 'embedAllowedOrigins'];
const LOOK = { logoUrl: '', accentColor: '', footerText: '', favicon: '', hidePoweredBy: false, embedAllowedOrigins: '' };
/** Origins typed one a line (or separated by spaces or commas). */
const originsOf = (text) => text.split(/[\s,]+/).filter(Boolean);
const empty = { title: '', slug: '', description: '', customDomain: '', checkIds: [], autoIncidents: false, webhookSubscriptions: false, ...LOOK };

/** A slug from a title: "Acme API status" → "acme-api-status". */
const slugOf = (title) => title.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64);

function manages(scopes, restricted) {
  if (restricted) return 'A status page is the account’s public face: a key restricted to some checks cannot manage pages.';
  if (!scopes.includes('checks:read')) return 'This key lacks the checks:read scope.';
  return null;
}

/** The account's status pages: each with its public address, its checks and a way to edit it. */
export function StatusPagesPage({ scopes, restricted }) {
  const [pages, setPages] = useState(null);
  const [error, setError] = useState(null);
  const refused = manages(scopes, restricted);
  useEffect(() => {
    if (!refused) api('GET', '/status-pages').then(({ data }) => setPages(data), (e) => setError(e.message));
  }, []);
  if (refused) return html`<section class="card"><h1>Status pages</h1><p class="muted">${refused}</p></section>`;
  const canWrite = scopes.includes('checks:write');
  return html`<section class="status-pages">
    <div class="page-head"><h1>Status pages</h1>${canWrite ? html`<a class="button primary" href="#/status-pages/new">New status page</a>` : ''}</div>
    ${error ? html`<p class="error">${error}</p>` : ''}
    ${pages === null ? html`<p class="muted">${error ? '' : 'Loading…'}</p>` : pages.length === 0
      ? html`<p class="card muted">No status pages yet. A status page shows some of your checks to anyone, without signing in.</p>`
      : html`<ul class="pages">${pages.map(
        (p) => html`<li class="card" data-slug=${p.slug}>
          <div class="card-head"><h2>${p.title}</h2><span class="actions">
            <a class="button" href=${p.url} target="_blank" rel="noopener">Open</a>
            ${canWrite ? html`<a class="button" href=${`#/status-pages/${p.id}`}>Edit</a>` : ''}</span></div>
          <p class="muted break"><a href=${p.url} target="_blank" rel="noopener">${p.url}</a> · ${p.checkIds.length} check${p.checkIds.length === 1 ? '' : 's'}<${SubscriberCount} pageId=${p.id} /></p>
          ${p.description ? html`<p>${p.description}</p>` : ''}
        </li>`,
      )}</ul>`}
  </section>`;
}

/** Create (no id) or edit a status page; the API's messages appear under the field they name. */
export function StatusPageForm({ id, scopes, restricted }) {
  const [form, setForm] = useState(id ? null : empty);
  const [saved, setSaved] = useState(null);
  const [slugTouched, setSlugTouched] = useState(Boolean(id));
  const [errors, setErrors] = useState({});
  const [busy, setBusy] = useState(false);
  const refused = manages(scopes, restricted) ?? (scopes.includes('checks:write') ? null : 'This key lacks the checks:write scope.');
  useEffect(() => {
    if (!id || refused) return;
    api('GET', `/status-pages/${id}`).then(
      ({ data }) => {
        setSaved(data);
        setForm({ title: data.title, slug: data.slug, description: data.description ?? '', customDomain: data.customDomain ?? '', checkIds: data.checkIds, autoIncidents: data.autoIncidents, webhookSubscriptions: data.webhookSubscriptions,
          logoUrl: data.logoUrl ?? '', accentColor: data.accentColor ?? '', footerText: data.footerText ?? '', favicon: data.favicon ?? '', hidePoweredBy: data.hidePoweredBy,
          embedAllowedOrigins: (data.embedAllowedOrigins ?? []).join('\n') });
      },
      (e) => setErrors({ _: e.message }),
    );
  }, [id]);
  if (refused) return html`<section class="card"><h1>Status pages</h1><p class="muted">${refused}</p></section>`;
  if (!form) return html`<p class="muted">${errors._ ?? 'Loading…'}</p>`;

  const set = (field) => (e) => {
    const v = e.currentTarget.value;
    const next = { ...form, [field]: v };
    if (field === 'title' && !slugTouched) next.slug = slugOf(v);
    if (field === 'slug') setSlugTouched(true);
    setForm(next);
    if (errors[field]) setErrors({ ...errors, [field]: undefined });
  };
  const submit = (e) => {
    e.preventDefault();
    setBusy(true);
    const body = {
      title: form.title.trim(),
      slug: form.slug.trim(),
      description: form.description.trim() || null,
      customDomain: form.customDomain.trim() || null,
      checkIds: form.checkIds,
      autoIncidents: form.autoIncidents,
      webhookSubscriptions: form.webhookSubscriptions,
      logoUrl: form.logoUrl.trim() || null,
      accentColor: form.accentColor.trim() || null,
      footerText: form.footerText.trim() || null,
      favicon: form.favicon.trim() || null,
      hidePoweredBy: form.hidePoweredBy,
      embedAllowedOrigins: originsOf(form.embedAllowedOrigins),
    };
    api(id ? 'PATCH' : 'POST', id ? `/status-pages/${id}` : '/status-pages', body).then(
      ({ data }) => {
        toast(id ? 'Status page saved' : 'Status page created');
        setSaved(data);
        setBusy(false);
        if (!id) location.hash = `#/status-pages/${data.id}`;
      },
      (err) => {
        setBusy(false);
        setErrors({ [fieldNamed(err.message, FIELDS) ?? '_']: err.message });
      },
    );
  };
  const remove = () =>
    confirmDialog(`Delete ${saved.title}?`, 'The public page goes away at once; its checks stay.', 'Delete').then(
      (yes) => yes && api('DELETE', `/status-pages/${id}`).then(() => (location.hash = '#/status-pages'), (err) => toast(err.message, 'error')),
    );

  return html`<form class="status-page-form" onSubmit=${submit}>
    <div class="page-head">
      <div><a href="#/status-pages" class="muted">← Status pages</a><h1>${id ? `Edit ${saved?.title ?? ''}` : 'New status page'}</h1></div>
      ${saved ? html`<div class="actions"><a class="button" id="open-page" href=${saved.url} target="_blank" rel="noopener">Open</a>
        ${id ? html`<button type="button" class="danger" onClick=${remove}>Delete</button>` : ''}</div>` : ''}
    </div>
    ${errors._ ? html`<p class="error" role="alert">${errors._}</p>` : ''}
    ${saved ? html`<p class="card break">Public address: <a href=${saved.url} target="_blank" rel="noopener">${saved.url}</a> <${CopyButton} text=${saved.url} /></p>` : ''}
    <div class="card">
      <div class="grid2">
        <${Field} label="Title" error=${errors.title}><input name="title" value=${form.title} onInput=${set('title')} maxlength="100" required /><//>
        <${Field} label="Slug" error=${errors.slug} hint="The page lives at /status/<slug>: lower-case letters, digits and hyphens">
          <input name="slug" value=${form.slug} onInput=${set('slug')} maxlength="64" required /><//>
      </div>
      <${Field} label="Description" error=${errors.description} hint="Optional plain text under the title">
        <textarea name="description" rows="2" maxlength="1000" value=${form.description} onInput=${set('description')}></textarea><//>
      <${Field} label="Custom domain" error=${errors.customDomain} hint="Optional, e.g. status.example.com (point its DNS here; see the docs)">
        <input name="customDomain" value=${form.customDomain} onInput=${set('customDomain')} /><//>
      ${errors.checkIds ? html`<p class="field-error" role="alert">${errors.checkIds}</p>` : ''}
      <${CheckPicker} legend="Checks on the page, in this order" ordered=${true} value=${form.checkIds}
        onChange=${(checkIds) => (setForm({ ...form, checkIds }), setErrors({ ...errors, checkIds: undefined }))} />
      <fieldset class="look"><legend>Look</legend>
        <div class="grid2">
          <${Field} label="Logo URL" error=${errors.logoUrl} hint="https only; shown above the title"><input name="logoUrl" type="url" value=${form.logoUrl} onInput=${set('logoUrl')} /><//>
          <${Field} label="Favicon URL" error=${errors.favicon} hint="https only"><input name="favicon" type="url" value=${form.favicon} onInput=${set('favicon')} /><//>
        </div>
        <div class="grid2">
          <${Field} label="Accent colour" error=${errors.accentColor} hint="A hex colour such as #3b6fd8">
            <input name="accentColor" value=${form.accentColor} onInput=${set('accentColor')} maxlength="7" placeholder="#3b6fd8" /><//>
          <${Field} label="Footer text" error=${errors.footerText} hint="Plain text"><textarea name="footerText" rows="2" maxlength="500" value=${form.footerText} onInput=${set('footerText')}></textarea><//>
        </div>
        <label class="check"><input type="checkbox" name="hidePoweredBy" checked=${form.hidePoweredBy}
          onChange=${(e) => setForm({ ...form, hidePoweredBy: e.currentTarget.checked })} /> Hide “Powered by Vigil”</label>
        <${Field} label="Sites allowed to embed this page" error=${errors.embedAllowedOrigins}
          hint="Origins such as https://www.example.com, one a line, whose pages may show this one in a frame; empty: no site may">
          <textarea name="embedAllowedOrigins" rows="2" value=${form.embedAllowedOrigins} onInput=${set('embedAllowedOrigins')}></textarea><//>
      </fieldset>
      <label class="check"><input type="checkbox" name="autoIncidents" checked=${form.autoIncidents}
        onChange=${(e) => setForm({ ...form, autoIncidents: e.currentTarget.checked })} /> Open an incident when one of its checks goes down (it resolves itself when the check is up again)</label>
      <label class="check"><input type="checkbox" name="webhookSubscriptions" checked=${form.webhookSubscriptions}
        onChange=${(e) => setForm({ ...form, webhookSubscriptions: e.currentTarget.checked })} /> Let visitors subscribe webhooks (each receives nothing until it answers a signed verification request; email subscriptions are always open)</label>
      <div class="actions"><button class="primary" type="submit" disabled=${busy}>${id ? 'Save' : 'Create status page'}</button></div>
    </div>
  </form>
  ${saved && id ? html`<${PageIncidents} page=${saved} canWrite=${true} /><${PageSubscribers} page=${saved} canWrite=${true} />` : ''}`;
}
