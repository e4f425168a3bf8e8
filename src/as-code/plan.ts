import { isDeepStrictEqual } from 'node:util';
import type { Config } from '../config.js';
import type { Account, Check } from '../domain/records.js';
import { ApiError } from '../domain/errors.js';
import { displayName } from '../domain/display-name.js';
import { limitsFor } from '../domain/plans.js';
import { uniqueTags } from '../domain/tags.js';
import { DEFAULT_EVENTS, normalizeEvents } from '../alerts/alert-events.js';
import { normalizeRecipients } from '../alerts/email-settings-service.js';
import { parseWebhookUrl } from '../alerts/webhook-url.js';
import { detectWebhookType } from '../alerts/webhook-type.js';
import type { EmailSettings, Webhook } from '../store/alert-store.js';
import type { StatusPage } from '../store/status-pages.js';
import { pageSettingsOf, type PageSettings } from '../status-pages/status-pages-service.js';
import type { ConfigKey, ConfigKind } from '../store/config-keys.js';
import type { WindowView } from '../core/maintenance-windows-service.js';
import { applyInput, validateSettings } from '../core/check-settings.js';
import { declaredFields, entrySettings, fieldsOfSettings, type CheckFields } from './check-fields.js';
import { dependencyCycle } from './dependency-cycle.js';
import type { CheckEntryInput, EmailEntryInput, MonitoringFileInput, StatusPageEntryInput, WebhookEntryInput } from './file-schema.js';
import type { FilePath, MonitoringFileSource } from './file-source.js';
import { indexKeys, type KeyIndex } from './object-keys.js';
import { windowState, windowStateOf, type WindowState } from './window-state.js';

/** The file's sections, as plans name them. */
export type Section = 'checks' | 'webhooks' | 'email' | 'statusPages' | 'maintenanceWindows';

/** Each keyed section's objects, as messages name one. */
const OBJECT_NAME: Record<Exclude<Section, 'email'>, string> = {
  checks: 'check', webhooks: 'webhook', statusPages: 'status page', maintenanceWindows: 'maintenance window',
};

/** One field a change sets. `from` and `to` are left out for secrets and long values (a plan never shows a secret). */
export interface FieldChange {
  field: string;
  from?: unknown;
  to?: unknown;
}

export interface PlannedChange {
  action: 'create' | 'update' | 'delete';
  section: Section;
  key: string;
  /** The key the object had, when the entry renamed it (`renamedFrom`). */
  renamedFrom?: string;
  fields: FieldChange[];
}

/** What applying the file does; the same from the CLI, the API and MCP. */
export interface Plan {
  changes: PlannedChange[];
  /** Objects in the file that already are as it says. */
  unchanged: Record<Section, number>;
  /** The account's objects that are not in the file: left alone (deleted with prune). */
  notInFile: Record<Exclude<Section, 'email'>, number>;
  /** What is allowed but likely a mistake (two checks of one name): printed, never refused. */
  warnings: string[];
  summary: { create: number; update: number; delete: number; unchanged: number };
}

/** Everything of the account a file can speak of, read before planning. */
export interface Snapshot {
  checks: Check[];
  webhooks: Webhook[];
  email: EmailSettings | null;
  pages: StatusPage[];
  windows: WindowView[];
  keys: Record<ConfigKind, ConfigKey[]>;
}

/** Desired alert target options, with checks named by key. */
interface Routing {
  checks: string[];
  folders: string[];
  tags: string[];
  remindEveryMinutes: number | null;
}

export interface WebhookState extends Routing {
  name: string;
  url: string;
  webhookType: Webhook['webhookType'];
  events: string[];
  enabled: boolean;
  secret: string | null;
}

export interface EmailState extends Routing {
  enabled: boolean;
  recipients: string[];
  events: string[];
  emailFormat: EmailSettings['emailFormat'];
}

export interface PageState extends PageSettings {
  slug: string;
  checks: string[];
}

/**
 * One step of the unit of work, with what it needs to run. A check's dependencies (`dependsOn`,
 * keys) are set once every check of the file exists; an update that drops some first keeps
 * only `dependedOn`'s remaining ones, so no step of the unit can close a cycle (monitoring-as-code.ts).
 */
