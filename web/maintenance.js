import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, newIdempotencyKey } from './api.js';
import { CheckPicker } from './check-picker.js';
import { confirmDialog, Field, fieldNamed, toast } from './ui.js';

const FIELDS = ['title', 'description', 'checkIds', 'folders', 'tags', 'startsAt', 'endsAt', 'schedule', 'durationMinutes', 'timezone'];
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const empty = {
  title: '', description: '', kind: 'once', scope: 'checks', checkIds: [], folders: '', tags: '',
  startsAt: '', endsAt: '', schedule: '0 2 * * 0', durationMinutes: '60', timezone: zone,
};

/** An instant in a zone, with the zone named: `7 Dec 2026, 03:00 (Europe/Paris)`. */
const inZone = (iso, timeZone) => `${new Date(iso).toLocaleString(undefined, { timeZone, dateStyle: 'medium', timeStyle: 'short' })} (${timeZone})`;

/**
 * A window's times, each labelled with its zone: the browser's ("your time"), and the window's
 * own beside it when the window has another (a recurring window's schedule is read there).
 */
function span(from, to, windowZone) {
  const yours = html`<span class="zoned" data-zone="yours">${from ? `${inZone(from, zone).replace(/ \(.*\)$/, '')} to ` : ''}${inZone(to, zone)} your time</span>`;
  if (!windowZone || windowZone === zone) return yours;
  return html`${yours}<span class="zoned" data-zone="window"> · ${from ? `${inZone(from, windowZone).replace(/ \(.*\)$/, '')} to ` : ''}${inZone(to, windowZone)} the window's time</span>`;
}
const list = (text) => text.split(',').map((s) => s.trim()).filter(Boolean);
/** A datetime-local value (the browser's zone) as an ISO instant. */
const instant = (local) => (local ? new Date(local).toISOString() : undefined);

function scopeText(w) {
  if (w.allChecks) return 'every check';
  const parts = [];
  if (w.checkIds.length) parts.push(`${w.checkIds.length} check${w.checkIds.length === 1 ? '' : 's'}`);
  if (w.folders.length) parts.push(`folders ${w.folders.join(', ')}`);
  if (w.tags.length) parts.push(`tags ${w.tags.join(', ')}`);
  return parts.join(' · ');
}

/** Scheduled maintenance windows: the list (active first), a form to schedule one, and End on each. */
export function MaintenancePage({ scopes }) {
  const [windows, setWindows] = useState(null);
  const [error, setError] = useState(null);
  const [adding, setAdding] = useState(false);
  const canWrite = scopes.includes('checks:write');
  const load = () => api('GET', '/maintenance-windows').then(({ data }) => setWindows(data), (e) => setError(e.message));
  useEffect(() => void load(), []);
  const end = (w) =>
    confirmDialog(`End ${w.title}?`, w.schedule ? 'A recurring window ends for good: no later occurrence opens.' : 'Its checks leave maintenance now.', 'End now').then(
      (yes) => yes && api('PATCH', `/maintenance-windows/${w.id}`, { endsAt: new Date().toISOString() }).then(() => (toast('Window ended'), load()), (e) => toast(e.message, 'error')),
    );
  const remove = (w) =>
    confirmDialog(`Delete ${w.title}?`, 'It is gone for good; an active one ends now.', 'Delete').then(
      (yes) => yes && api('DELETE', `/maintenance-windows/${w.id}`).then(() => (toast('Window deleted'), load()), (e) => toast(e.message, 'error')),
    );
  const sorted = windows ? [...windows].sort((a, b) => Number(b.active) - Number(a.active)) : null;
  return html`<section class="maintenance">
    <div class="page-head"><h1>Maintenance windows</h1>${canWrite && !adding ? html`<button type="button" class="primary" onClick=${() => setAdding(true)}>Schedule maintenance</button>` : ''}</div>
    ${error ? html`<p class="error">${error}</p>` : ''}
    ${adding ? html`<${WindowForm} onDone=${() => (setAdding(false), load())} />` : ''}
    ${sorted === null ? html`<p class="muted">${error ? '' : 'Loading…'}</p>` : sorted.length === 0
      ? html`<p class="card muted">No maintenance windows. While one is in force its checks keep being probed, but their status stays and no alert is sent.</p>`
      : html`<ul class="pages">${sorted.map(
        (w) => html`<li class="card" data-window=${w.id} data-active=${String(w.active)}>
          <div class="card-head"><h2>${w.active ? html`<span class="dot maintenance"></span>` : ''}${w.title}</h2>
            ${canWrite ? html`<span class="actions">
              ${w.nextStartsAt ? html`<button type="button" onClick=${() => end(w)}>End</button>` : ''}
              <button type="button" class="danger" onClick=${() => remove(w)}>Delete</button></span>` : ''}</div>
          <p class="muted">${w.active ? html`In progress until ${span(null, w.nextEndsAt, w.timezone)}` : w.nextStartsAt ? html`Next: ${span(w.nextStartsAt, w.nextEndsAt, w.timezone)}` : 'Over'}
            ${w.schedule ? ` · every “${w.schedule}” (${w.timezone}) for ${w.durationMinutes} min` : ''} · ${scopeText(w)}</p>
          ${w.description ? html`<p>${w.description}</p>` : ''}
        </li>`,
      )}</ul>`}
  </section>`;
}

