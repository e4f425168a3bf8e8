import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { useChecks } from './live.js';

const SHOWN = 200;

/**
 * Choose checks from the list the dashboard already holds: a search box over names and URLs,
 * a checkbox per check, and the chosen ones in order (moved up and down when `ordered`).
 */
export function CheckPicker({ value, onChange, ordered = false, legend }) {
  const checks = useChecks();
  const [q, setQ] = useState('');
  const byId = new Map(checks.map((c) => [c.id, c]));
  const needle = q.trim().toLowerCase();
  const matching = checks.filter((c) => !needle || c.name.toLowerCase().includes(needle) || c.url.toLowerCase().includes(needle));
  const flip = (id) => onChange(value.includes(id) ? value.filter((x) => x !== id) : [...value, id]);
  const move = (i, by) => {
    const next = [...value];
    [next[i], next[i + by]] = [next[i + by], next[i]];
    onChange(next);
  };
  return html`<fieldset class="picker">
    <legend>${legend} (${value.length} chosen)</legend>
    ${value.length > 0 ? html`<ol class="chosen">${value.map(
      (id, i) => html`<li data-id=${id}><span class="break">${byId.get(id)?.name ?? id}</span><span class="actions">
        ${ordered ? html`<button type="button" class="ghost" aria-label="Move up" disabled=${i === 0} onClick=${() => move(i, -1)}>↑</button>
          <button type="button" class="ghost" aria-label="Move down" disabled=${i === value.length - 1} onClick=${() => move(i, 1)}>↓</button>` : ''}
        <button type="button" class="ghost" aria-label=${`Remove ${byId.get(id)?.name ?? id}`} onClick=${() => flip(id)}>×</button></span></li>`,
    )}</ol>` : ''}
    <input type="search" class="picker-search" placeholder="Search checks" aria-label="Search checks to choose" value=${q} onInput=${(e) => setQ(e.currentTarget.value)} />
    <div class="picker-list">${matching.slice(0, SHOWN).map(
      (c) => html`<label class="check" data-id=${c.id}><input type="checkbox" checked=${value.includes(c.id)} onChange=${() => flip(c.id)} />
        <span class=${`dot ${c.status}`}></span><span class="break">${c.name} <small class="muted">${c.folder ? `${c.folder} · ` : ''}${c.url}</small></span></label>`,
    )}${matching.length > SHOWN ? html`<p class="muted small">${matching.length - SHOWN} more: search to narrow.</p>` : ''}</div>
  </fieldset>`;
}