export type Step =
  | { section: 'checks'; action: 'create'; key: string; entry: CheckEntryInput; dependsOn: string[] }
  | {
    section: 'checks'; action: 'update'; key: string; id: string; patch: Partial<CheckFields>; paused: boolean | null;
    /** The keys it will depend on, when they change (else null); `dependedOn`: its dependencies now, by id. */
    dependsOn: string[] | null; dependedOn: string[];
  }
  | { section: 'checks'; action: 'delete'; key: string; id: string }
  | { section: 'webhooks'; action: 'create'; key: string; state: WebhookState }
  | { section: 'webhooks'; action: 'update'; key: string; id: string; patch: Partial<WebhookState> }
  | { section: 'webhooks'; action: 'delete'; key: string; id: string }
  | { section: 'email'; action: 'create' | 'update'; key: 'email'; patch: Partial<EmailState> }
  | { section: 'statusPages'; action: 'create'; key: string; state: PageState }
  | { section: 'statusPages'; action: 'update'; key: string; id: string; patch: Partial<PageState> }
  | { section: 'statusPages'; action: 'delete'; key: string; id: string }
  | { section: 'maintenanceWindows'; action: 'create'; key: string; state: WindowState }
  | { section: 'maintenanceWindows'; action: 'update'; key: string; id: string; patch: Partial<WindowState> }
  | { section: 'maintenanceWindows'; action: 'delete'; key: string; id: string };

export interface PlanResult {
  plan: Plan;
  steps: Step[];
  /** After the unit: the key of each object in the file or kept, by kind (ids of creates filled in as they happen). */
  keptKeys: Record<ConfigKind, ConfigKey[]>;
  /** Targets to check for private addresses before the unit (I/O). */
  addresses: Array<{ path: FilePath; check?: { id: string | null; type: Check['type']; url: string }; webhookUrl?: string }>;
}

/** Fields whose values a plan never shows: secrets, or text that may hold one. */
const HIDDEN: Record<Section, ReadonlySet<string>> = {
  checks: new Set(['requestHeaders', 'requestBody']),
  webhooks: new Set(['url', 'secret']),
  email: new Set(),
  statusPages: new Set(),
  maintenanceWindows: new Set(),
};
const MAX_SHOWN_LENGTH = 80;

export interface PlanOptions {
  prune: boolean;
  config: Config;
  account: Account;
}

/** Compares the file with the account and lists what applying it changes (no I/O, no writes). */
export function planFile(source: MonitoringFileSource, snapshot: Snapshot, options: PlanOptions): PlanResult {
  return new Planner(source, snapshot, options).run();
}

class Planner {
  private readonly file: MonitoringFileInput;
  private readonly changes: PlannedChange[] = [];
  private readonly steps: Step[] = [];
  private readonly unchanged: Record<Section, number> = { checks: 0, webhooks: 0, email: 0, statusPages: 0, maintenanceWindows: 0 };
  private readonly notInFile = { checks: 0, webhooks: 0, statusPages: 0, maintenanceWindows: 0 };
  private readonly addresses: PlanResult['addresses'] = [];
  private readonly warnings: string[] = [];
  /** The key each check has once the file is applied (kept checks too), by id; and the keys that will exist. */
  private readonly checkKeyOf = new Map<string, string>();
  private readonly checkKeys = new Set<string>();
  private readonly keptKeys: Record<ConfigKind, ConfigKey[]> = { check: [], webhook: [], status_page: [], maintenance_window: [] };

  constructor(
    private readonly source: MonitoringFileSource,
    private readonly snapshot: Snapshot,
    private readonly options: PlanOptions,
  ) {
    this.file = source.value;
  }

  run(): PlanResult {
    this.planChecks();
    this.planWebhooks();
    this.planEmail();
    this.planPages();
    this.planWindows();
    this.checkLimits();
    const count = (action: PlannedChange['action']) => this.changes.filter((c) => c.action === action).length;
    const unchanged = Object.values(this.unchanged).reduce((a, b) => a + b, 0);
    return {
      plan: {
        changes: this.changes,
        unchanged: this.unchanged,
        notInFile: this.notInFile,
        warnings: this.warnings,
        summary: { create: count('create'), update: count('update'), delete: count('delete'), unchanged },
      },
      steps: this.steps,
      keptKeys: this.keptKeys,
      addresses: this.addresses,
    };
  }

