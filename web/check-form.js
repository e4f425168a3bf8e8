import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, newIdempotencyKey } from './api.js';
import { Field, fieldNamed, toast } from './ui.js';

const TYPES = ['website', 'rest_endpoint', 'redirect', 'ping', 'tcp', 'udp', 'dns', 'websocket', 'smtp', 'pop3', 'imap', 'heartbeat', 'domain'];
const PATCH_TYPES = ['website', 'rest_endpoint', 'ping', 'tcp', 'udp', 'dns', 'smtp', 'pop3', 'imap'];
const HTTP = ['website', 'rest_endpoint', 'redirect'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];
const URL_HINT = {
  website: 'https://example.com/', rest_endpoint: 'https://api.example.com/health', redirect: 'https://example.com/old-path',
  ping: 'example.com or 192.0.2.1', tcp: 'tcp://example.com:5432', udp: 'udp://example.com:53', dns: 'example.com',
  websocket: 'wss://example.com/socket', smtp: 'smtp://mail.example.com:25', pop3: 'pop3://mail.example.com:110',
  imap: 'imap://mail.example.com:143', domain: 'example.com',
};
const FIELDS = ['name', 'type', 'url', 'checkFrequency', 'folder', 'tags', 'httpMethod', 'expectedStatusCodes', 'requestHeaders', 'requestBody',
  'responseValidation', 'containsText', 'jsonPath', 'expectedValue', 'responseTimeLimit', 'downConfirmationAttempts', 'pingPackets',
  'schedule', 'timezone', 'gracePeriod', 'cacheControlNoCache', 'immediateRecheckEnabled'];

const empty = {
  name: '', type: 'website', url: '', checkFrequency: '5', folder: '', tags: '', httpMethod: 'GET', expectedStatusCodes: '200', requestHeaders: '',
  requestBody: '', containsText: '', jsonPath: '', expectedValue: '', responseTimeLimit: '', downConfirmationAttempts: '',
  pingPackets: '', schedule: '', timezone: '', gracePeriod: '', cacheControlNoCache: false, immediateRecheckEnabled: true,
};

/** The form's text fields from a check record (GET /checks/{id}). */
function fromCheck(c) {
  const v = c.responseValidation ?? {};
  return {
    ...empty, name: c.name, type: c.type, url: c.type === 'heartbeat' ? '' : c.url, checkFrequency: String(c.interval), folder: c.folder ?? '',
    tags: (c.tags ?? []).join(', '),
    httpMethod: c.method ?? 'GET', expectedStatusCodes: (c.expectedStatusCodes ?? [c.expectedStatus]).join(', '),
    requestHeaders: Object.entries(c.headers ?? {}).map(([k, val]) => `${k}: ${val}`).join('\n'), requestBody: c.body ?? '',
    containsText: (v.containsText ?? []).join('\n'), jsonPath: v.jsonPath ?? '', expectedValue: v.expectedValue ?? '',
    responseTimeLimit: c.responseTimeLimit == null ? '' : String(c.responseTimeLimit),
    downConfirmationAttempts: c.downConfirmationAttempts == null ? '' : String(c.downConfirmationAttempts),
    pingPackets: c.pingPackets == null ? '' : String(c.pingPackets), schedule: c.schedule ?? '', timezone: c.timezone ?? '',
    gracePeriod: c.gracePeriod == null ? '' : String(c.gracePeriod), cacheControlNoCache: !!c.cacheControlNoCache,
    immediateRecheckEnabled: c.immediateRecheckEnabled !== false,
  };
}

const num = (s) => (s.trim() === '' ? undefined : Number(s));
const lines = (s) => s.split('\n').map((l) => l.trim()).filter(Boolean);

