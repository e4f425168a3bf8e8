import { stringify } from 'yaml';
import { DEFAULT_EVENTS } from '../alerts/alert-events.js';
import { isDeepStrictEqual } from 'node:util';
import type { Check } from '../domain/records.js';
import type { EmailSettings, Webhook } from '../store/alert-store.js';
import type { StatusPage } from '../store/status-pages.js';
import { writtenFields } from './check-fields.js';
import { FILE_VERSION } from './file-schema.js';
import type { KeyIndex } from './object-keys.js';
import type { WindowView } from '../core/maintenance-windows-service.js';
import { windowStateOf, writtenWindow } from './window-state.js';

/** An environment variable an exported file refers to, and where. */
export interface FileVariable {
  name: string;
  path: string;
}

export interface ExportIndexes {
  checks: KeyIndex<Check>;
  webhooks: KeyIndex<Webhook>;
  pages: KeyIndex<StatusPage>;
  windows: KeyIndex<WindowView>;
}

/** Request headers whose values are credentials: exported as references, never in clear. */
const SECRET_HEADER = /authorization|cookie|token|secret|password|passwd|api[-_]?key|auth/i;

/** `ops-slack` → `OPS_SLACK`, for variable names. */
function constantCase(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'X';
}

/** Text of the file is read with `${NAME}` substituted: a literal `${` is written `$${`. */
function escaped<T>(value: T): T {
  if (typeof value === 'string') return value.replaceAll('${', () => '$${') as T;
  if (Array.isArray(value)) return value.map(escaped) as T;
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, escaped(v)])) as T;
  return value;
}

/**
 * An account's monitoring as a file (issue 30): every check under its key with the fields that
 * differ from the defaults, webhooks, email settings, status pages and maintenance windows;
 * objects name checks by key. Secrets (webhook URLs and
 * signing secrets, credential headers) are written as `${VIGIL_…}` references with stable
 * names, listed in `variables`; their values are never written.
 */
export function exportFile(
  state: { checks: Check[]; webhooks: Webhook[]; email: EmailSettings | null; pages: StatusPage[]; windows: WindowView[] },
  keys: ExportIndexes,
): { file: Record<string, unknown>; variables: FileVariable[] } {
  const variables: FileVariable[] = [];
  const reference = (name: string, path: string) => {
    variables.push({ name, path });
    return `\${${name}}`;
  };
  const checkKey = (id: string) => keys.checks.keyOf.get(id);
  const checkKeys = (ids: readonly string[]) => ids.map(checkKey).filter((k): k is string => k !== undefined);

  const checks: Record<string, unknown> = {};
  for (const check of state.checks) {
    const key = keys.checks.keyOf.get(check.id)!;
    const entry: Record<string, unknown> = escaped(writtenFields(check));
    // Dependencies by key: a file names no id, so it can be applied to another account.
    if (entry.dependsOn) {
      const dependsOn = checkKeys(check.dependsOn);
      if (dependsOn.length) entry.dependsOn = dependsOn;
      else delete entry.dependsOn;
    }
    if (entry.requestHeaders) {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(check.headers)) {
        headers[name] = SECRET_HEADER.test(name)
          ? reference(`VIGIL_CHECK_${constantCase(key)}_HEADER_${constantCase(name)}`, `checks.${key}.requestHeaders.${name}`)
          : escaped(value);
      }
      entry.requestHeaders = headers;
    }
    if (check.disabled) entry.paused = true;
    checks[key] = entry;
  }

  const webhooks: Record<string, unknown> = {};
  for (const hook of state.webhooks) {
    const key = keys.webhooks.keyOf.get(hook.id)!;
    const name = `VIGIL_WEBHOOK_${constantCase(key)}`;
    webhooks[key] = {
      name: escaped(hook.name),
      url: reference(`${name}_URL`, `webhooks.${key}.url`),
      webhookType: hook.webhookType,
      ...(isDeepStrictEqual(hook.events, DEFAULT_EVENTS) ? {} : { events: hook.events }),
      ...(hook.enabled ? {} : { enabled: false }),
      ...(hook.secret === null ? {} : { secret: reference(`${name}_SECRET`, `webhooks.${key}.secret`) }),
      ...routing(hook, checkKeys),
    };
  }

  const file: Record<string, unknown> = { version: FILE_VERSION };
  if (state.checks.length) file.checks = checks;
  if (state.webhooks.length) file.webhooks = webhooks;
  if (state.email) {
    const e = state.email;
    file.email = escaped({
      ...(e.enabled ? {} : { enabled: false }),
      recipients: e.recipients,
      ...(isDeepStrictEqual(e.events, DEFAULT_EVENTS) ? {} : { events: e.events }),
      ...(e.emailFormat === 'html' ? {} : { emailFormat: e.emailFormat }),
      ...routing(e, checkKeys),
    });
  }
  if (state.pages.length) {
    file.statusPages = Object.fromEntries(
      state.pages.map((page) => {
        const key = keys.pages.keyOf.get(page.id)!;
        return [
          key,
          escaped({
            ...(page.slug === key ? {} : { slug: page.slug }),
            title: page.title,
            ...(page.description === null ? {} : { description: page.description }),
            ...(page.customDomain === null ? {} : { customDomain: page.customDomain }),
            ...(page.tags.length ? { tags: page.tags } : {}),
            ...(page.autoIncidents ? { autoIncidents: true } : {}),
            ...(page.webhookSubscriptions ? { webhookSubscriptions: true } : {}),
            ...(page.logoUrl === null ? {} : { logoUrl: page.logoUrl }),
            ...(page.accentColor === null ? {} : { accentColor: page.accentColor }),
            ...(page.footerText === null ? {} : { footerText: page.footerText }),
            ...(page.favicon === null ? {} : { favicon: page.favicon }),
            ...(page.hidePoweredBy ? { hidePoweredBy: true } : {}),
            ...(page.embedAllowedOrigins.length ? { embedAllowedOrigins: page.embedAllowedOrigins } : {}),
            checks: checkKeys(page.checkIds),
          }),
        ];
      }),
    );
  }
  if (state.windows.length) {
    file.maintenanceWindows = Object.fromEntries(
      state.windows.map((w) => [keys.windows.keyOf.get(w.id)!, escaped(writtenWindow(windowStateOf(w, checkKeys)))]),
    );
  }
  return { file, variables };
}

function routing(target: { checkIds: string[]; folders: string[]; tags: string[]; remindEveryMinutes: number | null }, checkKeys: (ids: readonly string[]) => string[]) {
  const checks = checkKeys(target.checkIds);
  return {
    ...(checks.length ? { checks } : {}),
    ...(target.folders.length ? { folders: target.folders } : {}),
    ...(target.tags.length ? { tags: target.tags } : {}),
    ...(target.remindEveryMinutes === null ? {} : { remindEveryMinutes: target.remindEveryMinutes }),
  };
}

/** The file as text: YAML with the editor's schema line, or JSON with `$schema`. */
export function fileText(file: Record<string, unknown>, format: 'yaml' | 'json', schemaUrl: string): string {
  if (format === 'json') return `${JSON.stringify({ $schema: schemaUrl, ...file }, null, 2)}\n`;
  return `# yaml-language-server: $schema=${schemaUrl}\n${stringify(file, { lineWidth: 0 })}`;
}