  /** Runs a computation that may throw the services' rules (400s), naming the place in the file. */
  private at<T>(path: FilePath, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw placed(this.source, err, path);
    }
  }

  private record(section: Section, action: PlannedChange['action'], key: string, fields: FieldChange[], renamedFrom?: string): void {
    this.changes.push({ action, section, key, ...(renamedFrom ? { renamedFrom } : {}), fields });
  }

  private planChecks(): void {
    const entries = this.file.checks ?? {};
    const index = indexKeys(this.snapshot.checks, this.snapshot.keys.check, (c) => c.name, 'check');
    const { pairs, unmatched } = this.match('checks', entries, index);
    /** Every check's dependencies once the file is applied, by key: no cycle may be left. */
    const graph = new Map<string, readonly string[]>();
    const kept: Check[] = [];
    for (const check of unmatched) {
      const key = index.keyOf.get(check.id)!;
      if (this.options.prune) {
        this.record('checks', 'delete', key, []);
        this.steps.push({ section: 'checks', action: 'delete', key, id: check.id });
      } else {
        this.notInFile.checks++;
        this.keepCheckKey(check.id, key);
        kept.push(check);
      }
    }
    // The keys of every check first: a dependency may name a check further down the file.
    for (const { key, current } of pairs) {
      if (current === null) this.checkKeys.add(key);
      else this.keepCheckKey(current.id, key);
    }
    for (const check of kept) graph.set(this.checkKeyOf.get(check.id)!, this.routingOf(check.dependsOn));
    for (const { key, entry, current, renamedFrom } of pairs) {
      const path = ['checks', key];
      const declared = this.at(path, () => declaredFields(entry, current?.name ?? null));
      const dependsOn = this.dependenciesOf(key, entry.dependsOn, [...path, 'dependsOn']);
      declared.dependsOn = dependsOn;
      graph.set(key, dependsOn);
      if (current === null) {
        // The service's own rules and the plan's limits for one check (interval, type, region), before any write.
        this.at(path, () => validateSettings(entrySettings(entry), this.options.account, this.options.config, new Set([...Object.keys(entry), 'type'])));
        this.record('checks', 'create', key, shown('checks', writtenOf(declared, entry)));
        this.steps.push({ section: 'checks', action: 'create', key, entry, dependsOn });
        if (declared.url !== undefined) this.addresses.push({ path: [...path, 'url'], check: { id: null, type: declared.type ?? 'website', url: declared.url } });
        continue;
      }
      const now = { ...fieldsOfSettings(current), dependsOn: this.routingOf(current.dependsOn) };
      const { patch, fields } = diff('checks', now, declared, new Set(['dependsOn']));
      const { dependsOn: dependencies, ...settings } = patch;
      if (Object.keys(settings).length > 0) {
        this.at(path, () => validateSettings(applyInput(current, settings), this.options.account, this.options.config, new Set(Object.keys(settings))));
      }
      const paused = entry.paused !== undefined && entry.paused !== current.disabled ? entry.paused : null;
      if (paused !== null) fields.push({ field: 'paused', from: current.disabled, to: paused });
      if (fields.length === 0 && !renamedFrom) {
        this.unchanged.checks++;
        continue;
      }
      this.record('checks', 'update', key, fields, renamedFrom);
      this.steps.push({ section: 'checks', action: 'update', key, id: current.id, patch: settings, paused, dependsOn: dependencies ?? null, dependedOn: current.dependsOn });
      if (patch.url !== undefined || patch.type !== undefined) {
        this.addresses.push({ path: [...path, 'url'], check: { id: current.id, type: declared.type ?? current.type, url: declared.url ?? current.url } });
      }
    }
    this.warnSameNames(pairs.map(({ key, entry, current }) => ({ key, name: declaredFields(entry, current?.name ?? null).name })), kept);
    const before = new Set(this.snapshot.checks.flatMap((c) => this.routingOf(c.dependsOn).map((to) => `${this.checkKeyOf.get(c.id)} ${to}`)));
    this.refuseCycle(graph, entries, before);
  }

  /** Two checks of one name are allowed (a list, an alert cannot tell them apart): said in the plan. */
  private warnSameNames(entries: Array<{ key: string; name: string | undefined }>, kept: readonly Check[]): void {
    const byName = new Map<string, string[]>();
    const named = [...entries, ...kept.map((c) => ({ key: this.checkKeyOf.get(c.id)!, name: c.name }))];
    for (const { key, name } of named) {
      if (name === undefined) continue;
      const folded = name.trim().toLowerCase();
      byName.set(folded, [...(byName.get(folded) ?? []), key]);
    }
    for (const [, keys] of byName) {
      if (keys.length < 2) continue;
      const name = named.find((n) => n.key === keys[0])!.name!;
      const places = keys.map((k) => `checks.${k}`);
      const list = places.length === 2 ? places.join(' and ') : `${places.slice(0, -1).join(', ')} and ${places[places.length - 1]}`;
      this.warnings.push(`${list} are ${places.length === 2 ? 'both' : 'all'} named "${name}": alerts and lists cannot tell them apart`);
    }
  }

  /** A check's dependencies by key: checks of the file or the account, not itself. */
  private dependenciesOf(key: string, keys: readonly string[] | undefined, path: FilePath): string[] {
    const i = (keys ?? []).indexOf(key);
    if (i >= 0) throw this.source.error(`a check cannot depend on itself (${key})`, [...path, i]);
    return this.checkKeysOf(keys, path);
  }

  /**
   * A cycle left by the file is an error at one of its edges that the file writes, preferably
   * one it adds (`before`: the account's edges, `from to` by key; it has no cycle itself).
   */
  private refuseCycle(graph: ReadonlyMap<string, readonly string[]>, entries: Record<string, CheckEntryInput>, before: ReadonlySet<string>): void {
    const cycle = dependencyCycle(graph);
    if (cycle === null) return;
    const ring = cycle.slice(0, -1);
    const written = (key: string, i: number) => entries[key]?.dependsOn?.includes(ring[(i + 1) % ring.length]!) === true;
    const added = ring.findIndex((key, i) => written(key, i) && !before.has(`${key} ${ring[(i + 1) % ring.length]}`));
    const from = Math.max(added >= 0 ? added : ring.findIndex(written), 0);
    const turned = [...ring.slice(from), ...ring.slice(0, from), ring[from]!];
    const key = turned[0]!;
    const index = entries[key]?.dependsOn?.indexOf(turned[1]!) ?? -1;
    throw this.source.error(`dependsOn: ${turned.join(' -> ')} would be a cycle`, ['checks', key, 'dependsOn', ...(index >= 0 ? [index] : [])]);
  }

  private keepCheckKey(id: string, key: string): void {
    this.checkKeyOf.set(id, key);
    this.checkKeys.add(key);
    this.keptKeys.check.push({ key, objectId: id });
  }

  /** Keys of checks named by an entry: each must be a check the account has once the file is applied. */
  private checkKeysOf(keys: readonly string[] | undefined, path: FilePath): string[] {
    (keys ?? []).forEach((key, i) => {
      if (!this.checkKeys.has(key)) throw this.source.error(`names no check of this file or the account: ${key}`, [...path, i]);
    });
    return [...new Set(keys ?? [])];
  }

  private routingOf(ids: readonly string[]): string[] {
    return ids.map((id) => this.checkKeyOf.get(id)).filter((k): k is string => k !== undefined);
  }

  private planWebhooks(): void {
    const entries = this.file.webhooks ?? {};
    const index = indexKeys(this.snapshot.webhooks, this.snapshot.keys.webhook, (w) => w.name, 'webhook');
    const { pairs, unmatched } = this.match('webhooks', entries, index);
    this.planDeletes('webhooks', 'webhook', unmatched, index);
    const allowHttp = this.options.config.alerts.allowHttpWebhooks;
    for (const { key, entry, current, renamedFrom } of pairs) {
      const path = ['webhooks', key];
      const state = this.at(path, () => webhookState(entry, allowHttp));
      state.checks = this.checkKeysOf(entry.checks, [...path, 'checks']);
      if (current === null) {
        this.record('webhooks', 'create', key, shown('webhooks', defined(state)));
        this.steps.push({ section: 'webhooks', action: 'create', key, state });
        this.addresses.push({ path: [...path, 'url'], webhookUrl: state.url });
        continue;
      }
      this.keptKeys.webhook.push({ key, objectId: current.id });
      const now: WebhookState = {
        name: current.name, url: current.url, webhookType: current.webhookType, events: current.events, enabled: current.enabled,
        secret: current.secret, checks: this.routingOf(current.checkIds), folders: current.folders, tags: current.tags, remindEveryMinutes: current.remindEveryMinutes,
      };
      const { patch, fields } = diff('webhooks', now, state, new Set(['checks', 'folders', 'tags', 'events']));
      if (patch.url !== undefined) {
        patch.webhookType = state.webhookType;
        this.addresses.push({ path: [...path, 'url'], webhookUrl: state.url });
      }
      this.planUpdate('webhooks', key, current.id, patch, fields, renamedFrom);
    }
  }

  private planEmail(): void {
    const entry = this.file.email;
    if (entry === undefined) return;
    const path = ['email'];
    const state = this.at(path, () => emailState(entry));
    state.checks = this.checkKeysOf(entry.checks, [...path, 'checks']);
    const current = this.snapshot.email;
    if (current === null) {
      this.record('email', 'create', 'email', shown('email', defined(state)));
      this.steps.push({ section: 'email', action: 'create', key: 'email', patch: state });
      return;
    }
    const now: EmailState = {
      enabled: current.enabled, recipients: current.recipients, events: current.events, emailFormat: current.emailFormat,
      checks: this.routingOf(current.checkIds), folders: current.folders, tags: current.tags, remindEveryMinutes: current.remindEveryMinutes,
    };
    const { patch, fields } = diff('email', now, state, new Set(['checks', 'folders', 'tags', 'events', 'recipients']));
    if (fields.length === 0) {
      this.unchanged.email++;
      return;
    }
    this.record('email', 'update', 'email', fields);
    this.steps.push({ section: 'email', action: 'update', key: 'email', patch });
  }

  private planPages(): void {
    const index = indexKeys(this.snapshot.pages, this.snapshot.keys.status_page, (p) => p.slug, 'page');
    this.planStates('statusPages', 'status_page', this.file.statusPages ?? {}, index, pageState, (current): PageState => ({
      slug: current.slug, title: current.title, description: current.description, customDomain: current.customDomain,
      tags: current.tags, autoIncidents: current.autoIncidents, webhookSubscriptions: current.webhookSubscriptions, logoUrl: current.logoUrl, accentColor: current.accentColor, footerText: current.footerText,
      favicon: current.favicon, hidePoweredBy: current.hidePoweredBy, embedAllowedOrigins: current.embedAllowedOrigins, checks: this.routingOf(current.checkIds),
    }), new Set());
  }

  private planWindows(): void {
    const index = indexKeys(this.snapshot.windows, this.snapshot.keys.maintenance_window, (w) => w.title, 'window');
    this.planStates('maintenanceWindows', 'maintenance_window', this.file.maintenanceWindows ?? {}, index, (_key, entry) => windowState(entry),
      (current) => windowStateOf(current, (ids) => this.routingOf(ids)), new Set(['checks', 'folders', 'tags']));
  }

  /** A section whose entries are states compared field by field (lists in `unordered` as sets), naming checks by key. */
  private planStates<E extends { renamedFrom?: string; checks?: string[] }, T extends { id: string }, S extends PageState | WindowState>(
    section: 'statusPages' | 'maintenanceWindows',
    kind: ConfigKind,
    entries: Record<string, E>,
    index: KeyIndex<T>,
    stateOf: (key: string, entry: E) => S,
    nowOf: (current: T) => S,
    unordered: ReadonlySet<string>,
  ): void {
    const { pairs, unmatched } = this.match(section, entries, index);
    this.planDeletes(section, kind, unmatched, index);
    for (const { key, entry, current, renamedFrom } of pairs) {
      const path = [section, key];
      const state = this.at(path, () => stateOf(key, entry));
      state.checks = this.checkKeysOf(entry.checks, [...path, 'checks']);
      if (current === null) {
        this.record(section, 'create', key, shown(section, defined(state)));
        this.steps.push({ section, action: 'create', key, state } as Step);
        continue;
      }
      this.keptKeys[kind].push({ key, objectId: current.id });
      const { patch, fields } = diff(section, nowOf(current), state, unordered);
      this.planUpdate(section, key, current.id, patch, fields, renamedFrom);
    }
  }

  private planDeletes<T extends { id: string }>(section: 'webhooks' | 'statusPages' | 'maintenanceWindows', kind: ConfigKind, unmatched: T[], index: KeyIndex<T>): void {
    for (const object of unmatched) {
      const key = index.keyOf.get(object.id)!;
      if (!this.options.prune) {
        this.notInFile[section]++;
        this.keptKeys[kind].push({ key, objectId: object.id });
        continue;
      }
      this.record(section, 'delete', key, []);
      this.steps.push({ section, action: 'delete', key, id: object.id });
    }
  }

  private planUpdate<S>(section: 'webhooks' | 'statusPages' | 'maintenanceWindows', key: string, id: string, patch: Partial<S>, fields: FieldChange[], renamedFrom?: string): void {
    if (fields.length === 0 && !renamedFrom) {
      this.unchanged[section]++;
      return;
    }
    this.record(section, 'update', key, fields, renamedFrom);
    this.steps.push({ section, action: 'update', key, id, patch } as Step);
  }

  /**
   * Pairs the file's entries with the account's objects: by key, else by `renamedFrom` (when no
   * entry of the file has that key itself). An object claimed twice is an error.
   */
  private match<E extends { renamedFrom?: string }, T extends { id: string }>(
    section: Exclude<Section, 'email'>,
    entries: Record<string, E>,
    index: KeyIndex<T>,
  ): { pairs: Array<{ key: string; entry: E; current: T | null; renamedFrom?: string }>; unmatched: T[] } {
    const claimed = new Map<string, string>();
    const pairs = Object.entries(entries).map(([key, entry]) => {
      let current = index.byKey.get(key) ?? null;
      let renamedFrom: string | undefined;
      if (current === null && entry.renamedFrom !== undefined && !Object.hasOwn(entries, entry.renamedFrom)) {
        current = index.byKey.get(entry.renamedFrom) ?? null;
        if (current !== null) renamedFrom = entry.renamedFrom;
      }
      if (current !== null) {
        const other = claimed.get(current.id);
        if (other !== undefined) throw this.source.error(`names the same ${OBJECT_NAME[section]} as ${section}.${other}`, [section, key, 'renamedFrom']);
        claimed.set(current.id, key);
      }
      return { key, entry, current, ...(renamedFrom ? { renamedFrom } : {}) };
    });
    const unmatched = [...index.byKey.values()].filter((o) => !claimed.has(o.id));
    return { pairs, unmatched };
  }

  /** Plan limits before any write: the file must fit the account's plan as a whole. */
  private checkLimits(): void {
    const limits = limitsFor(this.options.config, this.options.account);
    const after = (section: 'checks' | 'webhooks', now: number) =>
      now + this.changes.filter((c) => c.section === section && c.action === 'create').length - this.changes.filter((c) => c.section === section && c.action === 'delete').length;
    const checks = after('checks', this.snapshot.checks.length);
    if (checks > limits.maxChecks) {
      throw this.source.error(`the account would have ${checks} checks but its plan allows ${limits.maxChecks}: nothing was written`, ['checks'], 409);
    }
    const webhooks = after('webhooks', this.snapshot.webhooks.length);
    if (webhooks > limits.maxWebhooks) {
      throw this.source.error(`the account would have ${webhooks} webhooks but its plan allows ${limits.maxWebhooks}: nothing was written`, ['webhooks'], 409);
    }
  }
}