function WindowForm({ onDone }) {
  const [form, setForm] = useState(empty);
  const [errors, setErrors] = useState({});
  const [busy, setBusy] = useState(false);
  const set = (field) => (e) => {
    setForm({ ...form, [field]: e.currentTarget.value });
    if (errors[field]) setErrors({ ...errors, [field]: undefined });
  };
  const submit = (e) => {
    e.preventDefault();
    setBusy(true);
    const body = { title: form.title.trim(), description: form.description.trim() || undefined };
    if (form.scope === 'all') body.allChecks = true;
    else {
      body.checkIds = form.checkIds;
      body.folders = list(form.folders);
      body.tags = list(form.tags);
    }
    if (form.kind === 'once') Object.assign(body, { startsAt: instant(form.startsAt), endsAt: instant(form.endsAt) });
    else Object.assign(body, { schedule: form.schedule.trim(), durationMinutes: Number(form.durationMinutes), timezone: form.timezone.trim() || undefined });
    api('POST', '/maintenance-windows', body, { 'Idempotency-Key': newIdempotencyKey() }).then(
      () => (toast('Maintenance scheduled'), onDone()),
      (err) => {
        setBusy(false);
        setErrors({ [fieldNamed(err.message, FIELDS) ?? '_']: err.message });
      },
    );
  };
  return html`<form class="card window-form" onSubmit=${submit} novalidate>
    <h2>Schedule maintenance</h2>
    ${errors._ ? html`<p class="error" role="alert">${errors._}</p>` : ''}
    <${Field} label="Title" error=${errors.title}><input name="title" value=${form.title} onInput=${set('title')} maxlength="200" required /><//>
    <${Field} label="Description" error=${errors.description} hint="Optional; shown on status pages"><textarea name="description" rows="2" value=${form.description} onInput=${set('description')}></textarea><//>
    <fieldset><legend>When</legend>
      <label class="check"><input type="radio" name="kind" value="once" checked=${form.kind === 'once'} onChange=${set('kind')} /> Once</label>
      <label class="check"><input type="radio" name="kind" value="recurring" checked=${form.kind === 'recurring'} onChange=${set('kind')} /> Recurring</label>
      ${form.kind === 'once'
        ? html`<div class="grid2">
          <${Field} label="Starts" error=${errors.startsAt}><input type="datetime-local" name="startsAt" value=${form.startsAt} onInput=${set('startsAt')} /><//>
          <${Field} label="Ends" error=${errors.endsAt}><input type="datetime-local" name="endsAt" value=${form.endsAt} onInput=${set('endsAt')} /><//></div>`
        : html`<div class="grid3">
          <${Field} label="Cron schedule" error=${errors.schedule} hint="5 fields, e.g. 0 2 * * 0 (Sundays 02:00)"><input name="schedule" value=${form.schedule} onInput=${set('schedule')} /><//>
          <${Field} label="Minutes each time" error=${errors.durationMinutes}><input name="durationMinutes" inputmode="numeric" value=${form.durationMinutes} onInput=${set('durationMinutes')} /><//>
          <${Field} label="Time zone" error=${errors.timezone} hint="IANA, e.g. Europe/Berlin"><input name="timezone" value=${form.timezone} onInput=${set('timezone')} /><//></div>`}
    </fieldset>
    <fieldset><legend>Which checks</legend>
      <label class="check"><input type="radio" name="scope" value="checks" checked=${form.scope === 'checks'} onChange=${set('scope')} /> Chosen checks, folders and tags</label>
      <label class="check"><input type="radio" name="scope" value="all" checked=${form.scope === 'all'} onChange=${set('scope')} /> Every check</label>
      ${form.scope === 'checks' ? html`
        ${errors.checkIds ? html`<p class="field-error" role="alert">${errors.checkIds}</p>` : ''}
        <${CheckPicker} legend="Checks" value=${form.checkIds} onChange=${(checkIds) => setForm({ ...form, checkIds })} />
        <div class="grid2">
          <${Field} label="Folders" error=${errors.folders} hint="Comma-separated"><input name="folders" value=${form.folders} onInput=${set('folders')} /><//>
          <${Field} label="Tags" error=${errors.tags} hint="Comma-separated, e.g. env:production"><input name="tags" value=${form.tags} onInput=${set('tags')} /><//>
        </div>` : ''}
    </fieldset>
    <div class="actions"><button class="primary" type="submit" disabled=${busy}>Schedule</button><button type="button" onClick=${onDone}>Cancel</button></div>
  </form>`;
}