/** The request body for the API: only what applies to the type; on edit, cleared optional fields become null. */
function toBody(f, editing) {
  const clear = editing ? null : undefined;
  const tags = f.tags.split(',').map((t) => t.trim()).filter(Boolean);
  const b = { name: f.name.trim() || undefined, checkFrequency: num(f.checkFrequency), folder: f.folder.trim() || clear, tags: tags.length || editing ? tags : undefined };
  if (!editing || PATCH_TYPES.includes(f.type)) b.type = f.type;
  if (f.type !== 'heartbeat') b.url = f.url.trim();
  if (f.type !== 'heartbeat' && f.type !== 'domain') b.downConfirmationAttempts = num(f.downConfirmationAttempts);
  if (HTTP.includes(f.type)) {
    b.httpMethod = f.httpMethod;
    b.expectedStatusCodes = f.expectedStatusCodes.split(/[\s,]+/).filter(Boolean).map(Number);
    const headers = {};
    for (const l of lines(f.requestHeaders)) {
      const i = l.indexOf(':');
      headers[i < 0 ? l : l.slice(0, i).trim()] = i < 0 ? '' : l.slice(i + 1).trim();
    }
    b.requestHeaders = headers;
    b.requestBody = f.requestBody.trim() === '' ? clear : f.requestBody;
    const rv = {};
    if (lines(f.containsText).length) rv.containsText = lines(f.containsText);
    if (f.jsonPath.trim()) rv.jsonPath = f.jsonPath.trim();
    if (f.expectedValue !== '') rv.expectedValue = f.expectedValue;
    b.responseValidation = Object.keys(rv).length ? rv : clear;
    b.responseTimeLimit = num(f.responseTimeLimit) ?? clear;
    b.cacheControlNoCache = f.cacheControlNoCache;
    b.immediateRecheckEnabled = f.immediateRecheckEnabled;
  }
  if (f.type === 'udp') b.requestBody = f.requestBody === '' ? clear : f.requestBody;
  if (f.type === 'ping') b.pingPackets = num(f.pingPackets);
  if (f.type === 'heartbeat') {
    b.schedule = f.schedule.trim() || clear;
    b.timezone = f.timezone.trim() || clear;
    b.gracePeriod = num(f.gracePeriod);
  }
  return JSON.parse(JSON.stringify(b)); // drops the undefined fields
}

/** Which field a 400 message is about: the first field name it mentions (messages start with the field's path). */
export function fieldOf(message) {
  const f = fieldNamed(message, FIELDS);
  return f === 'responseValidation' ? (/jsonPath/.test(message) ? 'jsonPath' : 'containsText') : f;
}