/** An error of the services (or the file's rules) at a place of the file: `checkFrequency must be…` points at that field. */
export function placed(source: MonitoringFileSource, err: unknown, path: FilePath): unknown {
  if (!(err instanceof ApiError) || err.code === 'invalid_config' || err.status >= 500) return err;
  const field = /^([A-Za-z]+)[\s.]/.exec(err.message)?.[1];
  const fileField = field === 'checkIds' ? 'checks' : field;
  const known = fileField !== undefined && source.writes([...path, fileField]);
  return source.error(err.message, known ? [...path, fileField] : path, err.status);
}

function webhookState(entry: WebhookEntryInput, allowHttp: boolean): WebhookState {
  const url = parseWebhookUrl(entry.url, allowHttp);
  return {
    name: displayName(entry.name),
    url: url.href,
    webhookType: entry.webhookType ?? detectWebhookType(url),
    events: entry.events === undefined ? [...DEFAULT_EVENTS] : normalizeEvents(entry.events),
    enabled: entry.enabled ?? true,
    secret: entry.secret ?? null,
    checks: [],
    folders: folderList(entry.folders),
    tags: uniqueTags(entry.tags ?? []),
    remindEveryMinutes: entry.remindEveryMinutes ?? null,
  };
}

function emailState(entry: EmailEntryInput): EmailState {
  return {
    enabled: entry.enabled ?? true,
    recipients: normalizeRecipients(entry.recipients),
    events: entry.events === undefined ? [...DEFAULT_EVENTS] : normalizeEvents(entry.events),
    emailFormat: entry.emailFormat ?? 'html',
    checks: [],
    folders: folderList(entry.folders),
    tags: uniqueTags(entry.tags ?? []),
    remindEveryMinutes: entry.remindEveryMinutes ?? null,
  };
}

