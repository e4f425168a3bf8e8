import { html } from 'htm/preact';

// What email settings and webhooks share on the Alerts page: the event choice and where the
// API's messages about their fields belong.

export const EVENTS = ['website_down', 'website_up', 'website_error', 'ssl_error', 'ssl_warning', 'domain_expiring', 'domain_expired', 'domain_renewed'];

const ALERT_FIELDS = /\b(url|name|webhookType|events|secret|checkIds|folders|remindEveryMinutes|recipients|emailFormat)\b/;

/** The first field an API message names, else null. */
export const alertFieldOf = (message) => ALERT_FIELDS.exec(message)?.[1] ?? null;

export function Events({ value, onChange, error }) {
  const flip = (e) => onChange(value.includes(e) ? value.filter((x) => x !== e) : [...value, e]);
  return html`<fieldset class="events"><legend>Events</legend>${EVENTS.map(
    (e) => html`<label class="check"><input type="checkbox" name="event" value=${e} checked=${value.includes(e)} onChange=${() => flip(e)} /> ${e.replace('_', ' ')}</label>`,
  )}${error ? html`<small class="field-error" role="alert">${error}</small>` : ''}</fieldset>`;
}
