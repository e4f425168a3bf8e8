import type { EmailSettings, TargetOptions, Webhook } from '../store/alert-store.js';
import { cutUrl } from './webhook-url.js';

/** Output shapes of spec 2.8 and 2.9. A webhook's URL only ever leaves cut to scheme and host. */

/** Issue 17's fields, after the spec's. */
const targetOptionsView = (t: TargetOptions) => ({ checkIds: t.checkIds, folders: t.folders, tags: t.tags, remindEveryMinutes: t.remindEveryMinutes });

export function emailSettingsView(s: EmailSettings) {
  return { ...emailSettingsUpdateView(s), updatedAt: s.updatedAt };
}

/** The update response: the same without `updatedAt` (spec 2.8). */
export function emailSettingsUpdateView(s: EmailSettings) {
  return { enabled: s.enabled, recipients: s.recipients, events: s.events, emailFormat: s.emailFormat, ...targetOptionsView(s) };
}

export function webhookView(w: Webhook) {
  return { id: w.id, name: w.name, url: cutUrl(w.url), webhookType: w.webhookType, events: w.events, enabled: w.enabled, ...targetOptionsView(w) };
}

/** List items add `createdAt` (spec 2.9: "list only"). */
export function webhookListItem(w: Webhook) {
  return { ...webhookView(w), createdAt: w.createdAt };
}