function pageState(key: string, entry: StatusPageEntryInput): PageState {
  const { slug, checks: _checks, renamedFrom: _renamedFrom, ...settings } = entry;
  return { slug: slug ?? key, ...pageSettingsOf(settings), checks: [] };
}

function folderList(folders: readonly string[] | undefined): string[] {
  return [...new Set((folders ?? []).map((f) => f.trim()))];
}

/** Fields of `to` that differ from `now`; lists in `unordered` compare as sets. */
function diff<S extends object>(section: Section, now: S, to: S, unordered: ReadonlySet<string>): { patch: Partial<S>; fields: FieldChange[] } {
  const patch: Partial<S> = {};
  const fields: FieldChange[] = [];
  for (const name of Object.keys(to) as Array<keyof S & string>) {
    const a = now[name];
    const b = to[name];
    const same = unordered.has(name) && Array.isArray(a) && Array.isArray(b) ? isDeepStrictEqual([...a].sort(), [...b].sort()) : isDeepStrictEqual(a, b);
    if (same) continue;
    patch[name] = b;
    fields.push(fieldChange(section, name, a, b));
  }
  return { patch, fields };
}

function fieldChange(section: Section, field: string, from: unknown, to: unknown): FieldChange {
  if (HIDDEN[section].has(field)) return { field };
  const short = (v: unknown) => v === undefined || JSON.stringify(v).length <= MAX_SHOWN_LENGTH;
  return short(from) && short(to) ? { field, from: from ?? null, to } : { field };
}

/** A create's fields as a plan shows them: the values the file sets (secrets and long ones hidden). */
function shown(section: Section, values: Record<string, unknown>): FieldChange[] {
  return Object.entries(values).map(([field, to]) => {
    const change = fieldChange(section, field, undefined, to);
    delete change.from;
    return change;
  });
}

/** The entry's non-default fields (its name, url and type always). */
function writtenOf(declared: CheckFields, entry: CheckEntryInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(declared)) {
    if (name === 'name' || name === 'url' || name === 'type' || Object.hasOwn(entry, name)) out[name] = value;
  }
  if (entry.paused) out.paused = true;
  return out;
}

/** The values that are set (empty routing and null options left out). */
function defined(state: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(state).filter(([, v]) => v !== null && !(Array.isArray(v) && v.length === 0)));
}
