import { html } from 'htm/preact';
import { useChecks } from './live.js';
import { Field } from './ui.js';

// Which checks alert a target (checkIds, folders: both empty means every check) and how often a
// check that stays down is reminded about: the same fields on email settings and webhooks.

const REMIND = [['', 'Never'], ['5', 'Every 5 min'], ['15', 'Every 15 min'], ['30', 'Every 30 min'], ['60', 'Every hour'], ['240', 'Every 4 h'], ['1440', 'Every day']];

/** The API's fields as the form edits them. */
export const routingDraft = (t) => ({
  some: (t?.checkIds?.length ?? 0) + (t?.folders?.length ?? 0) > 0,
  checkIds: t?.checkIds ?? [],
  folders: t?.folders ?? [],
  remind: t?.remindEveryMinutes ? String(t.remindEveryMinutes) : '',
});

/** The draft as the API takes it. */
export const routingBody = (r) => ({
  checkIds: r.some ? r.checkIds : [],
  folders: r.some ? r.folders : [],
  remindEveryMinutes: r.remind === '' ? null : Number(r.remind),
});

/** "Every check", or what the route names, with check names where the list knows them. */
export function routeSummary(t, names) {
  if (t.checkIds.length === 0 && t.folders.length === 0) return 'Every check';
  const parts = [
    ...t.folders.map((f) => `folder ${f}`),
    ...t.checkIds.map((id) => names.get(id) ?? id),
  ];
  return `Only ${parts.join(', ')}`;
}

const flip = (list, x) => (list.includes(x) ? list.filter((y) => y !== x) : [...list, x]);

export function Routing({ value, onChange, errors = {} }) {
  const checks = useChecks();
  const folders = [...new Set(checks.map((c) => c.folder).filter(Boolean))].sort();
  const set = (patch) => onChange({ ...value, ...patch });
  // Remind options keep a value set elsewhere (the API takes any 5 to 10080).
  const remind = REMIND.some(([v]) => v === value.remind) ? REMIND : [...REMIND, [value.remind, `Every ${value.remind} min`]];
  return html`<fieldset class="routing">
    <legend>Checks</legend>
    <label class="check"><input type="radio" name="route" value="all" checked=${!value.some} onChange=${() => set({ some: false })} /> Every check</label>
    <label class="check"><input type="radio" name="route" value="some" checked=${value.some} onChange=${() => set({ some: true })} /> Only the checks and folders chosen</label>
    ${value.some
      ? html`<div class="route-picks">
          ${errors.routing ? html`<p class="field-error" role="alert">${errors.routing}</p>` : ''}
          ${folders.length
            ? html`<div class="picks" role="group" aria-label="Folders">${folders.map(
                (f) => html`<label class="check"><input type="checkbox" name="folder" value=${f} checked=${value.folders.includes(f)} onChange=${() => set({ folders: flip(value.folders, f) })} /> <span>folder ${f}</span></label>`,
              )}</div>`
            : ''}
          <div class="picks" role="group" aria-label="Checks">${checks.map(
            (c) => html`<label class="check"><input type="checkbox" name="checkId" value=${c.id} checked=${value.checkIds.includes(c.id)} onChange=${() => set({ checkIds: flip(value.checkIds, c.id) })} /> <span>${c.name}</span></label>`,
          )}</div>
        </div>`
      : ''}
    <${Field} label="Reminders while a check stays down" error=${errors.remindEveryMinutes} hint="Repeats website_down, marked as a reminder">
      <select name="remindEveryMinutes" value=${value.remind} onChange=${(e) => set({ remind: e.currentTarget.value })}>
        ${remind.map(([v, label]) => html`<option value=${v}>${label}</option>`)}
      </select>
    <//>
  </fieldset>`;
}