/** Create (no id) or edit a check of any type; the API's messages appear under their field. */
export function CheckForm({ id }) {
  const [form, setForm] = useState(id ? null : empty);
  const [errors, setErrors] = useState({});
  const [busy, setBusy] = useState(false);
  const [key] = useState(newIdempotencyKey);
  useEffect(() => {
    if (id) api('GET', `/checks/${id}`).then(({ data }) => setForm(fromCheck(data)), (err) => setErrors({ _: err.message }));
  }, [id]);
  if (!form) return html`<p class="muted">${errors._ ?? 'Loading…'}</p>`;

  const set = (field) => (e) => {
    const t = e.currentTarget;
    setForm({ ...form, [field]: t.type === 'checkbox' ? t.checked : t.value });
    if (errors[field]) setErrors({ ...errors, [field]: undefined });
  };
  const text = (field, attrs = {}) => html`<input name=${field} value=${form[field]} onInput=${set(field)} aria-invalid=${!!errors[field]} ...${attrs} />`;
  const submit = (e) => {
    e.preventDefault();
    setBusy(true);
    const request = id ? api('PATCH', `/checks/${id}`, toBody(form, true)) : api('POST', '/checks', toBody(form, false), { 'Idempotency-Key': key });
    request.then(
      (r) => {
        toast(id ? 'Saved' : 'Check created');
        location.hash = `#/checks/${id ?? r.data.id}`;
      },
      (err) => {
        const field = fieldOf(err.message);
        setErrors(field ? { [field]: err.message } : { _: err.message });
        setBusy(false);
        document.querySelector(field ? `[name="${field}"]` : '.form-error')?.focus?.();
      },
    );
  };
  const t = form.type;
  const typeLocked = id && !PATCH_TYPES.includes(t);

  return html`<form class="card check-form" onSubmit=${submit} novalidate>
    <h1>${id ? 'Edit check' : 'New check'}</h1>
    ${errors._ ? html`<p class="error form-error" role="alert" tabindex="-1">${errors._}</p>` : ''}
    <div class="grid2">
      <${Field} label="Type" error=${errors.type}>
        <select name="type" value=${t} onChange=${set('type')} disabled=${typeLocked}>
          ${(id && !typeLocked ? PATCH_TYPES : TYPES).map((x) => html`<option value=${x}>${x}</option>`)}
        </select>
      <//>
      <${Field} label="Name" error=${errors.name} hint="Defaults to the URL">${text('name', { maxlength: 200 })}<//>
    </div>
    ${t !== 'heartbeat' ? html`<${Field} label=${t === 'domain' ? 'Domain' : t === 'ping' ? 'Host' : 'URL'} error=${errors.url} hint=${URL_HINT[t]}>${text('url', { required: true, autocomplete: 'off' })}<//>` : ''}
    <div class="grid3">
      <${Field} label=${t === 'heartbeat' ? 'Expected every (minutes)' : 'Check every (minutes)'} error=${errors.checkFrequency}>${text('checkFrequency', { inputmode: 'decimal' })}<//>
      <${Field} label="Folder" error=${errors.folder}>${text('folder')}<//>
      <${Field} label="Tags" error=${errors.tags} hint="Comma-separated: env:production, team:web">${text('tags', { autocomplete: 'off' })}<//>
      ${t !== 'heartbeat' && t !== 'domain' ? html`<${Field} label="Failures before down" error=${errors.downConfirmationAttempts}>${text('downConfirmationAttempts', { inputmode: 'numeric', placeholder: 'default' })}<//>` : ''}
    </div>
    ${HTTP.includes(t) ? html`<fieldset><legend>HTTP</legend>
      <div class="grid3">
        <${Field} label="Method" error=${errors.httpMethod}><select name="httpMethod" value=${form.httpMethod} onChange=${set('httpMethod')}>${METHODS.map((m) => html`<option>${m}</option>`)}</select><//>
        <${Field} label="Expected status codes" error=${errors.expectedStatusCodes}>${text('expectedStatusCodes')}<//>
        <${Field} label="Slow above (ms)" error=${errors.responseTimeLimit}>${text('responseTimeLimit', { inputmode: 'numeric' })}<//>
      </div>
      <${Field} label="Request headers" error=${errors.requestHeaders} hint="One per line: Name: value"><textarea name="requestHeaders" rows="2" value=${form.requestHeaders} onInput=${set('requestHeaders')}></textarea><//>
      <${Field} label="Request body (JSON)" error=${errors.requestBody}><textarea name="requestBody" rows="2" value=${form.requestBody} onInput=${set('requestBody')}></textarea><//>
      <${Field} label="Body must contain" error=${errors.containsText} hint="One text per line"><textarea name="containsText" rows="2" value=${form.containsText} onInput=${set('containsText')}></textarea><//>
      <div class="grid2">
        <${Field} label="JSONPath" error=${errors.jsonPath} hint="e.g. $.status">${text('jsonPath')}<//>
        <${Field} label="Expected value" error=${errors.expectedValue}>${text('expectedValue')}<//>
      </div>
      <label class="check"><input type="checkbox" name="cacheControlNoCache" checked=${form.cacheControlNoCache} onChange=${set('cacheControlNoCache')} /> Send Cache-Control: no-cache</label>
      <label class="check"><input type="checkbox" name="immediateRecheckEnabled" checked=${form.immediateRecheckEnabled} onChange=${set('immediateRecheckEnabled')} /> Recheck at once after a failure</label>
    </fieldset>` : ''}
    ${t === 'udp' ? html`<${Field} label="Datagram to send" error=${errors.requestBody}>${text('requestBody')}<//>` : ''}
    ${t === 'ping' ? html`<${Field} label="Packets (1–5)" error=${errors.pingPackets}>${text('pingPackets', { inputmode: 'numeric' })}<//>` : ''}
    ${t === 'heartbeat' ? html`<fieldset><legend>Schedule</legend><div class="grid3">
      <${Field} label="Cron schedule" error=${errors.schedule} hint="Instead of an interval, e.g. 0 3 * * *">${text('schedule')}<//>
      <${Field} label="Timezone" error=${errors.timezone} hint="e.g. Europe/Paris">${text('timezone')}<//>
      <${Field} label="Grace (seconds)" error=${errors.gracePeriod}>${text('gracePeriod', { inputmode: 'numeric' })}<//>
    </div></fieldset>` : ''}
    <div class="actions">
      <button type="submit" class="primary" disabled=${busy}>${id ? 'Save' : 'Create check'}</button>
      <a class="button" href=${id ? `#/checks/${id}` : '#/'}>Cancel</a>
    </div>
  </form>`;
}
