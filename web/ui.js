import { html } from 'htm/preact';
import { useState } from 'preact/hooks';

/** A short message in the corner, read out by screen readers. */
export function toast(message, kind = 'info') {
  const box = document.getElementById('toasts');
  const el = document.createElement('div');
  el.className = `toast ${kind}`;
  el.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  el.textContent = message;
  box.append(el);
  setTimeout(() => el.remove(), 5000);
}

/** A modal confirmation (native <dialog>: focus trapped, Escape cancels); resolves true on confirm. */
export function confirmDialog(title, text, action) {
  return new Promise((resolve) => {
    const dialog = document.createElement('dialog');
    dialog.className = 'confirm';
    const h = document.createElement('h2');
    h.textContent = title;
    const p = document.createElement('p');
    p.textContent = text;
    const form = document.createElement('form');
    form.method = 'dialog';
    const cancel = Object.assign(document.createElement('button'), { value: 'cancel', textContent: 'Cancel' });
    const ok = Object.assign(document.createElement('button'), { value: 'ok', textContent: action, className: 'danger' });
    form.append(cancel, ok);
    dialog.append(h, p, form);
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'ok');
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}

export function CopyButton({ text }) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    navigator.clipboard?.writeText(text).then(
      () => {
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      },
      () => toast('Copy failed: select the text and copy it', 'error'),
    );
  return html`<button type="button" onClick=${copy} aria-live="polite">${copied ? 'Copied' : 'Copy'}</button>`;
}

/** A labelled form field with the API's message for it below. */
export function Field({ label, error, hint, children }) {
  return html`<label class=${`field${error ? ' invalid' : ''}`}>
    <span>${label}</span>
    ${children}
    ${hint && !error ? html`<small class="muted">${hint}</small>` : ''}
    ${error ? html`<small class="field-error" role="alert">${error}</small>` : ''}
  </label>`;
}

/** Which of `fields` a 400 message is about: the first one it names (messages start with the field's path). */
export function fieldNamed(message, fields) {
  let best = null;
  for (const f of fields) {
    const at = message.search(new RegExp(`\\b${f}\\b`));
    if (at >= 0 && (best === null || at < best.at)) best = { f, at };
  }
  return best?.f ?? null;
}
